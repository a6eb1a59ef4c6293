"""Run the real bot in-process against the fake Bot API server, and play as simulated users.

The fixtures every bot test shares (tests/conftest.py loads this module as a pytest plugin):
``fake`` (tests/fakebot/fixtures.py), ``db`` (the bot's SQLite file), ``app`` (the bot running against
``fake`` on ``db``; settings from ``@pytest.mark.bot(KOZYR_...=...)``) and ``open_table`` (a table
opened, seated and begun in a group). A test that stops the bot and starts another on the same database
(a restart), starts it only after preparing the database or the fake, or asserts after it stopped, takes
``run_bot`` instead of ``app``: the same bot, for a block. A bot as a separate process is
tests/bot/procs.py's ``BotProcess``.
"""

from __future__ import annotations

import asyncio
import random
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from bot.app import App
from bot.config import Settings
from bot.store.sqlite import Store
from engine.core import State, get_game
from tests.bot.helpers import answered
from tests.fakebot.models import StoredMessage
from tests.fakebot.server import FakeTelegram
from tests.fakebot.users import FakeChat, FakeUser

PLAY_PREFIXES = ("mv:", "mn:", "pk:", "cp:", "rm:")


def settings_for(fake: FakeTelegram, db: Path, **overrides: Any) -> Settings:
    """Settings for a test bot: no pacing of its own (the fake enforces Telegram's limits), no AI delay."""
    values: dict[str, Any] = {
        "BOT_TOKEN": fake.token,
        "DATABASE_URL": f"sqlite:///{db}",
        "TELEGRAM_API_URL": fake.base_url,
        "KOZYR_PER_CHAT_INTERVAL": 0.0,
        "KOZYR_GROUP_PER_MINUTE": 100000,
        "KOZYR_GLOBAL_PER_SECOND": 100000,
        "KOZYR_AI_DELAY": 0.0,
        "KOZYR_AI_THINK_MS": 5.0,  # AI seats search, briefly (the levels' budgets are for people)
        "KOZYR_POLLING_TIMEOUT": 1,
        "KOZYR_PICTURES": False,
        "KOZYR_STOP_GRACE": 5.0,  # a test that stops with messages still queued (a 429 storm) waits less
        "KOZYR_DEAL_SEED": 2026,  # the same deals at every run: a failure can be run again (a test may set its own)
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]  # pydantic-settings' init-only argument


def telegram_pacing(scale: float = 1.0) -> dict[str, Any]:
    """Bot settings: its own pacing at the production values (``settings_for`` turns it off), ``scale``
    times faster, for a fake whose limits run as much faster (``@pytest.mark.fake(time_scale=scale)``).
    The global budget keeps its real value: stricter than the scaled fake's, never looser."""
    fields = Settings.model_fields
    return {"KOZYR_PER_CHAT_INTERVAL": fields["per_chat_interval"].default / scale,
            "KOZYR_GROUP_PER_MINUTE": round(fields["group_per_minute"].default * scale),
            "KOZYR_GLOBAL_PER_SECOND": fields["global_per_second"].default}


@asynccontextmanager
async def running_bot(fake: FakeTelegram, db: Path, *, polling: bool = True, **overrides: Any) -> AsyncIterator[App]:
    """The bot on ``db`` against ``fake`` for the block (``polling=False``: started, and the test calls
    ``app.start_polling()`` once it has set up what it watches)."""
    app = App(settings_for(fake, db, **overrides))
    await app.start()
    if polling:
        app.start_polling()
    try:
        yield app
    finally:
        await app.stop()


@asynccontextmanager
async def opened_store(path: Path) -> AsyncIterator[Store]:
    """The SQLite store on ``path``, open for the block (no bot around it)."""
    store = await Store(path).open()
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """The SQLite file of the ``app`` fixture's bot (in the test's own tmp_path: nothing shared between tests)."""
    return tmp_path / "k.sqlite3"


RunBot = Callable[..., AbstractAsyncContextManager[App]]


@pytest.fixture
def run_bot(fake: FakeTelegram, db: Path, request: pytest.FixtureRequest) -> RunBot:
    """``async with run_bot(**settings) as app``: the ``app`` fixture's bot (on ``fake`` and ``db``, with the
    test's ``@pytest.mark.bot`` settings, then ``settings``) for the block: for a test that restarts the
    bot on the same database, prepares the database or the fake before the bot starts, or asserts on what
    the bot left once it stopped (its logs, the fake's errors). ``run_bot(polling=False)``: the test starts
    the polling itself, once it has set up what it watches."""
    marker = request.node.get_closest_marker("bot")
    return partial(running_bot, fake, db, **(marker.kwargs if marker else {}))


@pytest.fixture
async def app(run_bot: RunBot) -> AsyncIterator[App]:
    """The bot, running in-process against ``fake`` on ``db`` (settings_for's test settings); a test changes
    settings with ``@pytest.mark.bot(KOZYR_PICTURES=True, ...)``. Stopped after the test."""
    async with run_bot() as running:
        yield running


@dataclass
class Table:
    """A table ``open_table`` began: the group it plays in, its lobby message (the first deal's table
    message once it begins) and the people seated, in the order they sat."""

    group: FakeChat
    lobby: StoredMessage
    humans: list[FakeUser]


OpenTable = Callable[..., Awaitable[Table]]


@pytest.fixture
def open_table(fake: FakeTelegram, app: App) -> OpenTable:
    """``await open_table(game, humans, ais=0, options="", *, group=None, begin=True)``: see ``open_table_in``."""
    return partial(open_table_in, fake, app)


def lobby_button(op: str, level: str = "") -> Callable[[dict[str, Any]], bool]:
    """A lobby button by what it does (``join``, ``ai``, ``start``...), whatever the group's language."""
    def matches(button: dict[str, Any]) -> bool:
        parts = str(button.get("callback_data", "")).split(":")
        return parts[0] == "lb" and parts[2:4] == [op, level]
    return matches


async def open_table_in(fake: FakeTelegram, app: App, game: str, humans: Sequence[FakeUser], ais: int = 0,
                        options: str = "", *, group: FakeChat | None = None, begin: bool = True) -> Table:
    """``humans[0]`` sends ``/new game options`` in ``group`` (by default a new group of the humans, the first
    its creator), the others join, ``ais`` AI seats (the bot's default level) sit down and the table begins
    (``begin=False``: the lobby stays open). Whoever has not started the bot starts it first. Each press
    waits for the bot's answer, so the seats are taken in the order given; nothing waits for the group's
    messages to be delivered (a test paced like Telegram would wait seconds): ``settle`` when it matters."""
    if group is None:
        group = fake.group(f"{game} table", members=list(humans[1:]), creator=humans[0])
    if not all(user.started for user in humans):
        for user in humans:
            if not user.started:
                await user.start_bot()
        await settle(fake, app)
    before = last_id(group)
    await humans[0].send(group, f"/new {game} {options}".strip())
    lobby = await fake.wait_for_message(group, lambda m: any(map(lobby_button("join"), m.buttons)),
                                        after=before, timeout=20)
    for user in humans[1:]:
        await answered(fake, await user.press(lobby, lobby_button("join")), timeout=20)
    for _ in range(ais):
        await answered(fake, await humans[0].press(lobby, lobby_button("ai")), timeout=20)
    if begin:
        await answered(fake, await humans[0].press(lobby, lobby_button("start")), timeout=20)
    return Table(group, lobby, list(humans))


async def design_deal(fake: FakeTelegram, app: App, table: Table, deal: dict[str, Any], *,
                      moves: Sequence[tuple[int, str]] = (), hands_for: FakeUser) -> int:
    """The table ``open_table`` began, its state replaced by a designed ``deal`` (the table's own seed and
    options) and then ``moves`` (seat, action) played; ``hands_for`` gets the hand messages again and a
    forced move plays itself. The table's id."""
    services = app.services
    assert services is not None, "the bot is running"
    async with app.store.transaction() as tx:
        row = await tx.last_table(table.group.id, 0)
        assert row is not None and row.state is not None, "the table open_table began"
        state = get_game(row.game).new(State.from_json(row.state).n, seed=row.seed, options=row.options,
                                       deals=[deal])
        for seat, action in moves:
            state.act(seat, action)
        row.state = state.to_json()
        row.version += 1
        await tx.save_table(row)
    services.core.forget(row.id)
    await services.people.resend_hands(hands_for.id)
    services.play.schedule_ai(row.id)
    await settle(fake, app)
    return row.id


async def start_carnival(fake: FakeTelegram, app: App, users: Sequence[FakeUser], group: FakeChat) -> None:
    """Everyone starts the bot; the first opens a Carnival table in the group, the others join, it starts."""
    await open_table_in(fake, app, "carnival", users, group=group)
    await settle(fake, app)


def last_id(chat: FakeChat) -> int:
    """The id of the bot's newest message in ``chat`` (0: none yet): wait for messages ``after`` it."""
    messages = chat.messages()
    return messages[-1].message_id if messages else 0


def messages_after(chat: FakeChat, after: int = 0) -> list[StoredMessage]:
    """The bot's messages in ``chat`` newer than message id ``after`` (``last_id`` taken before)."""
    return [m for m in chat.messages() if m.message_id > after]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the kernel's choice, so parallel test workers do not collide)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def play_first_move(fake: FakeTelegram, app: App, users: Sequence[FakeUser]) -> FakeUser:
    """Whoever has a live hand presses its first move button; who it was (once the bot settled)."""
    live = live_hand(users)
    assert live is not None, "somebody has a live hand"
    user, message = live
    data = next(str(b["callback_data"]) for b in play_buttons(message) if str(b["callback_data"]).startswith("mv:"))
    await user.press_data(message, data)
    await settle(fake, app)
    return user


def play_buttons(message: StoredMessage) -> list[dict[str, Any]]:
    return [b for b in message.buttons if str(b.get("callback_data", "")).startswith(PLAY_PREFIXES)]


def builds(data: str) -> bool:
    """A button that only edits a selection: Karusele's capture builder, a rummy hand's toggles and pages."""
    if data.startswith("rm:"):  # rm:table:version:op:arg
        return data.split(":")[3] in {"on", "off", "pg", "undo"}
    return data.startswith("cp:")


def live_hand(users: Sequence[FakeUser]) -> tuple[FakeUser, StoredMessage] | None:
    """The one DM message that currently has play buttons (the player to act), if any."""
    for user in users:
        for message in reversed(user.inbox(include_deleted=False)):
            if play_buttons(message):
                return user, message
    return None


def find(chat: FakeChat, needle: str) -> StoredMessage | None:
    for message in chat.messages():
        if needle in message.content:
            return message
    return None


async def settle(fake: FakeTelegram, app: App, timeout: float = 30) -> None:
    """Wait until the bot has taken every update, finished handling it, and delivered all it queued."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        await fake.idle(quiet=0.01, timeout=timeout)
        if not app.busy():
            await app.outbox.drain(timeout=timeout)
            await fake.idle(quiet=0.01, timeout=timeout)
            if not app.busy() and not fake.updates.undelivered():
                return
        assert loop.time() < deadline, "the bot did not settle"
        await asyncio.sleep(0.005)


async def play_out(fake: FakeTelegram, app: App, group: FakeChat, users: Sequence[FakeUser], rng: random.Random,
                   done: str = "🏁", max_presses: int = 5000) -> int:
    """Press random play buttons (only ones the bot sent) until the group sees ``done``. Returns presses."""
    presses = 0
    while find(group, done) is None:
        await settle(fake, app)
        if find(group, done) is not None:
            break
        found = live_hand(users)
        if found is None:
            async with app.store.read() as tx:
                failed = await tx.outbox_counts()
            dms = "\n".join(f"{u.first_name}: {m.content[-120:]!r} {m.button_texts}"
                            for u in users for m in u.inbox()[-1:])
            raise AssertionError(f"nobody has a live keyboard, but the game is not over; outbox {failed}; "
                                 f"errors {[(c.method, c.description) for c in fake.errors[-3:]]}\n{dms}")
        user, message = found
        buttons = play_buttons(message)
        # A random walk through the Karusele capture builder (toggles, "cp:") or a rummy hand's card toggles
        # may wander before it reaches Take or Draw: press a builder button one time in five, so every game
        # ends. (A walk that seemed to wander for thousands of presses was a bug: a builder left live in a
        # message its Back did not edit. Karusele's e2e table takes 80-113 presses over 30 deals.)
        direct = [b for b in buttons if not builds(str(b.get("callback_data", "")))]
        button = rng.choice(direct if direct and rng.random() < 0.8 else buttons)
        def chosen(b: dict[str, Any], data: Any = button["callback_data"]) -> bool:
            return bool(b.get("callback_data") == data)

        record = await user.press(message, chosen)
        presses += 1
        await fake.wait_until(partial(getattr, record, "answered"), timeout=10, what="the callback answer")
        assert presses < max_presses, (f"the game does not end: {presses} presses; the last, by {user.first_name}: "
                                       f"{button.get('text')!r} of {message.button_texts}, answered "
                                       f"{record.answer_text!r}")
    return presses
