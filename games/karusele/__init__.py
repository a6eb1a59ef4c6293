"""Karusele: the declaration (what the bot needs to know; plain data, see games/declaration.py)."""

from games.declaration import Declaration, Option, Teams

DECLARATION = Declaration(
    id="karusele",
    title="Karusele",
    players=(2, 4),
    table_picture=True, teams=Teams(players=4, seats=((0, 2), (1, 3)), option="teams"),
    options=(
        Option('teams', '2 v 2, partners opposite, shared pile (4 players only)', choices=(False, True)),
        Option('point_per', '1 point per spade (seed) or per ace', choices=('spade', 'ace')),
        Option('target', 'the game ends when a side reaches this'),
    ),
    quick=(("target", "10"),),
    hand="capture",
)
