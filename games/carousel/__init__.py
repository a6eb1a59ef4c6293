"""Carousel: the declaration (what the bot needs to know; plain data, see games/declaration.py)."""

from games.declaration import Declaration, Option

DECLARATION = Declaration(
    id="carousel",
    players=(2, 5),
    chat_table=False,  # the rummies: the engine plays them, the chat not yet (issue 16)
    options=(
        Option(
            'culbertson',
            "Culbertson's variant: draw up to 4, knock at 10 or less at the start of a turn",
            choices=(False, True),
        ),
        Option('target', "the game ends when someone's total reaches this"),
    ),
)
