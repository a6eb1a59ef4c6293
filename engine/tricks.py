"""What trick-taking games share: following suit, trumping duties, trick winners, bid hooks.

Every function takes cards as ints (see ``engine.cards``) and a ``strength`` function that
orders cards inside one suit, so Klaberjass (J 9 A 10 ... in trumps), Calabrasella
(3 2 A K ...) and the plain A-high games use the same code. ``trump`` is a suit index or
``NO_TRUMP``.

The view of a trick game (``State.view``) uses these keys where they apply, so the bot's
words and pictures work for every trick game:

- ``phase``: e.g. "bid", "play", "over" (games add their own phases);
- ``hand``: the viewer's cards (text notation), absent for spectators; ``hand_counts``: per seat;
- ``dealer``, ``leader`` (of the deal), ``deal_no`` (1-based), ``hand_size``;
- ``trump``: suit letter or None; ``trump_card``: the turned card's text or None;
- ``bids``: per seat, int or None (not yet bid); ``tricks``: tricks taken this deal per seat;
- ``trick``: {"leader": seat, "plays": [{"seat": s, "cards": ["AS"], ...}], ...} or None;
- ``last_trick``: the same plus "winner", or None.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from typing_extensions import TypedDict

from engine.cards import CARD_TEXT, SUITS, deck, rank_of, suit_of
from engine.events import Play, TrickEvent, TrickView

NO_TRUMP = -1

Strength = Callable[[int], int]


def natural(card: int) -> int:
    """A-high order: the rank itself (2..14)."""
    return rank_of(card)


def order_from(ranks_high_to_low: Sequence[int]) -> Strength:
    """A strength function from a list of ranks, highest first (e.g. Calabrasella's 3 2 A K ...)."""
    table = {rank: len(ranks_high_to_low) - i for i, rank in enumerate(ranks_high_to_low)}
    return lambda card: table.get(rank_of(card), 0)


def trump_letter(trump: int) -> str | None:
    return None if trump == NO_TRUMP else SUITS[trump]


def trump_from_letter(letter: str | None) -> int:
    if letter in (None, "", "N", "NT"):
        return NO_TRUMP
    return SUITS.index(letter.upper())


def winning_index(
    cards: Sequence[int],
    trump: int = NO_TRUMP,
    *,
    strength: Strength = natural,
    trump_strength: Strength | None = None,
    lowest: bool = False,
) -> int:
    """Index in ``cards`` (play order, the lead first) of the card that wins the trick.

    A trump beats every non-trump; otherwise only cards of the led suit compete. With
    ``lowest`` the lowest card of the winning class wins (Variety's contract VI). On equal
    strength (double packs) the earlier card wins.
    """
    led = suit_of(cards[0])
    t_strength = trump_strength or strength
    best = 0
    best_key = _key(cards[0], led, trump, strength, t_strength, lowest)
    for i in range(1, len(cards)):
        key = _key(cards[i], led, trump, strength, t_strength, lowest)
        if key > best_key:
            best, best_key = i, key
    return best


def _key(card: int, led: int, trump: int, strength: Strength, t_strength: Strength, lowest: bool) -> tuple[int, int]:
    suit = suit_of(card)
    if suit == trump and trump != NO_TRUMP:
        value = t_strength(card)
        return (2, -value if lowest else value)
    if suit == led:
        value = strength(card)
        return (1, -value if lowest else value)
    return (0, 0)


def follow_options(
    hand: Iterable[int],
    led_suit: int,
    trump: int = NO_TRUMP,
    *,
    must_trump: bool = False,
    must_overtrump: bool = False,
    best_trump: int | None = None,
    trump_strength: Strength = natural,
) -> list[int]:
    """The cards of ``hand`` that may be played to a trick led in ``led_suit``.

    Follow suit if able. ``must_trump``: when void, trump if able. ``must_overtrump``:
    when playing a trump and ``best_trump`` (the highest trump already in the trick) is
    given, beat it if able. Returns distinct cards in hand order.
    """
    cards = list(dict.fromkeys(hand))
    same = [c for c in cards if suit_of(c) == led_suit]
    if same:
        pool = same
    elif must_trump and trump != NO_TRUMP:
        trumps = [c for c in cards if suit_of(c) == trump]
        pool = trumps or cards
    else:
        pool = cards
    if must_overtrump and best_trump is not None and trump != NO_TRUMP:
        trumps_in_pool = [c for c in pool if suit_of(c) == trump]
        if trumps_in_pool and len(trumps_in_pool) == len(pool):
            higher = [c for c in pool if trump_strength(c) > trump_strength(best_trump)]
            if higher:
                pool = higher
    return pool


def hook_forbidden_bid(bids: Sequence[int | None], hand_size: int, players: int) -> int | None:
    """The bid the last bidder may not make (it would make the total equal the tricks), or None.

    ``bids`` are the bids made so far in bidding order. Returns None when the bidder is not
    the last one or the forbidden total is out of range.
    """
    made = [b for b in bids if b is not None]
    if len(made) != players - 1:
        return None
    forbidden = hand_size - sum(made)
    return forbidden if 0 <= forbidden <= hand_size else None


def sort_hand(cards: Iterable[int], trump: int = NO_TRUMP) -> list[int]:
    """Display order: trumps first, then S H D C, high to low within a suit, jokers first of all."""

    def key(card: int) -> tuple[int, int]:
        suit = suit_of(card)
        if suit < 0:
            return (-2, -card)
        return (-1 if suit == trump else suit, -rank_of(card))

    return sorted(cards, key=key)


def follow_suit(hand: Sequence[int], led_suit: int) -> list[int]:
    """Fast ``follow_options`` for games with no trumping duty (Oh Hell, Variety): the cards of
    ``led_suit`` in hand order, or the whole hand when void.

    The same answer as ``follow_options(hand, led_suit)`` for a hand of distinct suited cards
    (``led_suit`` 0..3); it is the hot path of simulation and AI search, hence no helpers inside.
    """
    low = led_suit << 4
    high = low + 16
    same = [c for c in hand if low <= c < high]
    return same if same else list(hand)


def plain_winning_index(cards: Sequence[int], trump: int = NO_TRUMP, lowest: bool = False) -> int:
    """Fast ``winning_index`` for A-high games without jokers (Oh Hell, Variety): the same answer as
    ``winning_index(cards, trump, lowest=lowest)``, in one tight loop.

    Within a suit the card codes order like the ranks (``suit * 16 + rank``), so codes compare directly.
    """
    first = cards[0]
    led = first >> 4
    best = 0
    best_card = first
    best_is_trump = led == trump
    for i in range(1, len(cards)):
        card = cards[i]
        suit = card >> 4
        if suit == trump:
            if not best_is_trump:
                best, best_card, best_is_trump = i, card, True
                continue
        elif suit != led or best_is_trump:
            continue
        if (card < best_card) if lowest else (card > best_card):
            best, best_card = i, card
    return best


_SORT_TABLES: dict[int, dict[int, int]] = {}


def sort_key_table(trump: int = NO_TRUMP) -> dict[int, int]:
    """``sort_hand``'s order as one int per card code, built once per trump:
    ``sorted(hand, key=sort_key_table(trump).__getitem__)`` sorts exactly like ``sort_hand`` at a
    fraction of the cost (dealing is a hot path of simulations)."""
    table = _SORT_TABLES.get(trump)
    if table is None:
        table = {}
        for card in range(128):
            suit = suit_of(card)
            if suit < 0:
                table[card] = -1000 - card
            elif 2 <= rank_of(card) <= 14:
                table[card] = (0 if suit == trump else suit + 1) * 16 + 16 - rank_of(card)
        _SORT_TABLES[trump] = table
    return table


_SORT_KEY_FNS: dict[int, Callable[[int], int]] = {}


def sort_key_fn(trump: int = NO_TRUMP) -> Callable[[int], int]:
    """``sort_key_table(trump)`` as a key function that C calls fast (a bound ``list.__getitem__``;
    a dict's ``__getitem__`` is a slot wrapper, several times slower per call): for dealing."""
    fn = _SORT_KEY_FNS.get(trump)
    if fn is None:
        table = sort_key_table(trump)
        fn = _SORT_KEY_FNS[trump] = [table.get(card, 0) for card in range(128)].__getitem__
    return fn


def plays_view(trick: Sequence[Sequence[int]]) -> list[Play]:
    """A trick held as ``[[seat, card], ...]``, in the view's form (one card per play)."""
    return [{"seat": seat, "cards": [CARD_TEXT[card]]} for seat, card in trick]


def seated_plays(leader: int, n: int, trick: Sequence[int]) -> list[Play]:
    """A trick held as its cards in order from ``leader`` round ``n`` seats, in the view's form."""
    return [{"seat": (leader + i) % n, "cards": [CARD_TEXT[card]]} for i, card in enumerate(trick)]


class TakenTrick(TypedDict):
    """A trick taken, as states that hold a trick as its cards from the leader keep it (Oh Hell, Variety)."""

    leader: int
    cards: list[int]
    winner: int


class TrickTaker(Protocol):
    """A state holding ``trick`` as ``[[seat, card], ...]`` with ``trick_leader``, per-seat ``tricks``
    counts, ``taken`` piles and ``last_trick`` (Klaberjass, Calabrasella)."""

    trick: list[list[int]]
    trick_leader: int
    tricks: list[int]
    taken: list[list[int]]
    last_trick: TrickView | None


def take_trick(state: TrickTaker, winner: int) -> TrickEvent:
    """The winner takes the trick on the table and leads the next; returns the "trick" event."""
    cards = [card for _, card in state.trick]
    leader = state.trick_leader
    state.tricks[winner] += 1
    state.taken[winner].extend(cards)
    state.last_trick = {"leader": leader, "plays": plays_view(state.trick), "winner": winner}
    event: TrickEvent = {"type": "trick", "leader": leader, "winner": winner, "plays": plays_view(state.trick),
             "cards": [CARD_TEXT[c] for c in cards]}
    state.trick = []
    state.trick_leader = winner
    return event


def why_card_refused(card: int | None, hand: Sequence[int], trick: Sequence[int]) -> str:
    """Why a card play was refused in a follow-suit game: not a card play, not held, or not following."""
    if card is None:
        return "it is time to play a card: 'play C'"
    if card not in hand:
        return f"{CARD_TEXT[card]} is not in your hand"
    return f"you must follow suit ({CARD_TEXT[trick[0]][-1]})"


# "play C" for every card of the 52-card pack and back: the card plays of Oh Hell and Variety.
PLAY_TEXT: dict[int, str] = {card: "play " + CARD_TEXT[card] for card in deck(52)}
PLAY_CARD: dict[str, int] = {text: card for card, text in PLAY_TEXT.items()}


def follow_suit_plays(hand: Sequence[int], trick: Sequence[int]) -> list[str]:
    """The public path's legal card plays (``PLAY_TEXT``) where suit must be followed and nothing else
    is owed (Oh Hell, Variety): the whole hand to lead, else ``follow_suit`` of the trick's led card."""
    if not trick:
        return [PLAY_TEXT[c] for c in hand]
    return [PLAY_TEXT[c] for c in follow_suit(hand, trick[0] >> 4)]


def open_trick_view(leader: int, n: int, trick: Sequence[int], trump: int, lowest: bool = False) -> TrickView | None:
    """The view of the trick on the table, held as its cards from ``leader`` round ``n`` seats, with the
    seat winning it so far (``plain_winning_index``); None when no card is down."""
    if not trick:
        return None
    best = (leader + plain_winning_index(trick, trump, lowest)) % n
    return {"leader": leader, "plays": seated_plays(leader, n, trick), "best": best}


def taken_trick_view(last: TakenTrick | None, n: int) -> TrickView | None:
    """The view of the last trick taken, kept as a ``TakenTrick``; None before the first."""
    if last is None:
        return None
    return {"leader": last["leader"], "plays": seated_plays(last["leader"], n, last["cards"]), "winner": last["winner"]}


def follow_or_any(hand: list[int], led: int) -> list[int]:
    """The fast path's legal cards where suit must be followed and nothing else is owed: the cards of
    the led suit, or the hand itself when void (no allocation then). Plain suited cards only."""
    suit = led & 0x30
    same = [c for c in hand if c & 0x30 == suit]
    return same if same else hand


def _plain_win_keys(trump: int, led: int) -> list[int]:
    """One trick-winner key per card code (0..63) for a trick led in ``led`` with ``trump``: trumps
    above the led suit, the led suit by rank, every other card 0 (it cannot win)."""
    keys = []
    for card in range(64):
        suit, rank = card >> 4, card & 15
        keys.append(0 if not 2 <= rank <= 14 else 32 + rank if suit == trump else 16 + rank if suit == led else 0)
    return keys


# PLAIN_WIN_KEYS[trump][led]: ``_plain_win_keys``'s tables (lists: indexing one is a specialised
# bytecode, the fastest look-up Python has); a trump of NO_TRUMP (-1) picks the last row.
PLAIN_WIN_KEYS: tuple[tuple[list[int], ...], ...] = tuple(
    tuple(_plain_win_keys(trump, led) for led in range(4)) for trump in (0, 1, 2, 3, NO_TRUMP)
)

