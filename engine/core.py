"""The contract every game implements, and the registry of games.

Modelled on OpenSpiel's game API: a ``State`` says whose turn it is (``to_act``), lists
``legal_actions`` in text notation, applies one with ``act`` (refusing anything else with
``IllegalAction`` and changing nothing), reports ``events``, gives each seat its own
``view`` with hidden information hidden, keeps running ``scores``, can be cloned and
turned to and from plain JSON. Chance is folded into the seed: deal ``k`` is shuffled by
``deal_rng(seed, k)``, so a seed plus a list of actions replays a game exactly. The events all games
share (``deal``, ``play``, ``trick``, ``deal_end``, ``game_over`` ...) and the views' common fields are
defined in ``engine.events`` as TypedDicts, with the checker that tests hold every game to: ``act``
returns a list of ``Event`` (their union), ``view`` a ``View``; a game's ``_view`` returns its own
TypedDict extending ``ViewPart``, and its events extend the common shapes (plain dicts at run time, so
records, snapshots and the bot's JSON are the same).

The fast path, for simulation and search (see ``State.fast_legal``): ``current`` (the seat to act),
``fast_legal()`` (ints), ``fast_apply(int)`` (no checks, no events), ``action_to_text`` /
``text_to_action`` at the edges. Its results equal the public path's, step for step (``to_json``);
records and the bot keep the text. The deals stay ``deal_rng``'s (string-seeded, so stored seeds keep
replaying); simulations that sample deals pass the cards in instead (``OhHellState.from_pack``).
"""

from __future__ import annotations

import _random
import importlib
import importlib.util
import marshal
import random
from collections.abc import Mapping
from dataclasses import dataclass
from hashlib import sha512
from operator import attrgetter
from types import ModuleType
from typing import Any, ClassVar, Protocol, Self, runtime_checkable

from pydantic import BaseModel, ConfigDict, ValidationError

from engine.cards import card_str
from engine.events import CommonView as View
from engine.events import Event, ViewPart

__all__ = [
    "ActionCodec", "Event", "Game", "GameError", "IllegalAction", "OptionProblem", "Options", "OptionsError", "State",
    "TurnIsCurrent", "View", "ViewPart", "all_games", "copy_value", "deal_rng", "get_game", "register", "shuffle",
]


class IllegalAction(Exception):
    """An action that is not legal now; the state is unchanged."""

    def __init__(self, action: str, reason: str) -> None:
        super().__init__(f"{action!r}: {reason}")
        self.action = action
        self.reason = reason


@dataclass(frozen=True)
class OptionProblem:
    """One house rule that does not validate, as data, so that a front end can say it in its reader's
    language: ``kind`` is "unknown" (no such option), "value" (``given`` is not a value the option takes)
    or "together" (each value is fine, not these together; ``key`` is ""). A front end may add its own
    kinds (the bot's "form": a word typed without ``=``)."""

    kind: str
    key: str
    given: Any = None


class OptionsError(ValueError):
    """House rules that do not validate; the message is meant for a person (in English: the engine's CLI),
    ``problems`` the same as data."""

    def __init__(self, message: str, problems: tuple[OptionProblem, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems



class TurnIsCurrent:
    """For games whose JSON field is ``turn``: it reads and writes the plain attribute ``current`` that
    the fast path uses (one attribute read per step). List it before ``State`` in the bases, so this
    class attribute hides State.current's property."""

    current: int | None = None

    def _set_turn(self, seat: int | None) -> None:
        self.current = seat

    turn = property(attrgetter("current"), _set_turn)

class GameError(ValueError):
    """An unknown game, a bad player count or a malformed explicit deal."""


class Options(BaseModel):
    """Base of every game's house rules: unknown keys are errors, values are coerced."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def deal_rng(seed: int, deal_index: int) -> random.Random:
    """The random source for one deal: the same seed and index always shuffle alike.

    Exactly ``random.Random(f"kozyr/{seed}/{deal_index}")`` (the same generator state; a test holds it
    to that), seeded once: ``Random(text)`` seeds its C core from the text's hash first and then again
    through Python's ``seed``. Every deal of every game and every simulated deal passes here."""
    text = f"kozyr/{seed}/{deal_index}".encode()
    rng = random.Random.__new__(random.Random)
    _random.Random.seed(rng, int.from_bytes(text + sha512(text).digest()))  # Random.seed's str case (version 2)
    rng.gauss_next = None  # type: ignore[attr-defined]  # Random.seed sets it; typeshed does not list it
    return rng


def explicit_stock(pack: list[int], used: list[int], stock: list[int] | None, seed: int, deal_index: int,
                   where: str, mismatch: str) -> list[int]:
    """The stock of an explicit deal that gives out ``used`` (hands and table cards) from ``pack``:
    ``stock`` as given (it must be exactly the rest of the pack), or the rest shuffled by the deal's
    seed when the deal gives none. GameError "``where``: ..." on a card given twice or not in the pack,
    and "``where``: ``mismatch``" on a stock that is not the rest."""
    rest = sorted(pack)
    for c in used:
        if c not in rest:
            raise GameError(f"{where}: card {card_str(c)} twice or not in the pack")
        rest.remove(c)
    if stock is None:
        deal_rng(seed, deal_index).shuffle(rest)
        return rest
    if sorted(stock) != rest:
        raise GameError(f"{where}: {mismatch}")
    return stock


def _shuffle_inline(rng: random.Random, cards: list[Any]) -> None:
    """``rng.shuffle(cards)`` written out: ``Random.shuffle`` draws ``_randbelow(i + 1)`` for i from
    len - 1 down to 1, and ``_randbelow(n)`` is ``getrandbits(n.bit_length())`` redrawn while >= n;
    here without the two Python calls per card."""
    getrandbits = rng.getrandbits
    steps = _SHUFFLE_STEPS.get(len(cards))
    if steps is None:
        steps = _SHUFFLE_STEPS[len(cards)] = [(i, (i + 1).bit_length()) for i in range(len(cards) - 1, 0, -1)]
    for i, k in steps:
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


_SHUFFLE_STEPS: dict[int, list[tuple[int, int]]] = {}  # per list length: (i, bits drawn for _randbelow(i + 1))


def _inline_matches_random() -> bool:
    """Whether ``_shuffle_inline`` gives ``Random.shuffle``'s permutations on this Python (the
    algorithm is CPython's, not a documented promise): checked once at import."""
    for seed in range(20):
        ours, theirs = list(range(76)), list(range(76))
        _shuffle_inline(random.Random(seed), ours)
        random.Random(seed).shuffle(theirs)
        if ours != theirs:
            return False
    return True


def shuffle(rng: random.Random, cards: list[Any]) -> None:
    """Shuffle ``cards`` in place exactly as ``rng.shuffle(cards)`` does (the same permutation, the
    generator left in the same state), about twice as fast: deals are shuffled by ``deal_rng`` and
    must replay, and a simulated game shuffles every deal."""
    if type(rng) is random.Random and _INLINE_OK:
        _shuffle_inline(rng, cards)
    else:
        rng.shuffle(cards)


_INLINE_OK = _inline_matches_random()


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

    def _view(self, seat: int | None) -> ViewPart:
        """What ``seat`` may see (``None``: a spectator). Own hand only; no other hidden card. A game
        returns its own TypedDict that extends ``ViewPart``; ``view`` puts the common fields first."""
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
        self._check_turn(seat, action)
        if self._legal_cache is None:
            self._legal_cache = self._legal()
        if action not in self._legal_cache:
            raise IllegalAction(action, self.why_illegal(action))
        self._legal_cache = None
        return self._apply(action)

    def _check_turn(self, seat: int, action: str) -> None:
        """Raise IllegalAction unless ``seat`` is the one to act: every ``act`` (games that accept
        unlisted actions too) refuses a finished game and a seat out of turn in the same words."""
        to_act = self._to_act()
        if to_act is None:
            raise IllegalAction(action, "the game is over")
        if seat != to_act:
            raise IllegalAction(action, f"it is seat {to_act}'s turn, not seat {seat}'s")

    def why_illegal(self, action: str) -> str:
        """A reason for refusing ``action``; games may say more than this."""
        return "not a legal action now"

    def view(self, seat: int | None = None) -> View:
        """What ``seat`` may see: the fields every state knows, then its game's (``_view``); a key of
        both keeps its place and takes the game's value."""
        return {
            "game": self.GAME_ID,
            "players": self.n,
            "seat": seat,
            "to_act": self._to_act(),
            "over": self.over,
            "scores": self.scores(),
            **self._view(seat),
        }

    def winners(self) -> list[int]:
        """Seats sharing first place (highest total), once the game is over."""
        if not self.over:
            return []
        totals = self.scores()
        best = max(totals)
        return [s for s, t in enumerate(totals) if t == best]

    def clone(self) -> Self:
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
        new._after_load()
        return new

    def _after_load(self) -> None:
        """Rebuild what a game keeps beside its FIELDS for the fast path (derived, never in the JSON);
        ``from_json`` calls it last. Default: nothing is kept."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]  # unhashable (equal by value, and it changes); typeshed types it a method

    def __repr__(self) -> str:
        return f"<{type(self).__name__} players={self.n} to_act={self._to_act()}>"

    # -- the fast path: simulation and search ------------------------------------
    # Integer actions, a step that builds no events and no text, the seat to act read
    # without a call through ``to_act``. Text appears only at the edges (records, the
    # bot): ``action_to_text``/``text_to_action`` convert. Every game has this path. The
    # defaults below go through the text methods (correct, but no faster than ``act``: Svinya and
    # Pyanitsa use them). Oh Hell, Variety and Carnival override the whole path with an integer step
    # that builds no events; Karusele (whose cost is its move sample) steps without events on cached
    # parsed moves; Klaberjass and Calabrasella make their legal sets as ints and keep the text step.
    # What a game keeps beside its FIELDS for this path is derived data: ``clone`` copies or drops it,
    # ``from_json`` rebuilds it (``_after_load``). The conformance test (tests/engine/test_fast_path.py)
    # holds every game's fast path to the public contract, mixing the paths, clones and JSON.
    ACTIONS: ClassVar[ActionCodec]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "ACTIONS" not in cls.__dict__:
            cls.ACTIONS = ActionCodec()

    @property
    def current(self) -> int | None:
        """The seat to act, None when the game is over (games with a fast path store it, so
        this is one attribute read there)."""
        return self._to_act()

    def fast_legal(self) -> list[int]:
        """The legal actions of the seat to act, as ints (empty when the game is over).

        The list may be internal to the state (no allocation): read it, do not change it,
        and do not keep it past the next ``fast_apply``. Order is the game's; the set is
        exactly ``legal_actions()`` through ``action_to_text``."""
        if self._to_act() is None:
            return []
        return list(map(self.ACTIONS.code, self._legal()))

    def fast_apply(self, action: int) -> None:
        """Apply ``action`` (an int from ``fast_legal``) without checks and without events.

        Nothing is validated: an action not from ``fast_legal`` of this very state leaves the
        state undefined. The result equals ``act`` with the same action (``to_json`` equal)."""
        self._legal_cache = None
        self._apply(self.ACTIONS.text(action))

    def action_to_text(self, action: int) -> str:
        """The canonical text of an integer action (what ``act`` and records take)."""
        return self.ACTIONS.text(action)

    def text_to_action(self, text: str) -> int:
        """The integer of a text action as ``legal_actions`` lists it (canonical text)."""
        return self.ACTIONS.code(text)


class ActionCodec:
    """Integer <-> text for one game's actions, the same in every process and without a table that
    grows: a game may ``fix`` small codes (below ``2**20``) for the actions it knows up front; any
    other text's code is its UTF-8 bytes read as one big integer (shifted past the fixed codes), so
    open-ended action sets (Karusele's captures) need no registry and nothing is kept per action."""

    __slots__ = ("_codes", "_texts", "_memo_codes", "_memo_texts")
    SHIFT = 20
    MEMO = 1 << 15  # derived codes remembered (a speed memo only: the codes never change), then forgotten

    def __init__(self) -> None:
        self._codes: dict[str, int] = {}
        self._texts: dict[int, str] = {}
        self._memo_codes: dict[str, int] = {}
        self._memo_texts: dict[int, str] = {}

    def fix(self, code: int, text: str) -> None:
        """Give ``text`` the small code ``code``."""
        if not 0 <= code < 1 << self.SHIFT:
            raise ValueError(f"fixed action codes are below 2**{self.SHIFT}, not {code}")
        if self._codes.get(text, code) != code or self._texts.get(code, text) != text:
            raise ValueError(f"action code clash: {code} / {text!r}")
        self._codes[text] = code
        self._texts[code] = text

    def code(self, text: str) -> int:
        found = self._codes.get(text)
        if found is None:
            found = self._memo_codes.get(text)
            if found is None:
                found = int.from_bytes(b"\x01" + text.encode()) << self.SHIFT
                self._remember(text, found)
        return found

    def text(self, code: int) -> str:
        found = self._texts.get(code)
        if found is None:
            found = self._memo_texts.get(code)
        if found is not None:
            return found
        if code >> self.SHIFT and not code & ((1 << self.SHIFT) - 1):
            data = (code >> self.SHIFT).to_bytes((code.bit_length() - self.SHIFT + 7) // 8)
            if data[:1] == b"\x01":
                text = data[1:].decode()
                self._remember(text, code)
                return text
        raise ValueError(f"unknown action code {code}")

    def _remember(self, text: str, code: int) -> None:
        if len(self._memo_codes) >= self.MEMO:
            self._memo_codes.clear()
            self._memo_texts.clear()
        self._memo_codes[text] = code
        self._memo_texts[code] = text


@runtime_checkable
class Identity(Protocol):
    """A game's one identity, as its declaration (``games/<id>/__init__.py: DECLARATION``) states it: the
    registry reads these three fields from there, so the rules never repeat them."""

    @property
    def id(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def players(self) -> tuple[int, int]: ...


@dataclass(frozen=True)
class Game:
    """A registered game: its house rules and state class (``games/<id>/rules.py`` registers them). Its id
    is the state's ``GAME_ID``; its name and player range are the declaration's (``identity``), bound
    by the registry; what the bot needs to know beyond the rules (trick game, score sheet, chat
    table...) is the rest of that declaration."""

    options: type[Options]
    state: type[State]

    @property
    def id(self) -> str:
        return self.state.GAME_ID

    @property
    def identity(self) -> Identity:
        return identity(self.id)

    @property
    def name(self) -> str:
        return self.identity.title

    @property
    def min_players(self) -> int:
        return self.identity.players[0]

    @property
    def max_players(self) -> int:
        return self.identity.players[1]

    def parse_options(self, options: Options | Mapping[str, Any] | None = None) -> Options:
        """Validate house rules, with a message a person can act on."""
        if isinstance(options, self.options):
            return options
        if isinstance(options, Options):
            options = options.model_dump()
        raw = dict(options or {})
        try:
            return self.options.model_validate(raw)
        except ValidationError as exc:
            # One line per option, in words: pydantic names the members of a union it tried
            # ("hand_sizes.literal['ascending','up_and_down']: Input should be ..."); people need
            # the option, what it accepts and what they typed.
            problems: dict[str, list[str]] = {}
            found: dict[str, OptionProblem] = {}
            for err in exc.errors():
                parts = [str(p) for p in err["loc"] if isinstance(p, int) or ("[" not in str(p) and "-" not in str(p))]
                where = ".".join(parts) or "options"
                key = str(err["loc"][0]) if err["loc"] else ""
                kind = "unknown" if err["type"] == "extra_forbidden" else "value" if key else "together"
                found.setdefault(key, OptionProblem(kind, key, raw.get(key)))
                msg = err["msg"]
                if err["type"] == "extra_forbidden":
                    known = ", ".join(self.options.model_fields) or "none"
                    msg = f"unknown option (known: {known})"
                else:
                    msg = msg.replace("Input should be", "should be").replace("Value error, ", "")
                    if isinstance(err.get("input"), str | int | float):
                        msg += f" (got {err['input']!r})"
                if msg not in problems.setdefault(where, []):
                    problems[where].append(msg)
            text = "; ".join(f"{where}: " + ", or ".join(msgs) for where, msgs in problems.items())
            raise OptionsError(text, tuple(found.values())) from None

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


def register(game: Game) -> Game:
    """Called by each game's rules module (``games/<id>/rules.py``) at import time."""
    if not game.id:
        raise GameError(f"{game.state.__name__}.GAME_ID is not set")
    package = _rules_package(game.state)
    if package is not None and package != game.id:
        raise GameError(f"games/{package}/rules.py: {game.state.__name__}.GAME_ID is {game.id!r}; GAME_ID must be "
                        f"the package's id {package!r} (the id the registry, the declaration and /new use)")
    _REGISTRY[game.id] = game
    return game


def _rules_package(state: type[State]) -> str | None:
    """The game package whose rules module defines ``state`` (``games.<id>.rules``), None for a state
    defined elsewhere (a test's)."""
    parts = state.__module__.split(".")
    return parts[1] if len(parts) == 3 and parts[0] == "games" and parts[2] == "rules" else None


_IDENTITIES: dict[str, Identity] = {}


def identity(game_id: str) -> Identity:
    """The game's declared identity (``games/<id>/__init__.py: DECLARATION``: id, title, players),
    which must name the same id; read once."""
    found = _IDENTITIES.get(game_id)
    if found is not None:
        return found
    declared = getattr(importlib.import_module(f"games.{game_id}"), "DECLARATION", None)
    if not isinstance(declared, Identity) or declared.id != game_id:
        what = f"it declares id {declared.id!r}" if isinstance(declared, Identity) else "it declares none"
        raise GameError(f"games/{game_id}/__init__.py must declare DECLARATION with id {game_id!r}, the package's "
                        f"name and its rules' GAME_ID ({what})")
    low, high = declared.players
    if not 1 <= low <= high:
        raise GameError(f"games/{game_id}/__init__.py declares players {declared.players}")
    _IDENTITIES[game_id] = declared
    return declared


def _registered() -> tuple[str, ...]:
    """The one list of games (``games.REGISTERED``); imported here, not at the top, so that
    ``engine.core`` loads before any game does (each rules module imports it)."""
    from games import REGISTERED

    return REGISTERED


def get_game(game_id: str) -> Game:
    """The registered game ``game_id``; its rules module is imported the first time it is asked for."""
    found = _REGISTRY.get(game_id)
    if found is not None:
        return found
    known = _registered()
    if game_id not in known:
        raise GameError(f"unknown game {game_id!r}; known: {', '.join(sorted(known))}")
    importlib.import_module(f"games.{game_id}.rules")
    if game_id not in _REGISTRY:
        raise GameError(f"games/{game_id}/rules.py does not register a game {game_id!r}: it must call "
                        f"register(Game(options=..., state=...)) with a state whose GAME_ID is {game_id!r}")
    identity(game_id)  # bound now: a package whose declaration disagrees fails here, not mid-game
    return _REGISTRY[game_id]


def game_ids() -> tuple[str, ...]:
    """The registered games' ids, in the registry's order."""
    return _registered()


def all_games() -> list[Game]:
    return [get_game(game_id) for game_id in sorted(_registered())]


def ai_module(game_id: str) -> ModuleType | None:
    """The registered game's AI knowledge module (``games/<id>/ai.py``), imported the first time it is
    asked for; None when the game has none (the AI then knows nothing of it)."""
    get_game(game_id)
    name = f"games.{game_id}.ai"
    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)
