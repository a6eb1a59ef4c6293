"""Manipulation: the declaration (what the bot needs to know; plain data, see games/declaration.py)."""

from games.declaration import Declaration, Option

DECLARATION = Declaration(
    id="manipulation",
    title="Manipulation",
    players=(3, 8),
    score_sheet="sheet",  # the rummies: games/rummies draws the table and the penalty sheet
    table_picture=True,
    options=(
        Option('deals', 'deals in the match (0: until the target)', choices=(0, 1, 3)),
        Option('target', "the match ends when someone's penalties reach this (200 or 300)", choices=(200, 300, 100)),
    ),
    quick=(("deals", "1"), ("target", "0")),
    hand="toggle",
)
