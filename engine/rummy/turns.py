"""Turn structures and deal scoring shared by several manipulation rummies (RULES.md 9).

- ``PlayOrDrawState``: a turn is one lay-down OR a draw (Machiavelli, Tahiti, Vatican;
  Guadalupe draws 2 when nothing was laid and 1 after a lay that did not go out).
- ``MustMeldState``: a player who can lay down must; one who cannot draws one card at a time
  until he can (Shanghai, Manipulation).
- ``PenaltyState``: the deal ends when someone goes out (or, with the stock out, after a full
  round of passes); everyone else scores penalty points for the cards left in hand, per the
  game's ``card_points``. The match lasts ``deals`` deals or until someone's penalties reach
  ``target``; the lowest total wins (``scores()`` are minus the penalties).

With the stock out, a player who cannot lay down passes (RULES.md 9.1 and 9.5 decisions):
``pass`` is listed only when no lay-down exists, which the solver's best subset decides exactly.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, model_validator

from engine.core import Event, Options
from engine.events import DealEndEvent
from engine.rummy.base import RummyState


class PenaltyDealEnd(DealEndEvent):
    """``deal_end`` of the penalty games: who went out (None: a round of passes), each seat's penalty."""

    out: int | None
    penalties: list[int]
    points: list[int]


class PenaltyOptions(Options):
    """Match length of the penalty-point games: a number of deals, or a penalty target."""

    deals: int = Field(1, ge=0, le=100, description="deals in the match (0: until the target)")
    target: int = Field(0, ge=0, le=10000, description="the match ends when someone's penalties reach this (0: off)")

    @model_validator(mode="after")
    def _some_end(self) -> PenaltyOptions:
        if self.deals == 0 and self.target == 0:
            raise ValueError("set deals or target (both 0 would never end)")
        return self


class PenaltyState(RummyState):
    """Deal end and match end by penalty points."""

    options: PenaltyOptions

    def _end_deal(self, out: int | None) -> list[Event]:
        penalties = [0 if s == out else self.hand_value(s) for s in range(self.n)]
        points = [-p for p in penalties]
        self.totals = [t + p for t, p in zip(self.totals, points, strict=True)]
        if out is not None:
            self.wins[out] += 1
        self.history.append({
            "deal_no": self.deal_no, "dealer": self.dealer, "out": out,
            "cards_left": [len(h) for h in self.hands], "penalties": penalties,
            "points": points, "totals": list(self.totals),
        })
        end: PenaltyDealEnd = {"type": "deal_end", "out": out, "penalties": penalties,
                               "points": points, "scores": list(points), "totals": list(self.totals)}
        events: list[Event] = [end]
        opts = self.options
        done = (opts.deals and self.deal_no >= opts.deals) or (opts.target and -min(self.totals) >= opts.target)
        if done:
            self.phase = "over"
            self.turn = None
            events.append({"type": "game_over", "scores": self.scores(), "totals": self.scores(),
                           "winners": self.winners()})
        else:
            events.append(self._start_deal())
        return events

    def sheet(self) -> dict[str, Any]:
        return {"deals": self.history, "totals": list(self.totals),
                "penalties": [-t for t in self.totals], "lowest_wins": True,
                "match_deals": self.options.deals, "target": self.options.target}


class PlayOrDrawState(RummyState):
    """One lay-down or one draw per turn; ``pass`` with the stock out and nothing to lay."""

    DRAW_IDLE: ClassVar[int] = 1  # cards drawn instead of laying (Guadalupe: 2)
    DRAW_AFTER_LAY: ClassVar[int] = 0  # cards drawn after a lay that did not go out (Guadalupe: 1)
    ABANDON: ClassVar[int] = 0  # Machiavelli: an abandoned manipulation costs 3 cards

    def _may_lay(self) -> bool:
        return self.laid == 0

    def _needs_exact_ability(self) -> bool:
        return not self.stock

    def _verbs(self, can_lay: bool) -> list[str]:
        if self.stock:
            return ["draw", "abandon"] if self.ABANDON else ["draw"]
        return [] if can_lay else ["pass"]

    def _apply_verb(self, verb: str) -> list[Event]:
        seat = self.turn
        assert seat is not None
        if verb == "pass":
            return self._pass(seat)
        count = self.ABANDON if verb == "abandon" else self.DRAW_IDLE
        event = self._draw(seat, count)
        if verb == "abandon":
            event["penalty"] = True
        self.passes = 0
        self._next_turn()
        return [event]

    def _after_lay(self) -> list[Event]:
        seat = self.turn
        assert seat is not None
        events: list[Event] = []
        if self.DRAW_AFTER_LAY and self.stock:
            events.append(self._draw(seat, self.DRAW_AFTER_LAY))
        self._next_turn()
        return events


class MustMeldState(RummyState):
    """Lay down if able (at least one card); otherwise draw one card at a time until able."""

    def _may_lay(self) -> bool:
        return self.laid == 0

    def _needs_exact_ability(self) -> bool:
        return True

    def _verbs(self, can_lay: bool) -> list[str]:
        if can_lay:
            return []
        return ["draw"] if self.stock else ["pass"]

    def _apply_verb(self, verb: str) -> list[Event]:
        seat = self.turn
        assert seat is not None
        if verb == "pass":
            return self._pass(seat)
        self.passes = 0
        return [self._draw(seat, 1)]  # the same player goes on: lay if now able, else draw again

    def _after_lay(self) -> list[Event]:
        self._next_turn()
        return []
