"""Tahiti: the declaration (what the bot needs to know; plain data, see games/declaration.py)."""

from games.declaration import Declaration, Option

DECLARATION = Declaration(
    id="tahiti",
    title="Tahiti",
    players=(2, 5),
    score_sheet="sheet",  # the rummies: games/rummies draws the table and the penalty sheet
    table_picture=True,
    options=(
        Option('deals', 'deals in the match (0: until the target)', choices=(1, 2, 3, 5)),
        Option('target', "the match ends when someone's penalties reach this (0: off)", choices=(0, 100, 200)),
    ),
    quick=(("deals", "1"),),
    hand="toggle",
)
