"""Shared machinery of the manipulation rummies (RULES.md sections 8-9): one base state that
deals, lays cards down through the meld solver, samples lay-downs for ``legal_actions`` and
checks its invariants. Each game module (carousel, machiavelli, tahiti, guadalupe, vatican,
shanghai, manipulation) adds its turn structure and its scoring.

Why a base class: the seven games differ only in the pack, the hand size, what a turn allows
and how a deal is scored; laying down (the hard part: a player names cards, the table may be
rearranged at will) is the same everywhere and must be validated the same way.

The lay-down notation (every game):

- ``lay 7H 8H 9H``: put these hand cards on the table; the engine arranges the table with the
  deterministic solver (``engine.melds.solve``), keeping as many existing melds as it can.
  A plain ``JK`` from hand is given its meaning by the solver.
- ``lay 7H 8H 9H / 5S-5H-5D | 7H-8H-9H | 2C-JK=3C-4C``: the explicit form. After `` / `` comes
  the WHOLE new table, melds separated by ``|``, cards in a meld by ``-`` (any order; the
  table keeps each meld in display order: runs ascending, sets by suit S H D C, as the
  ``action`` of the ``lay`` event writes it); a joker on the table is written with the card it
  stands for (``JK=3C``). It is checked with
  ``engine.melds.check_layout``: a partition of the old table plus the named cards into valid
  melds that keeps the variant's joker rules. This is the form ``legal_actions`` lists and
  events report (``event["action"]``), so a record replays to the same table whatever
  solver version runs it; ``canonical_action`` turns a short form into it.
- Tahiti's face-up loose singles lie on the table as one-card "melds" (``9H``) until a lay-down
  uses them (``engine.melds`` allows a one-card meld only where a dealt single lay before).

``legal_actions`` cannot list every possible lay-down, so it lists the other verbs of the
moment plus a bounded, deterministic SAMPLE of lay-downs (single cards added to a meld,
new melds from hand, a few solver-found rearrangements and, where a rule needs to know
whether any lay-down exists, the solver's best subset). ``act`` accepts EVERY legal lay-down,
listed or not: a ``lay`` is validated on its own merits and refused, changing nothing, with a
reason naming the card or meld.

Explicit deals (``deals[k]``): ``{"hands": [[card texts] per seat], "stock": [top first]
(optional: the rest shuffled), "singles": [Tahiti's 4], "dealer": seat (optional)}``.

Events: ``deal`` (deal_no, dealer, singles, stock_count), ``draw`` (seat, count: never the
card, which only its holder's view shows), ``lay`` (seat, cards, table, hand_count, action: the
explicit form), ``one_card``, ``out``, ``pass``, ``knock``, ``final_round`` (Carousel),
``deal_end`` and ``game_over`` (per game). View: ``hand`` and ``hand_value`` (own seat only),
``hand_counts``, ``table`` (meld texts), ``table_kinds`` (set / run / single), ``stock_count``
(never its order), ``drawn``, ``laid``, ``passes``, ``final_left``, ``knocker``, ``opened``,
``sheet``.

Scores: ``scores()`` is higher-is-better everywhere; penalty games report minus the penalty
points (a player with 4 penalty points has -4) so the usual ``winners()`` holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, NotRequired

from engine import melds
from engine.cards import JOKER, CardError, card_str, deck, parse_card, sort_key
from engine.core import Event, GameError, IllegalAction, State, ViewPart, deal_rng, explicit_stock
from engine.events import DealEvent, DrawEvent, OtherEvent
from engine.rummy.notation import (
    LAY,
    LayError,
    flat,
    is_lay,
    lay_text,
    meld_kind,
    meld_str,
    missing,
    parse_lay,
    table_str,
)
from engine.rummy.sample import LaySampler

__all__ = ["LAY", "LayError", "LayEvent", "RummyDealEvent", "RummyDrawEvent", "RummyState", "RummyView", "flat",
           "is_lay", "lay_text", "meld_kind", "meld_str", "missing", "parse_lay", "table_str"]


# -- events and view (the module docstring says what each key means) ----------------------------

class RummyDealEvent(DealEvent):
    singles: list[str]
    stock_count: int


class RummyDrawEvent(DrawEvent):
    count: int
    stock_count: int
    penalty: NotRequired[bool]  # Machiavelli's abandoned manipulation


class LayEvent(OtherEvent):
    """``type`` "lay"."""

    cards: list[str]
    table: list[str]
    hand_count: int
    action: str


class RummyView(ViewPart):
    variant: str
    table: list[str]
    table_kinds: list[str]
    stock_count: int
    drawn: int
    laid: int
    passes: int
    final_left: list[int] | None
    knocker: int | None
    opened: list[bool]
    sheet: dict[str, Any]
    hand_value: NotRequired[int]


# -- the base state ------------------------------------------------------------------------------

class RummyState(LaySampler, State):
    """Fields every rummy keeps; game modules add turn rules through the hooks below."""

    MELD_VARIANTS: ClassVar[tuple[melds.Variant, ...]] = ()  # the meld rules it plays by; the first by default
    HAND: ClassVar[int] = 10
    PACKETS: ClassVar[tuple[int, ...]] = ()  # deal in packets (Shanghai 3-3-3-1); () = one at a time
    SINGLES: ClassVar[int] = 0  # Tahiti: face-up loose singles dealt to the table
    FIELDS = (
        "phase", "deal_no", "dealer", "turn", "hands", "table", "stock", "drawn", "laid",
        "passes", "final_left", "last_drawer", "knocker", "opened", "totals", "wins", "history",
    )

    phase: str
    deal_no: int
    dealer: int
    turn: int | None
    hands: list[list[int]]
    table: list[list[int]]
    stock: list[int]
    drawn: int
    laid: int
    passes: int
    final_left: list[int] | None
    last_drawer: int | None
    knocker: int | None
    opened: list[bool]
    totals: list[int]
    wins: list[int]
    history: list[dict[str, Any]]

    # -- hooks --------------------------------------------------------------------------------------
    def pack(self) -> list[int]:
        """The unshuffled pack for this table: by default the first meld rules' pack (``Variant.pack``,
        the size their random positions deal from), so a game names its pack once; games whose pack
        depends on the player count override this."""
        return deck(self.MELD_VARIANTS[0].pack)

    def _verbs(self, can_lay: bool) -> list[str]:
        """The non-lay actions legal now (draw, knock, end, pass ...); ``can_lay``: the sample of
        lay-downs is not empty (exact when ``_needs_exact_ability`` says so)."""
        raise NotImplementedError

    def _may_lay(self) -> bool:
        """May the seat to act lay down now (turn structure only; the cards are checked apart)?"""
        raise NotImplementedError

    def _apply_verb(self, verb: str) -> list[Event]:
        raise NotImplementedError

    def _after_lay(self) -> list[Event]:
        """The hand is not empty after a lay-down: what happens next (draw, pass the turn ...)."""
        raise NotImplementedError

    def _end_deal(self, out: int | None) -> list[Event]:
        """Score the deal (``out``: the seat that went out, if any) and start the next or end the game."""
        raise NotImplementedError

    def _lay_rule(self, seat: int, hand_cards: list[int], layout: list[list[int]]) -> str | None:
        """A game's own condition on a lay-down (Vatican's opening run); None when it holds."""
        return None

    def _may_add_singly(self, seat: int) -> bool:
        """May a lay-down of one hand card be legal at all (not before Vatican's opening run)?"""
        return True

    def _needs_exact_ability(self) -> bool:
        """Must ``legal_actions`` know for sure whether any lay-down exists (must-meld, pass)?"""
        return False

    def variant_key(self) -> str:
        """The name of this table's meld rules among ``MELD_VARIANTS``."""
        return self.MELD_VARIANTS[0].name

    @property
    def variant(self) -> melds.Variant:
        key = self.variant_key()
        for variant in self.MELD_VARIANTS:
            if variant.name == key:
                return variant
        raise KeyError(f"{self.GAME_ID} lists no meld rules {key!r} in MELD_VARIANTS")

    # -- dealing ------------------------------------------------------------------------------------
    def _setup(self) -> None:
        for k in range(len(self.deals)):
            self._explicit_deal(k)  # validate every explicit deal up front
        self.totals = [0] * self.n
        self.wins = [0] * self.n
        self.history = []
        self.deal_no = 0
        self.dealer = self.n - 1  # seat 0 (P1), left of the dealer, starts the first deal
        self.opened = [False] * self.n
        self._start_deal(first=True)

    def _explicit_deal(self, k: int) -> tuple[int | None, list[list[int]], list[int], list[int]]:
        """``{"hands": [[cards]...], "stock": [cards] (top first, optional), "singles": [...],
        "dealer": seat (optional)}``; unlisted cards are shuffled into the stock."""
        spec = self.deals[k]
        name = self.GAME_ID
        try:
            hands = [[parse_card(c) for c in h] for h in spec["hands"]]
            singles = [parse_card(c) for c in spec.get("singles", [])]
            stock = [parse_card(c) for c in spec["stock"]] if "stock" in spec else None
        except (KeyError, TypeError, CardError) as exc:
            raise GameError(f"{name} deal {k}: {exc}") from None
        if len(hands) != self.n:
            raise GameError(f"{name} deal {k}: need {self.n} hands")
        if len(singles) != self.SINGLES or JOKER in singles:
            raise GameError(f"{name} deal {k}: need {self.SINGLES} table singles, no joker")
        stock = explicit_stock(self.pack(), [c for h in hands for c in h] + singles, stock, self.seed, k,
                               f"{name} deal {k}", "hands, singles and stock must make the pack")
        dealer = spec.get("dealer")
        if dealer is not None and not (isinstance(dealer, int) and 0 <= dealer < self.n):
            raise GameError(f"{name} deal {k}: bad dealer {dealer!r}")
        return dealer, hands, singles, stock

    def _shuffled_deal(self, k: int) -> tuple[list[list[int]], list[int], list[int]]:
        cards = self.pack()
        deal_rng(self.seed, k).shuffle(cards)
        hands: list[list[int]] = [[] for _ in range(self.n)]
        order = [(self.dealer + 1 + i) % self.n for i in range(self.n)]
        packets = self.PACKETS or (1,) * self.HAND
        for size in packets:
            for seat in order:
                hands[seat].extend(cards[:size])
                cards = cards[size:]
        singles: list[int] = []
        while len(singles) < self.SINGLES:
            card = cards.pop(0)
            if card == JOKER:
                cards.insert(len(cards) // 2, card)  # a joker turned up goes back into the stock
            else:
                singles.append(card)
        return hands, singles, cards

    def _start_deal(self, first: bool = False) -> RummyDealEvent:
        k = self.deal_no
        self.deal_no += 1
        if not first:
            self.dealer = (self.dealer + 1) % self.n
        if k < len(self.deals):
            dealer, hands, singles, stock = self._explicit_deal(k)
            if dealer is not None:
                self.dealer = dealer
        else:
            hands, singles, stock = self._shuffled_deal(k)
        self.hands = [sorted(h, key=sort_key) for h in hands]
        self.stock = stock
        self.table = [[c] for c in singles]
        self.phase = "play"
        self.turn = (self.dealer + 1) % self.n
        self.drawn = 0
        self.laid = 0
        self.passes = 0
        self.final_left = None
        self.last_drawer = None
        self.knocker = None
        self.opened = [False] * self.n
        return {"type": "deal", "deal_no": self.deal_no, "dealer": self.dealer,
                "singles": [card_str(c) for c in singles], "stock_count": len(self.stock)}

    # -- turn helpers for the game modules ----------------------------------------------------------
    def _next_turn(self) -> None:
        assert self.turn is not None
        self.turn = (self.turn + 1) % self.n
        self.drawn = 0
        self.laid = 0

    def _draw(self, seat: int, count: int = 1) -> RummyDrawEvent:
        got = self.stock[:count]
        self.stock = self.stock[count:]
        self.hands[seat] = sorted(self.hands[seat] + got, key=sort_key)
        self.drawn += len(got)
        if got and not self.stock:
            self.last_drawer = seat
        return {"type": "draw", "seat": seat, "count": len(got), "stock_count": len(self.stock)}

    def _pass(self, seat: int) -> list[Event]:
        """A pass with the stock out; a full round of passes ends the deal with no one out."""
        self.passes += 1
        events: list[Event] = [{"type": "pass", "seat": seat}]
        if self.passes >= self.n:
            return events + self._end_deal(None)
        self._next_turn()
        return events

    # -- questions the bot asks (the toggle hand) ------------------------------------------------------------
    def may_lay(self) -> bool:
        """May the seat to act lay cards down now (the turn structure; the cards are checked apart)?"""
        return self.phase != "over" and self.turn is not None and self._may_lay()

    def forced_action(self) -> str | None:
        """The one move the rules leave (a draw or a pass nobody could refuse), or None when the
        player has a choice. Exact: a must-meld draw is forced only when nothing can go down."""
        if self.phase == "over" or self.turn is None:
            return None
        if self._may_lay() and not self._needs_exact_ability():
            return None  # the lay-down sample is not exact here: the player may know a lay-down
        legal = self.legal_actions()
        return legal[0] if len(legal) == 1 and not is_lay(legal[0]) else None

    # -- the contract -----------------------------------------------------------------------------
    def _to_act(self) -> int | None:
        return None if self.phase == "over" else self.turn

    def _legal(self) -> list[str]:
        lays = self.lay_samples() if self._may_lay() else []
        return lays + self._verbs(bool(lays))

    def _apply(self, action: str) -> list[Event]:
        if is_lay(action):
            assert self.turn is not None
            return self._lay(self.turn, *self.resolve_lay(action))
        return self._apply_verb(action)

    def _verb_legal(self, action: str) -> bool:
        """Is a non-lay action legal now? Asks the solver only when the answer depends on whether
        a lay-down exists (``pass``, a must-meld ``draw``), so replays of records stay cheap."""
        if not self._may_lay():
            return action in self._verbs(False)
        able, unable = action in self._verbs(True), action in self._verbs(False)
        if able == unable:
            return able
        return action in self.legal_actions()

    def act(self, seat: int, action: str) -> list[Event]:
        """As ``State.act``, but any legal lay-down is accepted whether it was listed or not, and
        other actions are checked without listing lay-downs when that cannot change the answer."""
        self._check_turn(seat, action)
        if not is_lay(action):
            if not self._verb_legal(action):
                raise IllegalAction(action, self.why_illegal(action))
            self._legal_cache = None
            return self._apply_verb(action)
        try:
            hand_cards, new_table = self.resolve_lay(action)
        except LayError as exc:
            raise IllegalAction(action, str(exc)) from None
        self._legal_cache = None
        return self._lay(seat, hand_cards, new_table)

    def is_legal(self, seat: int, action: str) -> bool:
        if seat != self._to_act():
            return False
        if not is_lay(action):
            return self._verb_legal(action)
        try:
            self.resolve_lay(action)
        except LayError:
            return False
        return True

    def canonical_action(self, action: str) -> str:
        """The explicit form of a legal lay-down (other actions unchanged); raises IllegalAction."""
        if not is_lay(action):
            return action
        try:
            hand_cards, new_table = self.resolve_lay(action)
        except LayError as exc:
            raise IllegalAction(action, str(exc)) from None
        return lay_text(hand_cards, self._normalised(new_table))

    def why_illegal(self, action: str) -> str:
        verbs = [a for a in self.legal_actions() if not is_lay(a)]
        if self._may_lay():
            verbs.insert(0, "lay CARDS [/ LAYOUT]")
        verb = action.split()[0] if action.split() else ""
        if verb in ("draw", "knock", "end", "pass", "abandon"):
            return f"you cannot {verb} now (legal: {', '.join(verbs)})"
        return f"not an action of {self.GAME_ID} now (legal: {', '.join(verbs)})"

    # -- laying down ----------------------------------------------------------------------------
    def resolve_lay(self, action: str) -> tuple[list[int], list[list[int]]]:
        """Check a lay-down for the seat to act: (hand cards, new table) or LayError."""
        seat = self.turn
        if seat is None or self.phase == "over":
            raise LayError("the game is over")
        if not self._may_lay():
            raise LayError("you may not lay cards down now (" + ", ".join(self.legal_actions()) + ")")
        hand_cards, layout = parse_lay(action)
        if not hand_cards:
            raise LayError("name at least one card from your hand")
        gone = missing(self.hands[seat], hand_cards)
        if gone is not None:
            have = self.hands[seat].count(gone)
            raise LayError(f"{card_str(gone)} is not in your hand" if not have
                           else f"you hold only {have} {card_str(gone)}")
        if layout is None:
            solution = melds.solve(self.variant, self.table, hand_cards)
            if solution is None:
                raise LayError(melds.explain_no_solution(self.variant, self.table, hand_cards))
            layout = [list(m) for m in solution.table]
        else:
            reason = melds.check_layout(self.variant, self.table, hand_cards, layout)
            if reason is not None:
                raise LayError(reason)
        reason = self._lay_rule(seat, hand_cards, layout)
        if reason is not None:
            raise LayError(reason)
        return hand_cards, layout

    def _normalised(self, table: Sequence[Sequence[int]]) -> list[list[int]]:
        """Display order inside each meld (runs ascending, sets by suit); meld order as given."""
        return [melds.normalise(self.variant, m) for m in table]

    def _lay(self, seat: int, hand_cards: list[int], new_table: list[list[int]]) -> list[Event]:
        hand = list(self.hands[seat])
        for c in hand_cards:
            hand.remove(c)
        self.hands[seat] = hand
        self.table = self._normalised(new_table)
        self.laid += 1
        self.passes = 0
        self.opened[seat] = True
        lay: LayEvent = {
            "type": "lay", "seat": seat, "cards": [card_str(c) for c in hand_cards],
            "table": table_str(self.table), "hand_count": len(hand), "action": lay_text(hand_cards, self.table),
        }
        events: list[Event] = [lay]
        if len(hand) == 1:
            events.append({"type": "one_card", "seat": seat})  # Shanghai's "one card" call, for all
        if not hand:
            events.append({"type": "out", "seat": seat})
            return events + self._end_deal(seat)
        return events + self._after_lay()

    # -- views and checks ---------------------------------------------------------------------------
    def hand_value(self, seat: int) -> int:
        """Points a hand counts against its holder (the game's penalty or Carousel's value)."""
        return sum(self.card_points(c) for c in self.hands[seat])

    def card_points(self, card: int) -> int:
        return 1

    def _view(self, seat: int | None) -> RummyView:
        view: RummyView = {
            "phase": self.phase,
            "variant": self.variant_key(),
            "dealer": self.dealer,
            "deal_no": self.deal_no,
            "hand_counts": [len(h) for h in self.hands],
            "table": table_str(self.table),
            "table_kinds": [meld_kind(m) for m in self.table],
            "stock_count": len(self.stock),
            "drawn": self.drawn,
            "laid": self.laid,
            "passes": self.passes,
            "final_left": self.final_left,
            "knocker": self.knocker,
            "opened": list(self.opened),
            "sheet": self.sheet(),
        }
        if seat is not None:
            view["hand"] = [card_str(c) for c in self.hands[seat]]
            view["hand_value"] = self.hand_value(seat)
        return view

    def scores(self) -> list[int]:
        return list(self.totals)

    def sheet(self) -> dict[str, Any]:
        return {"deals": self.history, "totals": list(self.totals)}

    def check_invariants(self) -> None:
        everything = [c for h in self.hands for c in h] + flat(self.table) + self.stock
        assert sorted(everything) == sorted(self.pack()), "the pack is not all accounted for"
        for meld in self.table:
            if len(meld) == 1 and self.SINGLES:
                assert not melds.is_placed_joker(meld[0]), "a joker as a loose single"
                continue
            reason = melds.why_invalid(self.variant, meld)
            assert reason is None, f"table meld {meld_str(meld)} is invalid: {reason}"
        summed = [sum(d["points"][s] for d in self.history) for s in range(self.n)]
        assert summed == self.totals or self.phase == "over", "totals disagree with the score sheet"
        if self.phase == "over":
            assert self.turn is None
        else:
            assert self.turn is not None and 0 <= self.turn < self.n
