"""Variety: the declaration (what the bot needs to know; plain data, see games/declaration.py)."""

from games.declaration import Declaration, Option

DECLARATION = Declaration(
    id="variety",
    title="Variety",
    players=(4, 4),
    trick_game=True, score_sheet="sheet", table_picture=True, deal_side="attackers",
    options=(
        Option('deals', 'deals in the tour (8: each player deals twice)'),
    ),
    quick=(("deals", "1"),),
)
