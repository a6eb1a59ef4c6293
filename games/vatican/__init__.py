"""Vatican: the declaration (what the bot needs to know; plain data, see games/declaration.py)."""

from games.declaration import Declaration

DECLARATION = Declaration(
    id="vatican",
    players=(2, 5),
    chat_table=False,  # the rummies: the engine plays them, the chat not yet (issue 16)
)
