"""Calabrasella (Калабраселла): three players, 40 cards, one soloist against two partners.

Rules: RULES.md (the team rules digest) section 2 (seed 001). 12 cards each and a widow of 4; card order
3 > 2 > A > K > Q > J > 7 > 6 > 5 > 4, no trumps. From eldest (the dealer's left) each player
declares or passes; the first to declare is the soloist, all passing annuls the deal. The
soloist may ask for one card (a 3 he lacks; a 2 if he holds all four 3s; an A if he holds all
3s and 2s): its holder gives it and gets back a card of the soloist's choice, which the third
player does not see; if the card is in the widow, nothing else may be asked. The soloist then
discards 1-4 cards face down, the widow is turned up for everyone, and he takes as many widow
cards. Discards plus the unused widow form the pile, which goes to the winner of the last
trick. Eldest leads; follow suit if able, else any card; 12 tricks. Points: A 3; K, Q, J, 3, 2
one each; last trick 3; 35 a deal. The soloist wins (or pays) the difference d between his
points and the partners' from each partner: soloist +2d, each partner -d.

Action verbs (canonical text; card lists in the order of the ``hand`` view):
- ``declare`` / ``pass``: the declaration, eldest first, then the next player, then the dealer;
- ``ask 3H``: the soloist asks for a card (``noask``: he asks for nothing). When a partner holds
  it, it moves to the soloist at once (the holder has no choice to make);
- ``return C``: the soloist gives the holder a card of his choice in exchange;
- ``discard C C ...``: the soloist discards 1-4 cards face down; the widow is then turned up;
- ``take C C ...``: he takes as many cards from the widow;
- ``play C``: play a card to the trick.

A game is ``deals`` dealings (default 3: until the deal returns to the first dealer); an
annulled deal (all pass) counts, since the deal passes to the left all the same.

Explicit deal (``deals[k]``): ``{"dealer": 0, "hands": [[12 cards] x 3], "widow": [4 cards]}``;
``dealer`` may be omitted (the deal rotates to the left).
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from engine.cards import ACE, JACK, KING, QUEEN, card_str, cards_str, deck, make, parse_card, rank_of, suit_of
from engine.core import Event, Game, GameError, Options, State, ViewPart, deal_rng, register
from engine.events import DealEndEvent, DealEvent, OtherEvent, TrickView
from engine.tricks import NO_TRUMP, follow_options, order_from, plays_view, take_trick, winning_index


class Asked(TypedDict):
    """The card the soloist asked for, who held it (None: the widow) and the card returned for it."""

    card: str
    holder: int | None
    returned: str | None


class AskEvent(OtherEvent):
    """``type`` "ask": the soloist asked for ``card`` (None: asked for nothing)."""

    card: str | None
    holder: NotRequired[int | None]
    in_widow: NotRequired[bool]


class ExchangeEvent(OtherEvent):
    """``type`` "exchange": the soloist returned a card to the asked card's ``holder`` (which stays hidden)."""

    soloist: int
    holder: int


class DiscardEvent(OtherEvent):
    """``type`` "discard": ``seat`` put ``count`` cards aside."""

    count: int


class CardsEvent(OtherEvent):
    """``type`` "widow" (the widow turned up) or "take" (``seat`` took these widow cards)."""

    cards: list[str]


class AnnulledDealEnd(DealEndEvent):
    deal_no: int  # the deal thrown in
    annulled: str  # "all passed"
    points: list[int]


class CalabrasellaDealEnd(DealEndEvent):
    deal_no: int  # the deal that ended: its line is read at the head of the next deal's table
    soloist: int
    soloist_points: int
    partner_points: int
    last_trick: int  # the seat that took it
    pile: list[str]
    points: list[int]


class AskedView(TypedDict):
    card: str
    holder: int | None
    in_widow: bool
    returned: NotRequired[str | None]  # for the soloist and the holder only


class CalabrasellaView(ViewPart):
    leader: int
    deals: int
    hand_size: int
    trump: None
    trump_card: None
    bids: None
    declarations: list[str | None]
    soloist: int | None
    asked: AskedView | None
    widow: list[str] | None
    widow_taken: list[str]
    discard_count: int
    pile_count: int
    tricks: list[int]
    card_points: list[int]
    sheet: dict[str, Any]
    discards: NotRequired[list[str]]  # for the soloist only

RANK_ORDER = [3, 2, ACE, KING, QUEEN, JACK, 7, 6, 5, 4]
STRENGTH = order_from(RANK_ORDER)
POINTS = {ACE: 3, KING: 1, QUEEN: 1, JACK: 1, 3: 1, 2: 1}
LAST_TRICK = 3
TOTAL = 35
TRICKS = 12
ASK_LADDER = (3, 2, ACE)


# Fast-path action codes (see CalabrasellaState.fast_legal)
_DECLARE, _PASS, _NOASK, _ASK, _RETURN = 64, 65, 66, 128, 192
_DISCARD, _TAKE = 1 << 64, 1 << 65


def card_points(card: int) -> int:
    return POINTS.get(rank_of(card), 0)


def hand_order(cards: list[int]) -> list[int]:
    """Display and canonical action order: by suit S H D C, then 3 2 A K Q J 7 6 5 4."""
    return sorted(cards, key=lambda c: (suit_of(c), -STRENGTH(c)))


def ask_candidates(hand: list[int]) -> list[int]:
    """The cards the soloist may ask for: 3s he lacks; if he holds all 3s, 2s; then aces."""
    for rank in ASK_LADDER:
        missing = [make(rank, s) for s in range(4) if make(rank, s) not in hand]
        if missing:
            return missing
    return []


class CalabrasellaOptions(Options):
    deals: int = Field(3, ge=1, le=30, description="dealings in a game (3: the deal returns to the first dealer)")


class CalabrasellaState(State):
    GAME_ID = "calabrasella"
    FIELDS = (
        "phase", "dealer", "deal_no", "hands", "widow", "declarations", "soloist", "asked", "discards",
        "widow_up", "widow_taken", "pile", "trick", "trick_leader", "last_trick", "tricks", "taken",
        "totals", "history",
    )

    options: CalabrasellaOptions

    # -- dealing ------------------------------------------------------------------
    def _setup(self) -> None:
        self.totals = [0, 0, 0]
        self.history: list[dict[str, Any]] = []
        self.deal_no = 0
        self.dealer = 0
        self._deal()

    def _deal(self) -> DealEvent:
        k = self.deal_no
        if k > 0:
            self.dealer = (self.dealer + 1) % 3
        if k < len(self.deals):
            spec = self.deals[k]
            if spec.get("dealer") is not None:
                if spec["dealer"] not in (0, 1, 2) or isinstance(spec["dealer"], bool):  # not read modulo 3
                    raise GameError(f"calabrasella explicit deal: dealer {spec['dealer']!r} is not a seat (0..2)")
                self.dealer = spec["dealer"]
            hands, widow = self._explicit(spec)
        else:
            cards = deck(40)
            deal_rng(self.seed, k).shuffle(cards)
            hands = [cards[12 * i:12 * i + 12] for i in range(3)]
            widow = cards[36:]
        self.deal_no = k + 1
        self.hands = hands
        self.widow = widow
        self.declarations: list[str | None] = [None, None, None]
        self.soloist: int | None = None
        self.asked: Asked | None = None
        self.discards: list[int] = []
        self.widow_up = False
        self.widow_taken: list[int] = []
        self.pile: list[int] = []
        self.trick: list[list[int]] = []
        self.trick_leader = (self.dealer + 1) % 3
        self.last_trick: TrickView | None = None
        self.tricks = [0, 0, 0]
        self.taken: list[list[int]] = [[], [], []]
        self.phase = "declare"
        return {"type": "deal", "deal_no": self.deal_no, "dealer": self.dealer}

    @staticmethod
    def _explicit(spec: dict[str, Any]) -> tuple[list[list[int]], list[int]]:
        try:
            hands = [[parse_card(c) for c in h] for h in spec["hands"]]
            widow = [parse_card(c) for c in spec["widow"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise GameError(f"calabrasella explicit deal: {exc}") from None
        if len(hands) != 3 or any(len(h) != 12 for h in hands) or len(widow) != 4:
            raise GameError("calabrasella explicit deal: three hands of 12 cards and a widow of 4 are needed")
        if sorted([c for h in hands for c in h] + widow) != sorted(deck(40)):
            raise GameError("calabrasella explicit deal: hands and widow must be the 40-card pack")
        return hands, widow

    # -- whose turn, what is legal -------------------------------------------------
    def _to_act(self) -> int | None:
        if self.phase == "over":
            return None
        if self.phase == "declare":
            return (self.dealer + 1 + sum(d is not None for d in self.declarations)) % 3
        if self.phase == "play":
            return (self.trick_leader + len(self.trick)) % 3
        return self.soloist

    def _the_soloist(self) -> int:
        soloist = self.soloist
        assert soloist is not None, "no one has declared"
        return soloist

    def _the_asked(self) -> Asked:
        asked = self.asked
        assert asked is not None, "the soloist has not asked for a card"
        return asked

    def _legal(self) -> list[str]:
        if self.phase == "declare":
            return ["declare", "pass"]
        if self.phase == "ask":
            return [f"ask {card_str(c)}" for c in ask_candidates(self.hands[self._the_soloist()])] + ["noask"]
        if self.phase == "return":
            asked = parse_card(self._the_asked()["card"])
            return [f"return {card_str(c)}" for c in hand_order(self.hands[self._the_soloist()]) if c != asked]
        if self.phase == "discard":
            hand = hand_order(self.hands[self._the_soloist()])
            return [
                "discard " + " ".join(cards_str(combo))
                for k in range(1, 5) for combo in combinations(hand, k)
            ]
        if self.phase == "take":
            widow = hand_order(self.widow)
            return ["take " + " ".join(cards_str(combo)) for combo in combinations(widow, len(self.discards))]
        seat = self._to_act()
        assert seat is not None
        hand = hand_order(self.hands[seat])
        if self.trick:
            hand = follow_options(hand, suit_of(self.trick[0][1]), NO_TRUMP)
        return [f"play {card_str(c)}" for c in hand]

    def why_illegal(self, action: str) -> str:
        verb = action.split(" ", 1)[0]
        expected = {
            "declare": "declare or pass", "ask": "ask for a card (or noask)", "return": "return a card to the holder",
            "discard": "discard 1-4 cards", "take": "take as many widow cards as discarded", "play": "play a card",
        }.get(self.phase, "nothing")
        if verb in ("discard", "take") and self.phase == verb:
            return f"{expected}, listed in hand order (suits S H D C, then 3 2 A K Q J 7 6 5 4)"
        if verb == "play" and self.phase == "play" and self.trick:
            return "follow suit if you can"
        if verb == "ask" and self.phase == "ask":
            return "ask for a 3 you lack (a 2 only when holding all 3s, an A only when holding all 3s and 2s)"
        return f"not now: the move is {expected}"

    # -- applying -------------------------------------------------------------------
    def _apply(self, action: str) -> list[Event]:
        seat = self._to_act()
        assert seat is not None
        verb, _, arg = action.partition(" ")
        cards = [parse_card(t) for t in arg.split()]
        if verb in ("declare", "pass"):
            return self._declare(seat, verb)
        if verb == "noask":
            self.phase = "discard"
            no_ask: AskEvent = {"type": "ask", "seat": seat, "card": None}
            return [no_ask]
        if verb == "ask":
            return self._ask(seat, cards[0])
        if verb == "return":
            asked = self._the_asked()
            holder = asked["holder"]
            assert holder is not None, "a card from the widow is not returned"
            self.hands[seat].remove(cards[0])
            self.hands[holder].append(cards[0])
            asked["returned"] = card_str(cards[0])
            self.phase = "discard"
            exchange: ExchangeEvent = {"type": "exchange", "soloist": seat, "holder": holder}
            return [exchange]
        if verb == "discard":
            for c in cards:
                self.hands[seat].remove(c)
            self.discards = cards
            self.widow_up = True
            self.phase = "take"
            discard: DiscardEvent = {"type": "discard", "seat": seat, "count": len(cards)}
            widow: CardsEvent = {"type": "widow", "cards": cards_str(hand_order(self.widow))}
            return [discard, widow]
        if verb == "take":
            for c in cards:
                self.widow.remove(c)
            self.hands[seat].extend(cards)
            self.widow_taken = cards
            self.pile = self.discards + self.widow
            self.widow = []
            self.phase = "play"
            take: CardsEvent = {"type": "take", "seat": seat, "cards": cards_str(cards)}
            return [take]
        return self._play(seat, cards[0])

    def _declare(self, seat: int, verb: str) -> list[Event]:
        self.declarations[seat] = verb
        events: list[Event] = [{"type": "bid", "seat": seat, "bid": verb}]
        if verb == "declare":
            self.soloist = seat
            self.phase = "ask"
        elif all(d is not None for d in self.declarations):
            self.history.append({"deal_no": self.deal_no, "dealer": self.dealer, "annulled": "all passed",
                                 "declarations": list(self.declarations), "points": [0, 0, 0]})
            end: AnnulledDealEnd = {"type": "deal_end", "deal_no": self.deal_no, "annulled": "all passed",
                                    "points": [0, 0, 0],
                                    "scores": [0, 0, 0], "totals": list(self.totals)}
            events.append(end)
            events.extend(self._next_deal())
        return events

    def _ask(self, seat: int, card: int) -> list[Event]:
        holder = next((s for s in range(3) if card in self.hands[s]), None)
        self.asked = {"card": card_str(card), "holder": holder, "returned": None}
        if holder is None:
            self.phase = "discard"
            from_widow: AskEvent = {"type": "ask", "seat": seat, "card": card_str(card), "holder": None,
                                    "in_widow": True}
            return [from_widow]
        self.hands[holder].remove(card)
        self.hands[seat].append(card)
        self.phase = "return"
        from_holder: AskEvent = {"type": "ask", "seat": seat, "card": card_str(card), "holder": holder,
                                 "in_widow": False}
        return [from_holder]

    def _play(self, seat: int, card: int) -> list[Event]:
        self.hands[seat].remove(card)
        self.trick.append([seat, card])
        events: list[Event] = [{"type": "play", "seat": seat, "card": card_str(card), "cards": [card_str(card)]}]
        if len(self.trick) < 3:
            return events
        cards = [c for _, c in self.trick]
        win = self.trick[winning_index(cards, NO_TRUMP, strength=STRENGTH)][0]
        events.append(take_trick(self, win))
        if sum(self.tricks) == TRICKS:
            events.extend(self._end_deal(win))
        return events

    def _end_deal(self, last_winner: int) -> list[Event]:
        soloist = self._the_soloist()
        pile_points = sum(card_points(c) for c in self.pile)
        self.taken[last_winner].extend(self.pile)
        cp = [sum(card_points(c) for c in self.taken[s]) for s in range(3)]
        with_last = [cp[s] + (LAST_TRICK if s == last_winner else 0) for s in range(3)]
        solo = with_last[soloist]
        partners = TOTAL - solo
        diff = solo - partners
        points = [2 * diff if s == soloist else -diff for s in range(3)]
        for s in range(3):
            self.totals[s] += points[s]
        self.history.append({
            "deal_no": self.deal_no, "dealer": self.dealer, "declarations": list(self.declarations),
            "soloist": soloist, "asked": self.asked["card"] if self.asked else None,
            "asked_from": self.asked["holder"] if self.asked else None, "discarded": len(self.discards),
            "tricks": list(self.tricks), "card_points": cp, "pile_points": pile_points, "last_trick": last_winner,
            "soloist_points": solo, "partner_points": partners, "points": points,
        })
        end: CalabrasellaDealEnd = {"type": "deal_end", "deal_no": self.deal_no, "soloist": soloist,
                                    "soloist_points": solo,
                                    "partner_points": partners, "last_trick": last_winner,
                                    "pile": cards_str(hand_order(self.pile)), "points": points,
                                    "scores": list(points), "totals": list(self.totals)}
        return [end, *self._next_deal()]

    def _next_deal(self) -> list[Event]:
        if self.deal_no >= self.options.deals:
            self.phase = "over"
            return [{"type": "game_over", "scores": list(self.totals), "totals": list(self.totals),
                     "winners": self.winners()}]
        return [self._deal()]

    # -- views ------------------------------------------------------------------------

    # -- the fast path (engine.core: integer actions) ---------------------------------------------
    # ``play C`` is C's code; declare/pass/noask 64/65/66; ``ask C`` 128 + C, ``return C`` 192 + C;
    # ``discard``/``take`` a set of cards: _DISCARD/_TAKE + the set as a bit mask (bit C for card C),
    # so the 1,092 discard choices are ints made without any text. The step itself is ``_apply``'s.
    def fast_legal(self) -> list[int]:
        """The actions of ``_legal`` as ints, in the same order."""
        phase = self.phase
        if phase == "over":
            return []
        if phase == "declare":
            return [_DECLARE, _PASS]
        if phase == "ask":
            return [_ASK + c for c in ask_candidates(self.hands[self._the_soloist()])] + [_NOASK]
        if phase == "return":
            asked = parse_card(self._the_asked()["card"])
            return [_RETURN + c for c in hand_order(self.hands[self._the_soloist()]) if c != asked]
        if phase == "discard":
            bits = [1 << c for c in hand_order(self.hands[self._the_soloist()])]
            return [_DISCARD + sum(combo) for k in range(1, 5) for combo in combinations(bits, k)]
        if phase == "take":
            bits = [1 << c for c in hand_order(self.widow)]
            return [_TAKE + sum(combo) for combo in combinations(bits, len(self.discards))]
        seat = self._to_act()
        assert seat is not None
        hand = hand_order(self.hands[seat])
        if self.trick:
            hand = follow_options(hand, suit_of(self.trick[0][1]), NO_TRUMP)
        return hand

    def fast_apply(self, action: int) -> None:
        self._legal_cache = None
        self._apply(self.action_to_text(action))

    def action_to_text(self, action: int) -> str:
        if action < 64:
            return "play " + card_str(action)
        if action < _ASK:
            return ("declare", "pass", "noask")[action - _DECLARE]
        if action < _RETURN:
            return "ask " + card_str(action - _ASK)
        if action < _DISCARD:
            return "return " + card_str(action - _RETURN)
        verb, mask = ("take", action - _TAKE) if action >= _TAKE else ("discard", action - _DISCARD)
        return verb + " " + " ".join(cards_str(hand_order([c for c in range(64) if mask >> c & 1])))

    def text_to_action(self, text: str) -> int:
        verb, _, arg = text.partition(" ")
        cards = [parse_card(t) for t in arg.split()]
        if verb == "play":
            return cards[0]
        if verb in ("declare", "pass", "noask"):
            return _DECLARE + ("declare", "pass", "noask").index(verb)
        if verb in ("ask", "return"):
            return (_ASK if verb == "ask" else _RETURN) + cards[0]
        return (_TAKE if verb == "take" else _DISCARD) + sum(1 << c for c in cards)

    def _view(self, seat: int | None) -> CalabrasellaView:
        asked: AskedView | None = None
        if self.asked is not None:
            holder = self.asked["holder"]
            asked = {"card": self.asked["card"], "holder": holder, "in_widow": holder is None}
            if seat is not None and seat in (self.soloist, self.asked["holder"]):
                asked["returned"] = self.asked["returned"]
        view: CalabrasellaView = {
            "phase": self.phase,
            "hand_counts": [len(h) for h in self.hands],
            "dealer": self.dealer,
            "leader": (self.dealer + 1) % 3,
            "deal_no": self.deal_no,
            "deals": self.options.deals,
            "hand_size": TRICKS,
            "trump": None,
            "trump_card": None,
            "bids": None,
            "declarations": list(self.declarations),
            "soloist": self.soloist,
            "asked": asked,
            "widow": cards_str(hand_order(self.widow + self.widow_taken)) if self.widow_up else None,
            "widow_taken": cards_str(self.widow_taken),
            "discard_count": len(self.discards),
            "pile_count": len(self.pile),
            "tricks": list(self.tricks),
            "trick": None,
            "last_trick": self.last_trick,
            "card_points": [sum(card_points(c) for c in t) for t in self.taken],
            "sheet": self.sheet(),
        }
        if self.phase == "play":
            best = None
            if self.trick:
                best = self.trick[winning_index([c for _, c in self.trick], NO_TRUMP, strength=STRENGTH)][0]
            view["trick"] = {"leader": self.trick_leader, "plays": plays_view(self.trick), "best": best}
        if seat is not None and 0 <= seat < 3:
            view["hand"] = cards_str(hand_order(self.hands[seat]))
            if seat == self.soloist:
                view["discards"] = cards_str(hand_order(self.discards))
        return view

    def scores(self) -> list[int]:
        return list(self.totals)

    def sheet(self) -> dict[str, Any]:
        return {"deals": [dict(d) for d in self.history], "deals_in_game": self.options.deals,
                "totals": list(self.totals)}

    # -- invariants -----------------------------------------------------------------
    def check_invariants(self) -> None:
        if self.phase == "over":
            assert len(self.history) == self.options.deals, "a game is `deals` dealings"
        else:
            everything = [c for h in self.hands for c in h] + self.widow + (self.pile or self.discards)
            everything += [c for t in self.taken for c in t] + [c for _, c in self.trick]
            assert sorted(everything) == sorted(deck(40)), "the 40 cards are not all accounted for"
            if self.phase == "play":
                counts = sorted(len(h) for h in self.hands)
                assert counts[2] - counts[0] <= 1, "hand sizes"
                assert sum(counts) + 3 * sum(self.tricks) + len(self.trick) == 3 * TRICKS
            elif self.phase in ("declare", "ask", "discard"):
                assert [len(h) for h in self.hands] == [12, 12, 12], "12 cards each before the widow"
        for s in range(3):
            assert sum(d["points"][s] for d in self.history) == self.totals[s], "sheet != totals"
        assert sum(self.totals) == 0, "settlement is zero-sum"
        for d in self.history:
            if "annulled" in d:
                continue
            assert sum(d["card_points"]) + LAST_TRICK == TOTAL, "35 points per deal"
            assert d["soloist_points"] + d["partner_points"] == TOTAL
            assert sum(d["tricks"]) == TRICKS

    # -- AI: determinised search --------------------------------------------------------
    def determinize(self, seat: int, rng: random.Random) -> CalabrasellaState:
        """Other hands, the widow while face down and the soloist's discards (for the partners) dealt
        afresh. Kept: the asked card in the soloist's hand, the returned card in the holder's (for the
        soloist), the widow cards he took face up, and the voids of the visible tricks (in play and the last one)."""
        from engine.ai.sampling import Slot, deal_hidden, hide_future, merge_voids, voids_from_trick

        voids: dict[int, set[int]] = {}
        merge_voids(voids, voids_from_trick([(s, c) for s, c in self.trick]))
        if self.last_trick:
            plays = [(p["seat"], parse_card(p["cards"][0])) for p in self.last_trick["plays"]]
            merge_voids(voids, voids_from_trick(plays))
        known: dict[int, list[int]] = {}
        asked = self.asked
        holder = asked["holder"] if asked else None
        if asked and holder is not None:
            card = parse_card(asked["card"])
            if self.soloist is not None and card in self.hands[self.soloist]:
                known.setdefault(self.soloist, []).append(card)
            returned = asked["returned"]
            if returned and seat == self.soloist:
                back = parse_card(returned)
                if back in self.hands[holder]:
                    known.setdefault(holder, []).append(back)
        if self.soloist is not None and self.soloist != seat:  # the widow was taken face up
            known.setdefault(self.soloist, []).extend(c for c in self.widow_taken if c in self.hands[self.soloist])
        others = [s for s in range(3) if s != seat]
        slots = [Slot(len(self.hands[s]), known=known.get(s, []), void=voids.get(s, set())) for s in others]
        pool = [c for s in others for c in self.hands[s] if c not in known.get(s, [])]
        hidden_widow = not self.widow_up and bool(self.widow)
        if hidden_widow:
            slots.append(Slot(len(self.widow)))
            pool += self.widow
        hidden_discards = self.widow_up and seat != self.soloist and bool(self.discards)
        if hidden_discards:
            slots.append(Slot(len(self.discards)))
            pool += self.discards
        dealt = deal_hidden(slots, pool, rng)
        new = self.clone()
        for s, hand in zip(others, dealt, strict=False):
            new.hands[s] = hand
        rest = dealt[len(others):]
        if hidden_widow:
            new.widow = rest.pop(0)
        if hidden_discards:
            discards = rest.pop(0)
            if self.phase != "take":
                new.pile = discards + self.pile[len(self.discards):]
            new.discards = discards
        new._legal_cache = None
        hide_future(new, rng)
        return new


GAME = register(Game(options=CalabrasellaOptions, state=CalabrasellaState))  # id, name and players: the declaration
