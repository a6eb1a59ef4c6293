"""Oh Hell: the declaration (what the bot needs to know; plain data, see games/declaration.py)."""

from games.declaration import Declaration, Option

DECLARATION = Declaration(
    id="oh_hell",
    title="Oh Hell",
    players=(3, 7),
    trick_game=True, score_sheet="sheet", table_picture=True,
    options=(
        Option('hook', 'the dealer may not bid so that the bids total the hand size', choices=(False, True)),
        Option('zero_bonus', 'a made 0 bid scores 5 + the number of cards dealt', choices=(False, True)),
        Option(
            'hand_sizes',
            'ascending (1, 2, ... 15/13/10/8/7 deals), up_and_down (1 .. max .. 1) or a list of hand sizes',
        ),
        Option('last_deal_no_trump', 'the last deal of the game is played without trumps', choices=(False, True)),
    ),
    quick=(("hand_sizes", "2,1"),),
)
