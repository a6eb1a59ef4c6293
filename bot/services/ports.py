"""The ports between table services: what one service needs of another, as a Protocol.

A service names the port it uses, never the class on the other side, so the services import each
other not at all and form a graph (bot/app.py, the composition root, plugs the real services in).
Each port is the handful of methods one side really calls; a fake in a test needs only those.
"""

from __future__ import annotations

from typing import Any, Generic, Protocol, TypeVar

from bot.services.types import Actor, Answer, Where
from bot.store.contract import StoreTx
from bot.store.rows import ClockRow, SeatRow, TableRow
from engine.core import State

Events = list[dict[str, Any]]


class TurnClock(Protocol):
    """What moves and the lobby need from the clocks (bot/services/clocks.py): the next deadline and the time."""

    default_per_move: float

    async def moved(self, tx: StoreTx, row: TableRow, seats: list[SeatRow], state: State) -> None: ...

    def now(self) -> float: ...


class AiScheduler(Protocol):
    """Starts a table's AI loop (AI seats and forced moves) after a change that may give them the turn."""

    def schedule_ai(self, table_id: int) -> None: ...


class Mover(AiScheduler, Protocol):
    """What plays a move for somebody else (the clock's deadline move): apply it, then let the AI go on."""

    async def apply(self, tx: StoreTx, row: TableRow, seats: list[SeatRow], state: State, seat: int,
                    action: str) -> Events: ...


class HandPublisher(Protocol):
    """Sends or edits one player's hand message (bot/services/publish.py)."""

    async def hand_message(self, tx: StoreTx, row: TableRow, seat: SeatRow, state: State, names: list[str],
                           live: bool, new: bool = False, group: int | None = None,
                           pick: tuple[str, int] | None = None, dm: bool = True) -> None: ...


class TablePublisher(HandPublisher, Protocol):
    """Everything the table's news needs: the table message, hands, sheet and standings after a change."""

    async def publish(self, tx: StoreTx, row: TableRow, seats: list[SeatRow], state: State,
                      events: Events, mover: int | None, chat_lang: str) -> None: ...

    async def closed_hands(self, tx: StoreTx, row: TableRow, seats: list[SeatRow]) -> None: ...

    async def grid(self, tx: StoreTx, row: TableRow, state: State, names: list[str], lang: str,
                   chat_id: int | None = None, thread_id: int | None = None) -> bool: ...

    def takes_lobby(self, row: TableRow) -> bool: ...


class LobbyShow(Protocol):
    """Draws a lobby message again (the clock's settings keyboard changes it)."""

    async def show(self, tx: StoreTx, row: TableRow, seats: list[SeatRow], lang: str, send: bool = False) -> None: ...


class Joiner(Protocol):
    """Seats a person at a lobby table (a Join link's /start completes the join)."""

    async def join(self, table_id: int, actor: Actor, lang: str) -> Answer: ...


class HandResender(Protocol):
    """Sends a player's hands again (after /start, when the DM works again)."""

    async def resend_hands(self, user_id: int) -> None: ...


class Replies(Protocol):
    """A reply in a chat (bot/services/core.py): the handlers' and middlewares' way to say something."""

    async def say(self, where: Where, text: str, markup: Any = None, chatter: bool = False) -> None: ...


class TableFinished(Protocol):
    """Told, in the final move's transaction, that a table's game reached its end (the league records a
    match). A subscriber must not fail the move: it keeps its own savepoint."""

    async def __call__(self, tx: StoreTx, row: TableRow, seats: list[SeatRow], state: State) -> object: ...


class SeatedTables(Protocol):
    """Opens and begins a table whose players are chosen (a tournament's round), bot/services/lobby.py."""

    async def begin_seated(self, tx: StoreTx, chat_id: int, thread_id: int, game_id: str, creator_id: int,
                           options: dict[str, Any], seats: list[SeatRow], clock: ClockRow | None,
                           tournament_id: int) -> tuple[TableRow, State]: ...

    def began(self, row: TableRow, seats: list[SeatRow], state: State) -> None: ...


class SeatLeaver(Protocol):
    """Hands a player's seat at a table in play to an AI for good (bot/services/seats.py): a tournament's
    withdrawal leaves every table the player still plays."""

    async def quit_seat(self, table_id: int, user_id: int) -> bool: ...


class TournamentResult(Protocol):
    """Told, in the transaction that ends a tournament, its final ranking (user id, name, points), best
    first: the league keeps it."""

    async def __call__(self, tx: StoreTx, chat_id: int, thread_id: int, game: str,
                       ranking: list[tuple[int, str, float]]) -> object: ...


class ForcedRule(Protocol):
    """Whether the move to make is one the table plays by itself (a rummy's forced draw or pass)."""

    def __call__(self, game: str, state: State) -> bool: ...


T = TypeVar("T")


class Plug(Generic[T]):
    """A collaborator built after the services that use it: moves keep the clocks' deadlines, and the
    clocks play moves at a deadline. The root makes the plug, hands it to the services that use it,
    and plugs the service in before start. Empty, the feature is off (a test without clocks)."""

    __slots__ = ("service",)

    def __init__(self, service: T | None = None) -> None:
        self.service: T | None = service

    def plug(self, service: T | None) -> None:
        self.service = service
