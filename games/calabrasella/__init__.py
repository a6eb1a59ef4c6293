"""Calabrasella: the declaration (what the bot needs to know; plain data, see games/declaration.py)."""

from games.declaration import Declaration, Option

DECLARATION = Declaration(
    id="calabrasella",
    title="Calabrasella",
    players=(3, 3),
    trick_game=True, score_sheet="sheet", table_picture=True, deal_side="soloist",
    options=(
        Option('deals', 'dealings in a game (3: the deal returns to the first dealer)'),
    ),
    quick=(("deals", "1"),),
)
