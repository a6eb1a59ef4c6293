"""Vatican: the declaration (what the bot needs to know; plain data, see games/declaration.py)."""

from games.declaration import Declaration

DECLARATION = Declaration(
    id="vatican",
    title="Vatican",
    players=(2, 5),
    score_sheet="sheet",  # the rummies: games/rummies draws the table and the penalty sheet
    table_picture=True,
    hand="toggle",
)
