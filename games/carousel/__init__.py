"""Carousel: the declaration (what the bot needs to know; plain data, see games/declaration.py)."""

from games.declaration import Declaration, Option

DECLARATION = Declaration(
    id="carousel",
    title="Carousel",
    players=(2, 5),
    score_sheet="sheet",  # the rummies: games/rummies draws the table and the penalty sheet
    table_picture=True,
    options=(
        Option(
            'culbertson',
            "Culbertson's variant: draw up to 4, knock at 10 or less at the start of a turn",
            choices=(False, True),
        ),
        Option('target', "the game ends when someone's total reaches this", choices=(150, 100, 50, 300)),
    ),
    quick=(("target", "50"),),
    hand="toggle",
)
