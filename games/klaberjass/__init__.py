"""Klaberjass: the declaration (what the bot needs to know; plain data, see games/declaration.py)."""

from games.declaration import Declaration, Option

DECLARATION = Declaration(
    id="klaberjass",
    title="Klaberjass",
    players=(2, 2),
    trick_game=True, score_sheet="sheet", table_picture=True,
    options=(
        Option('target', 'points that end the game'),
        Option('bete', 'what the opponent of a losing maker scores', choices=('both_totals', 'double_own')),
    ),
    quick=(("target", "150"),),
)
