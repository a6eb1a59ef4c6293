"""Pyanitsa: the declaration (what the bot needs to know; plain data, see games/declaration.py)."""

from games.declaration import Declaration, Option

DECLARATION = Declaration(
    id="pyanitsa",
    title="Pyanitsa",
    players=(2, 8),
    forced_moves_play=True, forced_option="flip", forced_off="button",
    options=(
        Option('deck', 'auto: 32 cards for 2 players, 36 for 3, 52 for 4 or more', choices=('auto', '32', '36', '52')),
        Option(
            'winner',
            'first_out: the first to run out of cards wins; collects_all: the last holder',
            choices=('first_out', 'collects_all'),
        ),
        Option('max_rounds', 'rounds before card counts decide'),
        Option(
            'gather',
            'how the taker puts the won cards under his pile: in no set order, or as turned',
            choices=('shuffled', 'in_order'),
        ),
        Option(
            'flip',
            'auto: the table turns the cards by itself; button: each player presses Flip (a table setting for the '
            'bot: the rules are the same either way)',
            choices=('auto', 'button'),
        ),
    ),
    quick=(("max_rounds", "25"),),
)
