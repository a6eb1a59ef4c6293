"""Manipulation: the declaration (what the bot needs to know; plain data, see games/declaration.py)."""

from games.declaration import Declaration, Option

DECLARATION = Declaration(
    id="manipulation",
    players=(3, 8),
    chat_table=False,  # the rummies: the engine plays them, the chat not yet (issue 16)
    options=(
        Option('deals', 'deals in the match (0: until the target)'),
        Option('target', "the match ends when someone's penalties reach this (200 or 300)"),
    ),
)
