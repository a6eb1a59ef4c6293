"""Variety (Варьете), Robert Abbott's game for exactly 4 players: partners are made by matching bids.

Rules: RULES.md (the team rules digest) section 10 (the seed's values). All 52 cards are dealt, 13 each, A high.
The auction starts at the dealer's left and goes round clockwise, several rounds if need be: each bid
names one of the eight contracts (I..VIII, below), and nobody may name the same contract twice. The
first bid naming a contract another player has already named ends the auction: those two players are
partners (the attackers) against the other two, whatever their seats, and play that contract. The
player to the left of the contract's FIRST bidder leads. Follow suit if able; otherwise any card (no
duty to trump or to head the trick). The highest trump, else the highest card of the led suit, wins;
in contract VI the lowest does (the lowest trump if trumps were played).

| # | trump | each side scores, for the tricks and cards it captured |
|---|---|---|
| I | none | the side with more tricks: +12 |
| II | C | +2 per trick |
| III | H | +2 per spade |
| IV | D | +1 per red card, -1 per black card |
| V | S | +5 per black 10 or J, -5 per red 10 or J |
| VI | C | +1 per red card; the lowest card wins the trick |
| VII | S | -2 per club |
| VIII | none | -2 per trick |

Every player scores his own side's points; if the attackers' points are not greater than the defenders'
(a tie is an attackers' loss), each defender also gets +10. A tour is 8 deals (option ``deals``).
Seats are clockwise; the last seat deals first (so seat 0, P1, bids first), then the deal passes left.
Explicit deals (``deals[d]``): ``{"dealer": s, "hands": [[13 card texts] per seat]}``.

Action verbs (canonical notation):
- ``bid N``: name contract N, 1..8 (contract numbers in digits: ``bid 7`` is contract VII);
- ``play C``: play card C (e.g. ``play QS``).

Events: ``deal`` (deal_no, dealer), ``bid`` (seat, contract), ``contract`` (contract, trump, attackers,
first_bidder, leader), ``play`` (seat, card), ``trick`` (leader, cards, winner), ``deal_end`` (deal_no, contract,
attackers, tricks, card_points, side_points, attackers_won, points, scores), ``game_over`` (scores, winners).
"""

from __future__ import annotations

import random
from typing import Any, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from engine.cards import CARD_TEXT, card_str, deck, parse_card, rank_of, suit_of
from engine.core import Event, Game, GameError, Options, State, TurnIsCurrent, ViewPart, deal_rng, register
from engine.events import BidEvent, DealEndEvent, DealEvent, OtherEvent, TrickEvent
from engine.tricks import (
    NO_TRUMP,
    PLAY_CARD,
    PLAY_TEXT,
    TakenTrick,
    follow_or_any,
    follow_suit_plays,
    open_trick_view,
    plain_winning_index,
    seated_plays,
    sort_key_table,
    taken_trick_view,
    trump_letter,
    why_card_refused,
)


class VarietyBid(BidEvent):
    contract: int  # the contract named (the same as ``bid``)


class ContractEvent(OtherEvent):
    """``type`` "contract": two seats named ``contract``; they attack, ``leader`` leads."""

    contract: int
    trump: str | None
    attackers: list[int]
    first_bidder: int
    leader: int


class SidePoints(TypedDict):
    attackers: int
    defenders: int


class Settlement(TypedDict):
    """A finished deal's score (``settle``)."""

    side_points: SidePoints
    attackers_won: bool
    points: list[int]


class VarietyDealEnd(DealEndEvent):
    deal_no: int  # the deal that ended: its line is read at the head of the next deal's table
    contract: int
    attackers: list[int]
    tricks: list[int]
    card_points: list[int | None]  # None in contract I (only the side's tricks count)
    side_points: SidePoints
    attackers_won: bool
    points: list[int]


class AuctionEntry(TypedDict):
    seat: int
    contract: int


class VarietyView(ViewPart):
    leader: int | None
    deals_total: int
    hand_size: int
    trump: str | None
    trump_card: str | None  # always None: no card is turned
    bids: list[int | None]  # each seat's last contract named
    auction: list[AuctionEntry]
    contract: int | None
    contract_name: str | None
    lowest_wins: bool
    attackers: list[int]
    first_bidder: int | None
    tricks: list[int]
    sheet: dict[str, Any]
    named: NotRequired[list[int]]  # a seated viewer: the contracts it has named

PLAYERS = 4
HAND = 13
FULL_PACK = deck(52)
BID_TEXT = {c: f"bid {c}" for c in range(1, 9)}
BID_VALUE = {text: c for c, text in BID_TEXT.items()}
BID_CODE = 64  # fast path: naming contract c is the int BID_CODE + c (card plays are the card codes)
ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV", 5: "V", 6: "VI", 7: "VII", 8: "VIII"}

SPADES, HEARTS, DIAMONDS, CLUBS = 0, 1, 2, 3
CONTRACT_TRUMP = {1: NO_TRUMP, 2: CLUBS, 3: HEARTS, 4: DIAMONDS, 5: SPADES, 6: CLUBS, 7: SPADES, 8: NO_TRUMP}
# What both sides together always score in each contract (the simulation tests check it).
CONTRACT_TOTAL = {1: 12, 2: 26, 3: 26, 4: 0, 5: 0, 6: 26, 7: -26, 8: -26}
DEFENDERS_BONUS = 10


def card_value(contract: int, card: int) -> int:
    """What capturing ``card`` is worth in a contract that scores cards (III..VII); 0 otherwise."""
    suit = suit_of(card)
    red = suit in (HEARTS, DIAMONDS)
    if contract == 3:
        return 2 if suit == SPADES else 0
    if contract == 4:
        return 1 if red else -1
    if contract == 5:
        return (-5 if red else 5) if rank_of(card) in (10, 11) else 0
    if contract == 6:
        return 1 if red else 0
    if contract == 7:
        return -2 if suit == CLUBS else 0
    return 0


def side_points(contract: int, tricks: int, cards: list[int], other_tricks: int) -> int:
    """One side's points for a contract, from its tricks and the cards in them."""
    if contract == 1:
        return 12 if tricks > other_tricks else 0
    if contract == 2:
        return 2 * tricks
    if contract == 8:
        return -2 * tricks
    return sum(card_value(contract, c) for c in cards)


def seat_points(contract: int, tricks: int, cards: list[int]) -> int | None:
    """One player's own share of his side's points (the sheet shows it); None in contract I,
    where only the side's trick count matters."""
    if contract == 1:
        return None
    return side_points(contract, tricks, cards, 0)


def settle(contract: int, attackers: list[int], tricks: list[int], captured: list[list[int]]) -> Settlement:
    """Score a finished deal: both sides' points, who won, and each seat's points (defenders' +10)."""
    defenders = [s for s in range(PLAYERS) if s not in attackers]
    a_tricks = sum(tricks[s] for s in attackers)
    d_tricks = sum(tricks[s] for s in defenders)
    a_cards = [c for s in attackers for c in captured[s]]
    d_cards = [c for s in defenders for c in captured[s]]
    a_points = side_points(contract, a_tricks, a_cards, d_tricks)
    d_points = side_points(contract, d_tricks, d_cards, a_tricks)
    won = a_points > d_points
    points = [a_points if s in attackers else d_points + (0 if won else DEFENDERS_BONUS) for s in range(PLAYERS)]
    return {"side_points": {"attackers": a_points, "defenders": d_points}, "attackers_won": won, "points": points}


class VarietyOptions(Options):
    """House rules: only the length of the tour (RULES.md 10.2: 8 deals, "can be shortened or extended")."""

    deals: int = Field(8, ge=1, le=64, description="deals in the tour (8: each player deals twice)")


class VarietyState(TurnIsCurrent, State):
    GAME_ID = "variety"
    FIELDS = (
        "deal_index", "phase", "dealer", "turn", "hands", "auction", "contract", "attackers", "first_bidder",
        "leader", "trump", "won", "captured", "trick_leader", "trick", "last_trick", "totals", "history",
    )

    options: VarietyOptions
    deal_index: int
    phase: str
    dealer: int
    turn: int | None
    hands: list[list[int]]
    auction: list[list[int]]
    contract: int | None
    attackers: list[int]
    first_bidder: int | None
    leader: int | None
    trump: int
    won: list[int]
    captured: list[list[int]]
    trick_leader: int
    trick: list[int]
    last_trick: TakenTrick | None
    totals: list[int]
    history: list[dict[str, Any]]

    # -- setup and dealing ------------------------------------------------------
    def _setup(self) -> None:
        self.dealer = PLAYERS - 1
        self.totals = [0] * PLAYERS
        self.history = []
        self.last_trick = None
        self._deal(0)

    def _deal(self, index: int) -> DealEvent:
        dealer = (self.dealer + 1) % PLAYERS if index else PLAYERS - 1
        spec = self.deals[index] if index < len(self.deals) else None
        if spec:
            dealer, hands = self._explicit(spec, dealer)
        else:
            rnd = deal_rng(self.seed, index).random
            pack = sorted(FULL_PACK, key=lambda _card: rnd())  # i.i.d. keys: a uniform shuffle, cheaper
            first = dealer + 1
            hands = [pack[(s - first) % PLAYERS:: PLAYERS] for s in range(PLAYERS)]
        order = sort_key_table(NO_TRUMP).__getitem__
        self.deal_index = index
        self.dealer = dealer
        self.hands = [sorted(h, key=order) for h in hands]
        self.phase = "auction"
        self.turn = (dealer + 1) % PLAYERS
        self.auction = []
        self.contract = None
        self.attackers = []
        self.first_bidder = None
        self.leader = None
        self.trump = NO_TRUMP
        self.won = [0] * PLAYERS
        self.captured = [[] for _ in range(PLAYERS)]
        self.trick_leader = self.turn
        self.trick = []
        return {"type": "deal", "deal_no": index + 1, "dealer": dealer}

    def _explicit(self, spec: dict[str, Any], dealer: int) -> tuple[int, list[list[int]]]:
        try:
            dealer = int(spec.get("dealer", dealer))
            hands = [[parse_card(c) for c in hand] for hand in spec["hands"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise GameError(f"variety: malformed explicit deal: {exc}") from None
        if not 0 <= dealer < PLAYERS or len(hands) != PLAYERS or any(len(h) != HAND for h in hands):
            raise GameError("variety: an explicit deal needs a dealer 0..3 and 4 hands of 13 cards")
        cards = {c for h in hands for c in h}
        if cards != set(FULL_PACK):
            raise GameError("variety: an explicit deal must give out the whole 52-card pack, each card once")
        return dealer, hands

    # -- turn and legal actions -------------------------------------------------------
    def _to_act(self) -> int | None:
        return self.turn

    def _named_by(self, seat: int) -> list[int]:
        return [c for s, c in self.auction if s == seat]

    def _legal(self) -> list[str]:
        seat = self.turn
        assert seat is not None
        if self.phase == "auction":
            mine = self._named_by(seat)
            return [BID_TEXT[c] for c in range(1, 9) if c not in mine]
        return follow_suit_plays(self.hands[seat], self.trick)

    def why_illegal(self, action: str) -> str:
        seat = self.turn
        if seat is None:
            return "the game is over"
        if self.phase == "auction":
            if action in BID_VALUE:
                return f"you have already named contract {ROMAN[BID_VALUE[action]]}"
            return "it is time to name a contract: 'bid 1' .. 'bid 8'"
        return why_card_refused(PLAY_CARD.get(action), self.hands[seat], self.trick)

    # -- applying actions ---------------------------------------------------------------
    def _apply(self, action: str) -> list[Event]:
        if self.phase == "auction":
            return self._bid(BID_VALUE[action])
        return self._play(PLAY_CARD[action])

    def _bid(self, contract: int) -> list[Event]:
        seat = self.turn
        assert seat is not None
        named: VarietyBid = {"type": "bid", "seat": seat, "bid": contract, "contract": contract}
        events: list[Event] = [named]
        partner = next((s for s, c in self.auction if c == contract and s != seat), None)
        self.auction.append([seat, contract])
        if partner is None:
            self.turn = (seat + 1) % PLAYERS
            return events
        trump = CONTRACT_TRUMP[contract]
        self.contract = contract
        self.attackers = sorted((partner, seat))
        self.first_bidder = partner
        self.leader = (partner + 1) % PLAYERS
        self.trump = trump
        self.phase = "play"
        self.turn = self.trick_leader = self.leader
        order = sort_key_table(trump).__getitem__
        self.hands = [sorted(h, key=order) for h in self.hands]
        made: ContractEvent = {"type": "contract", "contract": contract, "trump": trump_letter(trump),
                               "attackers": list(self.attackers), "first_bidder": partner, "leader": self.leader}
        events.append(made)
        return events

    def _play(self, card: int) -> list[Event]:
        seat = self.turn
        assert seat is not None
        self.hands[seat].remove(card)
        trick = self.trick
        trick.append(card)
        events: list[Event] = [{"type": "play", "seat": seat, "card": CARD_TEXT[card], "cards": [CARD_TEXT[card]]}]
        if len(trick) < PLAYERS:
            self.turn = (seat + 1) % PLAYERS
            return events
        leader = self.trick_leader
        winner = (leader + plain_winning_index(trick, self.trump, self.contract == 6)) % PLAYERS
        self.won[winner] += 1
        self.captured[winner].extend(trick)
        self.last_trick = {"leader": leader, "cards": trick, "winner": winner}
        self.trick = []
        self.trick_leader = self.turn = winner
        taken: TrickEvent = {"type": "trick", "leader": leader, "cards": [CARD_TEXT[c] for c in trick],
                             "winner": winner, "plays": seated_plays(leader, PLAYERS, trick)}
        events.append(taken)
        if not self.hands[winner]:
            events.extend(self._end_deal())
        return events

    def _end_deal(self) -> list[Event]:
        contract = self.contract
        assert contract is not None
        result = settle(contract, self.attackers, self.won, self.captured)
        for s, p in enumerate(result["points"]):
            self.totals[s] += p
        card_points = [seat_points(contract, self.won[s], self.captured[s]) for s in range(PLAYERS)]
        entry: dict[str, Any] = {
            "deal_no": self.deal_index + 1, "dealer": self.dealer, "contract": contract,
            "contract_name": ROMAN[contract], "trump": trump_letter(self.trump),
            "auction": [list(b) for b in self.auction], "attackers": list(self.attackers),
            "first_bidder": self.first_bidder, "leader": self.leader, "tricks": list(self.won),
            "card_points": card_points, **result, "totals": list(self.totals),
        }
        self.history.append(entry)
        end: VarietyDealEnd = {"type": "deal_end", "deal_no": self.deal_index + 1, "contract": contract,
                               "attackers": list(self.attackers),
                               "tricks": list(self.won), "card_points": card_points,
                               "side_points": result["side_points"].copy(), "attackers_won": result["attackers_won"],
                               "points": list(result["points"]), "scores": list(result["points"]),
                               "totals": list(self.totals)}
        events: list[Event] = [end]
        if self.deal_index + 1 < self.options.deals:
            events.append(self._deal(self.deal_index + 1))
        else:
            self.phase = "over"
            self.turn = None
            best = max(self.totals)
            events.append({"type": "game_over", "scores": list(self.totals), "totals": list(self.totals),
                           "winners": [s for s, t in enumerate(self.totals) if t == best]})
        return events

    # -- the fast path (engine.core: integer actions, no events) -----------------------------
    # A card play is the card's code (2..62), naming contract c is BID_CODE + c. The seat to act is the
    # plain attribute ``current``; ``turn`` reads and writes it (this class attribute hides State.current).

    def fast_legal(self) -> list[int]:
        """Legal actions as ints; leading or void, the hand list itself (no allocation)."""
        seat = self.current
        if seat is None:
            return []
        trick = self.trick
        if trick:
            return follow_or_any(self.hands[seat], trick[0])
        if self.phase == "play":
            return self.hands[seat]
        mine = self._named_by(seat)
        return [BID_CODE + c for c in range(1, 9) if c not in mine]

    def fast_apply(self, action: int) -> None:
        """``act`` for an int from ``fast_legal``: the same state, no events, no checks."""
        self._legal_cache = None
        if action >= BID_CODE:
            self._bid(action - BID_CODE)
            return
        seat = self.current
        assert seat is not None, "fast_apply on a finished game"
        self.hands[seat].remove(action)
        trick = self.trick
        trick.append(action)
        if len(trick) < PLAYERS:
            self.current = seat + 1 if seat < PLAYERS - 1 else 0
            return
        leader = self.trick_leader
        winner = (leader + plain_winning_index(trick, self.trump, self.contract == 6)) % PLAYERS
        self.won[winner] += 1
        self.captured[winner].extend(trick)
        self.last_trick = {"leader": leader, "cards": trick, "winner": winner}
        self.trick = []
        self.trick_leader = self.current = winner
        if not self.hands[winner]:
            self._end_deal()

    def action_to_text(self, action: int) -> str:
        return BID_TEXT[action - BID_CODE] if action >= BID_CODE else PLAY_TEXT[action]

    def text_to_action(self, text: str) -> int:
        card = PLAY_CARD.get(text)
        return card if card is not None else BID_CODE + BID_VALUE[text]

    def clone(self) -> VarietyState:
        """The generic copy, unrolled; ``last_trick`` and history entries are never changed in place."""
        new = object.__new__(VarietyState)
        new.n, new.seed, new.options, new.deals = self.n, self.seed, self.options, self.deals
        new._legal_cache = self._legal_cache
        new.deal_index, new.phase, new.dealer, new.turn = self.deal_index, self.phase, self.dealer, self.turn
        new.hands = [list(h) for h in self.hands]
        new.auction = [list(b) for b in self.auction]
        new.contract, new.attackers = self.contract, list(self.attackers)
        new.first_bidder, new.leader, new.trump = self.first_bidder, self.leader, self.trump
        new.won, new.captured = list(self.won), [list(c) for c in self.captured]
        new.trick_leader, new.trick, new.last_trick = self.trick_leader, list(self.trick), self.last_trick
        new.totals, new.history = list(self.totals), list(self.history)
        return new

    # -- views, scores, checks --------------------------------------------------------------
    def _view(self, seat: int | None) -> VarietyView:
        last_bid: list[int | None] = [None] * PLAYERS
        for s, c in self.auction:
            last_bid[s] = c
        view: VarietyView = {
            "phase": self.phase,
            "hand_counts": [len(h) for h in self.hands],
            "dealer": self.dealer,
            "leader": self.leader,
            "deal_no": self.deal_index + 1,
            "deals_total": self.options.deals,
            "hand_size": HAND,
            "trump": trump_letter(self.trump),
            "trump_card": None,
            "bids": last_bid,
            "auction": [{"seat": s, "contract": c} for s, c in self.auction],
            "contract": self.contract,
            "contract_name": ROMAN[self.contract] if self.contract else None,
            "lowest_wins": self.contract == 6,
            "attackers": list(self.attackers),
            "first_bidder": self.first_bidder,
            "tricks": list(self.won),
            "trick": open_trick_view(self.trick_leader, PLAYERS, self.trick, self.trump, self.contract == 6),
            "last_trick": taken_trick_view(self.last_trick, PLAYERS),
            "sheet": self.sheet(),
        }
        if seat is not None:
            view["hand"] = [card_str(c) for c in self.hands[seat]]
            view["named"] = self._named_by(seat)
        return view

    def scores(self) -> list[int]:
        return list(self.totals)

    def sheet(self) -> dict[str, Any]:
        return {"deals": [dict(d) for d in self.history], "totals": list(self.totals),
                "deals_total": self.options.deals}

    def check_invariants(self) -> None:
        # card conservation: hands + the trick + the captured cards are the whole pack, each card once
        cards = [c for h in self.hands for c in h] + self.trick + [c for w in self.captured for c in w]
        assert len(cards) == 52 and set(cards) == set(FULL_PACK), "cards lost or duplicated"
        completed = sum(self.won)
        assert all(len(w) == PLAYERS * t for w, t in zip(self.captured, self.won, strict=True))
        for s, hand in enumerate(self.hands):
            in_trick = 1 if (s - self.trick_leader) % PLAYERS < len(self.trick) else 0
            assert len(hand) == HAND - completed - in_trick, f"seat {s} holds {len(hand)} cards"
        # the auction: nobody repeats himself; it ends at the first contract named by two players
        seen: dict[int, int] = {}
        for i, (s, c) in enumerate(self.auction):
            assert s == (self.dealer + 1 + i) % PLAYERS, "bids out of turn"
            if c in seen:
                assert i == len(self.auction) - 1 and self.contract == c, "the auction went on after a match"
            seen.setdefault(c, s)
        assert len(self.auction) <= 9
        for s in range(PLAYERS):
            named = self._named_by(s)
            assert len(named) == len(set(named)), f"seat {s} named a contract twice"
        if self.phase == "auction":
            assert self.contract is None and completed == 0
        else:
            assert self.contract is not None and len(self.attackers) == 2
            assert self.trump == CONTRACT_TRUMP[self.contract]
        for d in self.history:
            assert sum(d["tricks"]) == HAND
            sides = d["side_points"]
            assert sides["attackers"] + sides["defenders"] == CONTRACT_TOTAL[d["contract"]], "contract total broken"
            assert d["attackers_won"] == (sides["attackers"] > sides["defenders"])
            for s in range(PLAYERS):
                expected = sides["attackers"] if s in d["attackers"] else \
                    sides["defenders"] + (0 if d["attackers_won"] else DEFENDERS_BONUS)
                assert d["points"][s] == expected
        assert [sum(d["points"][s] for d in self.history) for s in range(PLAYERS)] == self.totals

    # -- AI: determinised search --------------------------------------------------------
    def determinize(self, seat: int, rng: random.Random) -> VarietyState:
        """Other hands dealt afresh from the unseen cards, keeping the voids the visible tricks show
        (the trick in play and the last one: the state keeps no older trick order)."""
        from engine.ai.sampling import hide_future, merge_voids, redeal_other_hands, voids_from_trick

        voids: dict[int, set[int]] = {}
        if self.phase == "play":
            lead = self.trick_leader
            merge_voids(voids, voids_from_trick(((lead + i) % PLAYERS, c) for i, c in enumerate(self.trick)))
            last = self.last_trick
            if last is not None:
                merge_voids(voids, voids_from_trick(
                    ((last["leader"] + i) % PLAYERS, c) for i, c in enumerate(last["cards"])))
        new = redeal_other_hands(self, seat, voids, rng, sort_key_table(self.trump).__getitem__)
        new._legal_cache = None
        hide_future(new, rng)
        return new


GAME = register(Game(options=VarietyOptions, state=VarietyState))  # id, name and players: the declaration
