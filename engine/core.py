"""The contract every game implements, and the registry of games.

Modelled on OpenSpiel's game API: a ``State`` says whose turn it is (``to_act``), lists
``legal_actions`` in text notation, applies one with ``act`` (refusing anything else with
``IllegalAction`` and changing nothing), reports ``events``, gives each seat its own
``view`` with hidden information hidden, keeps running ``scores``, can be cloned and
turned to and from plain JSON. Chance is folded into the seed: deal ``k`` is shuffled by
``deal_rng(seed, k)``, so a seed plus a list of actions replays a game exactly.
"""

from __future__ import annotations

import importlib
import marshal
import pkgutil
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError

Event = dict[str, Any]
View = dict[str, Any]


class IllegalAction(Exception):
    """An action that is not legal now; the state is unchanged."""

    def __init__(self, action: str, reason: str) -> None:
        super().__init__(f"{action!r}: {reason}")
        self.action = action
        self.reason = reason


class OptionsError(ValueError):
    """House rules that do not validate; the message is meant for a person."""


class GameError(ValueError):
    """An unknown game, a bad player count or a malformed explicit deal."""


class Options(BaseModel):
    """Base of every game's house rules: unknown keys are errors, values are coerced."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def deal_rng(seed: int, deal_index: int) -> random.Random:
    """The random source for one deal: the same seed and index always shuffle alike."""
    return random.Random(f"kozyr/{seed}/{deal_index}")


def copy_value(value: Any) -> Any:
    """Deep copy of plain data (lists, dicts, scalars). ``marshal`` does it in C, several times
    faster than copy.deepcopy or a Python walk; plain JSON data is all it ever sees here."""
    if type(value) in (list, dict):
        return marshal.loads(marshal.dumps(value))
    return value


class State:
    """One game in progress. Subclasses list their data in ``FIELDS`` (plain JSON data only:
    ints, strings, None, lists and dicts) and implement the ``_`` methods."""

    FIELDS: ClassVar[tuple[str, ...]] = ()
    GAME_ID: ClassVar[str] = ""

    n: int
    seed: int
    options: Options
    deals: list[dict[str, Any]]

    def __init__(self, n: int, seed: int, options: Options, deals: list[dict[str, Any]] | None) -> None:
        self.n = n
        self.seed = seed
        self.options = options
        self.deals = deals or []
        self._legal_cache: list[str] | None = None
        self._setup()

    # -- what a game implements ------------------------------------------------
    def _setup(self) -> None:
        """Fill FIELDS for the start of the game (deal the first hand, etc.)."""
        raise NotImplementedError

    def _to_act(self) -> int | None:
        raise NotImplementedError

    def _legal(self) -> list[str]:
        """Legal actions of the seat to act (never called when the game is over)."""
        raise NotImplementedError

    def _apply(self, action: str) -> list[Event]:
        """Apply an action already known to be legal; return what happened."""
        raise NotImplementedError

    def _view(self, seat: int | None) -> View:
        """What ``seat`` may see (``None``: a spectator). Own hand only; no other hidden card."""
        raise NotImplementedError

    def scores(self) -> list[int]:
        """Running totals per seat."""
        raise NotImplementedError

    def sheet(self) -> dict[str, Any]:
        """The score sheet so far (per finished deal, per-seat details)."""
        return {}

    def check_invariants(self) -> None:
        """Raise AssertionError when the state breaks a rule of its game (tests, selfplay)."""

    def determinize(self, seat: int, rng: random.Random) -> State:
        """A copy in which every card ``seat`` cannot see is dealt afresh at random, consistently
        with what the seat has seen (its hand, cards played, voids shown, cards shown to it), and
        future deals reshuffled: what determinised AI search plays out. ``view(seat)`` is unchanged."""
        raise NotImplementedError(f"{type(self).__name__} has no determinize")

    # -- the public contract ------------------------------------------------------
    @property
    def game(self) -> Game:
        return get_game(self.GAME_ID)

    @property
    def to_act(self) -> int | None:
        """The seat whose decision it is, or None when the game is over."""
        return self._to_act()

    @property
    def over(self) -> bool:
        return self._to_act() is None

    def legal_actions(self, seat: int | None = None) -> list[str]:
        """Legal actions for ``seat`` (default: the seat to act); empty for anyone else."""
        to_act = self._to_act()
        if to_act is None or (seat is not None and seat != to_act):
            return []
        if self._legal_cache is None:
            self._legal_cache = self._legal()
        return list(self._legal_cache)

    def is_legal(self, seat: int, action: str) -> bool:
        return action in self.legal_actions(seat) if seat == self._to_act() else False

    def act(self, seat: int, action: str) -> list[Event]:
        """Apply ``action`` for ``seat``; raise IllegalAction (changing nothing) if not legal."""
        to_act = self._to_act()
        if to_act is None:
            raise IllegalAction(action, "the game is over")
        if seat != to_act:
            raise IllegalAction(action, f"it is seat {to_act}'s turn, not seat {seat}'s")
        if self._legal_cache is None:
            self._legal_cache = self._legal()
        if action not in self._legal_cache:
            raise IllegalAction(action, self.why_illegal(action))
        self._legal_cache = None
        return self._apply(action)

    def why_illegal(self, action: str) -> str:
        """A reason for refusing ``action``; games may say more than this."""
        return "not a legal action now"

    def view(self, seat: int | None = None) -> View:
        base: View = {
            "game": self.GAME_ID,
            "players": self.n,
            "seat": seat,
            "to_act": self._to_act(),
            "over": self.over,
            "scores": self.scores(),
        }
        base.update(self._view(seat))
        return base

    def winners(self) -> list[int]:
        """Seats sharing first place (highest total), once the game is over."""
        if not self.over:
            return []
        totals = self.scores()
        best = max(totals)
        return [s for s, t in enumerate(totals) if t == best]

    def clone(self) -> State:
        new = object.__new__(type(self))
        new.n = self.n
        new.seed = self.seed
        new.options = self.options
        new.deals = self.deals
        new._legal_cache = self._legal_cache
        for name in self.FIELDS:
            setattr(new, name, copy_value(getattr(self, name)))
        return new

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.GAME_ID,
            "players": self.n,
            "seed": self.seed,
            "options": self.options.model_dump(mode="json"),
            "deals": copy_value(self.deals),
            "state": {name: copy_value(getattr(self, name)) for name in self.FIELDS},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> State:
        game = get_game(data["game"])
        state_cls = game.state
        new = object.__new__(state_cls)
        new.n = int(data["players"])
        new.seed = int(data["seed"])
        new.options = game.parse_options(data.get("options") or {})
        new.deals = copy_value(list(data.get("deals") or []))
        new._legal_cache = None
        fields = data["state"]
        for name in state_cls.FIELDS:
            setattr(new, name, copy_value(fields[name]))
        return new

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} players={self.n} to_act={self._to_act()}>"


@dataclass(frozen=True)
class Game:
    """A registered game: its id, player range, house rules and state class."""

    id: str
    name: str
    min_players: int
    max_players: int
    options: type[Options]
    state: type[State]
    family: str = "tricks"

    def parse_options(self, options: Options | Mapping[str, Any] | None = None) -> Options:
        """Validate house rules, with a message a person can act on."""
        if isinstance(options, self.options):
            return options
        if isinstance(options, Options):
            options = options.model_dump()
        try:
            return self.options.model_validate(dict(options or {}))
        except ValidationError as exc:
            problems = []
            for err in exc.errors():
                where = ".".join(str(p) for p in err["loc"]) or "options"
                msg = err["msg"]
                if err["type"] == "extra_forbidden":
                    known = ", ".join(self.options.model_fields) or "none"
                    msg = f"unknown option (known: {known})"
                problems.append(f"{where}: {msg}")
            raise OptionsError("; ".join(problems)) from None

    def new(
        self,
        players: int,
        seed: int | None = None,
        options: Options | Mapping[str, Any] | None = None,
        deals: list[dict[str, Any]] | None = None,
    ) -> State:
        """Start a game. ``deals`` (optional) replace the shuffled deals, one per deal in order."""
        if not self.min_players <= players <= self.max_players:
            raise GameError(f"{self.id} is for {self.min_players}-{self.max_players} players, not {players}")
        if seed is None:
            seed = random.SystemRandom().randrange(1, 2**53)
        return self.state(players, int(seed), self.parse_options(options), deals)


_REGISTRY: dict[str, Game] = {}
_DISCOVERED = False


def register(game: Game) -> Game:
    """Called by each module in ``engine.games`` at import time."""
    if game.state.GAME_ID != game.id:
        raise GameError(f"{game.state.__name__}.GAME_ID must be {game.id!r}")
    _REGISTRY[game.id] = game
    return game


def _discover() -> None:
    global _DISCOVERED
    if _DISCOVERED:
        return
    _DISCOVERED = True
    import engine.games as package

    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"engine.games.{info.name}")


def get_game(game_id: str) -> Game:
    _discover()
    try:
        return _REGISTRY[game_id]
    except KeyError:
        raise GameError(f"unknown game {game_id!r}; known: {', '.join(sorted(_REGISTRY))}") from None


def all_games() -> list[Game]:
    _discover()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]
