"""Carnival: the declaration (what the bot needs to know; plain data, see games/declaration.py)."""

from games.declaration import Declaration, Option

DECLARATION = Declaration(
    id="carnival",
    title="Carnival",
    players=(3, 6),
    trick_game=True, score_sheet="grid", table_picture=True,
    options=(
        Option('quarters', 'quarters to play (4 = the full game)', choices=(1, 2, 3, 4)),
        Option(
            'joker_trump',
            'a joker turned up for trump: turn the next card, or play without trump',
            choices=('next_card', 'no_trump'),
        ),
    ),
    quick=(("quarters", "1"),),
)
