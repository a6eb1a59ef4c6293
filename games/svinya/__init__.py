"""Svinya: the declaration (what the bot needs to know; plain data, see games/declaration.py)."""

from games.declaration import Declaration, Option

DECLARATION = Declaration(
    id="svinya",
    title="Svinya",
    players=(2, 8),
    forced_moves_play=True,
    options=(
        Option(
            'deck',
            'auto: 36 cards (pig from a 6) for 2-3 players, 52 (pig from a 2) for 4+',
            choices=('auto', '36', '52'),
        ),
        Option('lift', "a player may move his own shop's top card onto the pig when it fits", choices=(False, True)),
    ),
)
