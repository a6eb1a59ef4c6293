"""Bot benchmark: many concurrent Carnival tables through the real dispatcher, store on a real SQLite file.

Run from the repository root::

    python bench/bot.py                  # 200 tables, 20 moves each, 2 s mean think time (about 1.5 minutes)
    python bench/bot.py --quick          # smoke run: 20 tables, 8 moves each
    python bench/bot.py --think 0        # closed loop, no thinking: the most moves per second the bot manages
    python bench/bot.py --feed polling   # updates through the fake's getUpdates instead of feed_raw_update
    python bench/bot.py --split          # the fake and the players in a child process: the bot's own CPU
    python bench/bot.py --split --sample FILE   # ... and where the bot's CPU goes (bench/sampler.py FILE)
    python bench/bot.py --split --stages        # ... and where a press's time goes, stage by stage (bench/stages.py)
    python bench/bot.py --split --telegram --paid 1000   # Telegram's limits, sends past the free 30/s paid

Every run prints Telegram's ceiling for one bot token at the calls a move made (bench/ceiling.py): moves a
second with the free 30 messages a second, and with paid broadcasts (sends only). ``--telegram`` runs at
Telegram's limits (the fake's and the bot's pacing); with many tables the moves then exceed the free rate,
and ``--paid STARS`` (KOZYR_PAID_BROADCAST_STARS_PER_HOUR) shows what paying for sends changes, with the Stars
it spent. ``--ping-after`` is KOZYR_PING_AFTER (20 s: a player back at their turn within it gets their hand
edited, later a new message, a turn ping).

What runs: the real ``bot.app.App`` (dispatcher, middlewares, the services, Outbox, Store on a SQLite file in a temp
dir, WAL) with a real aiogram ``Bot`` talking HTTP to the fake Bot API server of ``tests/fakebot`` (rate limits
off, the bot's own pacing off, no pictures, no AI seats), so every Bot API call is real HTTP and counted by the
fake. Setup goes through the bot too: 3 users per group press START in their DM, the creator types
``/new carnival``, the two others press Join on the lobby message, the creator presses Start.

Then each table's players play: whoever has a live keyboard in their DM (a message the bot sent, taken
from the fake's stored message, never invented) waits a random think time (exponential, mean ``--think`` ms)
and presses one of its buttons at random. A table's next move can only come after the bot has delivered the
next player's keyboard, as with people. ``--moves`` moves per table are played; the first ``--warmup`` moves of
each table are played and counted for the Bot API calls but left out of the latency figures.

How updates reach the dispatcher (``--feed``):

- ``direct`` (default): the fake builds the update (so answerCallbackQuery finds its query), the benchmark takes
  it off the fake's queue and calls ``dispatcher.feed_raw_update(bot, update)`` itself. The clock starts just
  before that call, so latency is the bot's own: JSON → Update, middlewares (dedup, context), the handler and the
  move's SQLite transaction up to its COMMIT. Nothing of getUpdates' long-poll round trip is in it.
- ``polling``: the bot runs its normal long polling against the fake; the clock starts when the fake queues the
  update. Latency then also holds the getUpdates round trip and aiogram's batching (realistic, but noisier).

"Committed" is taken when ``Play.press`` returns after a legal move: the move's transaction (action log,
version, snapshot, outbox rows) has been COMMITted by then and nothing else is awaited. The benchmark wraps
that one method on the instance; no bot code changes. "Handled" (direct mode) is when ``feed_raw_update``
returns: it adds the answerCallbackQuery HTTP round trip.

Bot API calls per move = every call the bot made to the fake from the start of play until the outbox is empty
again after the last move, divided by the moves played (warm-up included; menu presses, which are not moves, are
reported). answerCallbackQuery (one per press) is counted and shown apart: the target of at most 2 calls
a move (the table message edit and the mover's hand) is about messages, so it is judged without it.

By default everything runs in one process on one event loop: the fake server, the simulated users and the
bot share the CPU, so the numbers are a pessimistic bound for the bot alone. ``--split`` runs the fake server
and the players in a child process (``--child``, driven over a socket pair): the bot's process is then the
bot alone, as in production, and takes its updates by long polling (getUpdates, the inbox, the dispatcher),
so latency holds the getUpdates round trip. The clock is CLOCK_MONOTONIC in both processes: the child stamps
an update when it is queued, the bot's process the move's COMMIT. CPU per move is then the bot's process's
own CPU time (every thread) during play over the moves; the fake's process's CPU is printed apart. The two
processes share the machine's cores (2 here), so a busy fake still slows the bot. The script prints the
machine load; numbers on a shared machine drift, compare runs made together.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import cProfile
import gc
import json
import logging
import os
import random
import re
import socket
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot import heap  # noqa: E402
from bot.app import App  # noqa: E402
from tests.bot.harness import settings_for  # noqa: E402
from tests.fakebot.models import StoredMessage  # noqa: E402
from tests.fakebot.ratelimit import RateLimits  # noqa: E402
from tests.fakebot.server import FakeTelegram  # noqa: E402
from tests.fakebot.users import FakeChat, FakeUser  # noqa: E402

sys.path.append(str(Path(__file__).resolve().parent))  # after the root: bench/bot.py is not the bot
from ceiling import report as ceiling_report  # noqa: E402
from sampler import Sampler  # noqa: E402
from stages import Stages  # noqa: E402

TARGET_P99_MS = 20.0
TARGET_CALLS_PER_MOVE = 2.0
TARGET_TABLES = 200
MESSAGE_METHODS = {"sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto", "editMessageMedia",
                   "editMessageCaption", "deleteMessage", "sendDocument"}
_APPLIED: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("bench_applied", default=None)


@dataclass
class Config:
    tables: int = 200
    moves: int = 20
    warmup: int = 2
    think_ms: float = 2000.0
    feed: str = "direct"
    seed: int = 1
    timeout: float = 60.0  # a table that sees no new keyboard for this long fails the run
    pictures: bool = False  # the group's table as a picture, drawn by the outbox at delivery
    driver: str = "inline"  # the store's SQLite driver: inline (sqlite3 on the loop) or thread (aiosqlite)
    profile: str | None = None  # write a cProfile of the event loop thread during play to this file
    backlog: int = 0  # pending outbox rows queued for one extra chat before play (a backlog must not slow other chats)
    telegram: bool = False  # Telegram's limits in the fake and the bot's own pacing at production values
    freeze: bool = True  # gc.freeze() after start, as ``python -m bot`` does (bot/heap.py)
    split: bool = False  # the fake server and the players in a child process; updates by long polling
    sample: str | None = None  # split mode: CPU samples of the bot's process during play to this file
    sql: bool = False  # count the SQL statements the bot runs during play (a trace callback: costs CPU)
    stages: bool = False  # split mode: where a press's time goes, stage by stage (bench/stages.py)
    paid: float = 0.0  # KOZYR_PAID_BROADCAST_STARS_PER_HOUR: sends past the free global rate go paid
    ping_after: float | None = None  # KOZYR_PING_AFTER (None: the bot's default)


# One clock for both processes (CLOCK_MONOTONIC is system-wide on Linux): the child stamps the update,
# the bot's process stamps the COMMIT.
clock = time.monotonic


class BenchFake(FakeTelegram):
    """The fake server, telling the table whose user got a message that something changed in their DM
    (so 200 waiting tables do not all wake up on every call), and timing its own request handling."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.watchers: dict[int, asyncio.Event] = {}
        self.handle_seconds = 0.0

    async def _handle(self, request: Any) -> Any:
        t0 = time.perf_counter()
        response = await super()._handle(request)
        self.handle_seconds += time.perf_counter() - t0
        call = self.calls[-1] if self.calls else None  # appended just before the return, with no await between
        if call is not None and call.ok and call.method in MESSAGE_METHODS:
            chat_id = call.params.get("chat_id")
            event = self.watchers.get(chat_id) if isinstance(chat_id, int) else None
            if event is not None:
                event.set()
        return response


@dataclass
class TableRun:
    group: FakeChat
    users: list[FakeUser]
    rng: random.Random
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    table_id: int = 0
    moves: int = 0
    menus: int = 0
    finished: bool = False


@dataclass
class Sample:
    move: int  # 0-based move number at its table
    commit: float  # seconds from the update to the COMMIT
    handled: float | None  # seconds from the update to feed_raw_update's return (direct mode)
    next_keyboard: float | None = None  # seconds from the COMMIT until the next live keyboard was in a DM
    update_id: int = 0
    start: float = 0.0  # split mode: the clock when the update was queued (the COMMIT is the other process's)
    keyboard_at: float | None = None  # split mode: the clock when the next live keyboard was seen


def hook_commits(app: App, commits: dict[int, float]) -> None:
    """Record the moment a press that applied a move has committed (the method returns right after):
    ``commits[update id] = clock()``. Instrumentation of the instance; no bot code changes."""
    assert app.services is not None
    play = app.services.play
    press, apply = play.press, play.apply

    async def timed_apply(*args: Any, **kwargs: Any) -> Any:
        box = _APPLIED.get()
        if box is not None:
            box.append(1)
        return await apply(*args, **kwargs)

    async def timed_press(table_id: int, version: int, index: int, actor: Any, lang: str,
                          update_id: int | None = None) -> Any:
        box: list[int] = []
        token = _APPLIED.set(box)
        try:
            answer = await press(table_id, version, index, actor, lang, update_id)
        finally:
            _APPLIED.reset(token)
        if box and update_id is not None:
            commits[update_id] = clock()
        return answer

    play.press = timed_press  # type: ignore[method-assign]  # the handlers' door (bot/handlers/play.py)
    play.apply = timed_apply  # type: ignore[method-assign]  # instrumentation: every applied move


class Bench:
    """The simulated players (and, in one process, the bot's instrumentation). In split mode it runs in
    the child with ``app`` None and asks the bot's process over ``link`` whether the bot is quiet."""

    def __init__(self, config: Config, fake: BenchFake, app: App | None, link: Link | None = None) -> None:
        self.config = config
        self.fake = fake
        self.app = app
        self.link = link
        self.commits: dict[int, float] = {}  # update id -> clock() at the move's COMMIT
        self.samples: list[Sample] = []
        self.feeding = 0
        if app is not None:
            hook_commits(app, self.commits)

    # -- getting updates to the bot ----------------------------------------------------------------
    def _take(self, update_id: int) -> dict[str, Any]:
        pending = self.fake.updates.pending
        for i, upd in enumerate(pending):
            if upd["update_id"] == update_id:
                del pending[i]
                return upd
        raise AssertionError(f"update {update_id} was not queued (privacy mode hid it?)")

    async def deliver(self, make: Any) -> tuple[int, float, float | None]:
        """Let the fake create an update (``make`` is the user's action), get it to the bot.
        Returns (update id, start of the clock, feed return time or None in polling mode)."""
        update_id = self.fake.updates.next_id
        if self.config.feed == "polling" or self.app is None:
            start = clock()
            await make
            return update_id, start, None
        await make
        update = self._take(update_id)
        self.feeding += 1
        try:
            start = clock()
            await self.app.dispatcher.feed_raw_update(self.app.bot, update)
            return update_id, start, clock()
        finally:
            self.feeding -= 1

    async def settle(self, timeout: float = 120.0) -> None:
        """Every update handled and every queued message delivered."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            await self.fake.idle(quiet=0.02, timeout=timeout)
            if self.app is None:  # split mode: the bot's process answers once it took every delivered update
                assert self.link is not None
                reply = await self.link.call({"op": "quiet", "upto": self.fake.updates.delivered_upto,
                                              "timeout": timeout})
                await self.fake.idle(quiet=0.02, timeout=timeout)
                if not reply["busy"] and not self.fake.updates.undelivered():
                    return
            elif not self.feeding and not self.app.busy():
                await self.app.outbox.drain(timeout=timeout)
                await self.fake.idle(quiet=0.02, timeout=timeout)
                if not self.feeding and not self.app.busy() and not self.fake.updates.undelivered():
                    return
            if loop.time() > deadline:
                raise AssertionError("the bot did not settle")
            await asyncio.sleep(0.01)

    # -- setup through the bot -----------------------------------------------------------------------
    async def setup(self, rng: random.Random) -> list[TableRun]:
        fake = self.fake
        runs: list[TableRun] = []
        for g in range(self.config.tables):
            users = [fake.user(first_name=f"P{g}.{s}", username=f"p{g}_{s}", language_code="en") for s in range(3)]
            group = fake.group(f"Bench {g}", members=users[1:], creator=users[0])
            run = TableRun(group, users, random.Random(rng.random()))
            for user in users:
                fake.watchers[user.id] = run.changed
            runs.append(run)
        # Someone added the bot to each group: Telegram tells the bot (my_chat_member), as in production.
        await asyncio.gather(*(self.deliver(_added(fake, r.group, r.users[0])) for r in runs))
        await asyncio.gather(*(self.deliver(u.start_bot()) for r in runs for u in r.users))
        await self.settle()
        await asyncio.gather(*(self.deliver(r.users[0].send(r.group, "/new carnival")) for r in runs))
        await self.settle()
        lobbies = {id(r): _lobby(r.group) for r in runs}
        for r in runs:
            r.table_id = int(_lobby_data(lobbies[id(r)], "join").split(":")[1])

        async def join(r: TableRun) -> None:
            for user in r.users[1:]:
                await self.deliver(user.press_data(lobbies[id(r)], _lobby_data(lobbies[id(r)], "join")))

        await asyncio.gather(*(join(r) for r in runs))
        await self.settle()
        await asyncio.gather(*(self.deliver(r.users[0].press_data(lobbies[id(r)], _lobby_data(lobbies[id(r)],
                                                                                               "start")))
                               for r in runs))
        await self.settle()
        return runs

    # -- play -------------------------------------------------------------------------------------------
    async def play(self, run: TableRun) -> None:
        cfg = self.config
        min_version, need_move = 0, False
        last_commit: float | None = None
        last_sample: Sample | None = None
        loop = asyncio.get_running_loop()
        while run.moves < cfg.moves:
            found = _live(run.users, min_version, need_move)
            if found is None:
                run.changed.clear()
                found = _live(run.users, min_version, need_move)
            if found is None:
                if _finished(run.group):
                    run.finished = True
                    return
                try:
                    await asyncio.wait_for(run.changed.wait(), cfg.timeout)
                except TimeoutError:
                    raise AssertionError(f"table {run.table_id}: no live keyboard for {cfg.timeout}s after "
                                         f"{run.moves} moves") from None
                continue
            if last_sample is not None and last_commit is not None:
                last_sample.next_keyboard = clock() - last_commit
                last_sample = None
            elif last_sample is not None:  # split mode: the COMMIT's time comes from the bot's process later
                last_sample.keyboard_at = clock()
                last_sample = None
            user, message, buttons = found
            moves = [b for b in buttons if b["callback_data"].startswith("mv:")]
            if cfg.think_ms > 0 and not need_move:
                await asyncio.sleep(run.rng.expovariate(1000.0 / cfg.think_ms))
            if moves:
                data = run.rng.choice(moves)["callback_data"]
            else:  # only second-step buttons (a joker: over or under?): open one, then move from it
                data = run.rng.choice(buttons)["callback_data"]
            version = int(data.split(":")[2])
            update_id, start, handled = await self.deliver(user.press_data(message, data))
            if not moves:
                run.menus += 1
                min_version, need_move = version, True
                continue
            if self.app is None:  # split mode: the next keyboard shows it was applied; the COMMIT comes later
                sample = Sample(run.moves, float("nan"), None, update_id=update_id, start=start)
                if run.moves >= cfg.warmup:
                    self.samples.append(sample)
                    last_sample = sample
                run.moves += 1
                min_version, need_move = version + 1, False
                continue
            if cfg.feed == "polling":
                commit = await self._wait_commit(update_id, loop.time() + cfg.timeout)
            else:
                if update_id not in self.commits:
                    raise AssertionError(f"table {run.table_id}: a press of a live button was not applied")
                commit = self.commits.pop(update_id)
            sample = Sample(run.moves, commit - start, None if handled is None else handled - start)
            if run.moves >= cfg.warmup:
                self.samples.append(sample)
                last_sample, last_commit = sample, commit
            run.moves += 1
            min_version, need_move = version + 1, False

    async def _wait_commit(self, update_id: int, deadline: float) -> float:
        loop = asyncio.get_running_loop()
        while update_id not in self.commits:
            if loop.time() > deadline:
                raise AssertionError(f"update {update_id} was never applied")
            await asyncio.sleep(0.002)
        return self.commits.pop(update_id)


async def _added(fake: BenchFake, group: FakeChat, by: FakeUser) -> None:
    fake.emit_my_chat_member(group, by, "left", group.bot_status)


def _lobby(group: FakeChat) -> StoredMessage:
    for message in group.messages():
        if any(str(b.get("callback_data", "")).startswith("lb:") for b in message.buttons):
            return message
    raise AssertionError(f"no lobby message in {group}")


def _lobby_data(message: StoredMessage, op: str) -> str:
    for b in message.buttons:
        data = str(b.get("callback_data", ""))
        if data.startswith("lb:") and data.split(":")[2] == op:
            return data
    raise AssertionError(f"no {op} button on the lobby: {message.button_texts}")


def _live(users: list[FakeUser], min_version: int, need_move: bool
          ) -> tuple[FakeUser, StoredMessage, list[dict[str, Any]]] | None:
    """The DM message with play buttons of at least ``min_version`` (the player to act), if delivered yet."""
    for user in users:
        for message in reversed(user.dm.messages_by_id.values()):
            if message.deleted or not message.from_bot:
                continue
            buttons = [b for b in message.buttons if str(b.get("callback_data", "")).startswith(("mv:", "mn:"))]
            if not buttons or int(buttons[0]["callback_data"].split(":")[2]) < min_version:
                continue
            if need_move and not any(b["callback_data"].startswith("mv:") for b in buttons):
                continue
            return user, message, buttons
    return None


def _finished(group: FakeChat) -> bool:
    return any("🏁" in m.content for m in list(group.messages_by_id.values())[-5:])


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def run_bench(config: Config) -> dict[str, Any]:
    """Set up ``config.tables`` tables through the bot, play, and return the measurements."""
    return await (_run_split(config) if config.split else _run_bench(config))


def _fake_limits(config: Config) -> RateLimits:
    return RateLimits() if config.telegram else RateLimits.off()


def _settings(config: Config, fake: Any, db: Path) -> Any:
    """The bot's settings against ``fake`` (anything with ``token`` and ``base_url``)."""
    pacing = {"KOZYR_PER_CHAT_INTERVAL": 1.05, "KOZYR_GROUP_PER_MINUTE": 20,
              "KOZYR_GLOBAL_PER_SECOND": 30} if config.telegram else {}
    if config.ping_after is not None:
        pacing["KOZYR_PING_AFTER"] = config.ping_after
    return settings_for(fake, db, KOZYR_POLLING_TIMEOUT=1, KOZYR_SQLITE_DRIVER=config.driver,
                        KOZYR_PICTURES=config.pictures, KOZYR_PAID_BROADCAST_STARS_PER_HOUR=config.paid, **pacing)


_LITERAL = re.compile(r"'(?:[^']|'')*'|x'[0-9a-fA-F]*'|(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?")


def _statement(text: str) -> str:
    """A traced statement by its first words, its literals as "?": the trace expands the parameters, and
    the same statement with other values is counted as one."""
    return " ".join(_LITERAL.sub("?", text).split())[:70]


class BotMarks:
    """The bot's counters at the start of play, and what they grew by until the end (the bot's process)."""

    def __init__(self, app: App, sql: bool = False) -> None:
        self.app = app
        self.statements: Counter[str] | None = None
        if sql:  # by their first words, literals as "?"; the connection is the inline driver's sqlite3 one
            statements = self.statements = Counter()
            app.store._db._db.set_trace_callback(lambda text: statements.update((_statement(text),)))
        self.lags = len(app.outbox.group_lags)
        self.syncs, self.commits = app.store.wal.syncs, app.store.wal.committed
        self.drawn, self.replaced = app.outbox.pictures_drawn, app.outbox.pictures_replaced
        self.cpu, self.loop_cpu = time.process_time(), time.thread_time()
        self.gc_runs = [0, 0, 0]  # collections by generation during play, and the CPU they took
        self.gc_s = [0.0, 0.0, 0.0]
        self._gc_began = 0.0
        gc.callbacks.append(self._gc)

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        """The garbage collector's own CPU, by generation: allocation-heavy code pays it where it allocates."""
        if phase == "start":
            self._gc_began = time.thread_time()
        else:
            self.gc_runs[info["generation"]] += 1
            self.gc_s[info["generation"]] += time.thread_time() - self._gc_began

    def grown(self) -> dict[str, Any]:
        app = self.app
        if self._gc in gc.callbacks:
            gc.callbacks.remove(self._gc)
        if self.statements is not None:
            app.store._db._db.set_trace_callback(None)
        return {"sql": dict(self.statements.most_common()) if self.statements is not None else {},
                "cpu_s": time.process_time() - self.cpu, "loop_cpu_s": time.thread_time() - self.loop_cpu,
                "gc_runs": self.gc_runs, "gc_s": self.gc_s,
                "commits": app.store.wal.committed - self.commits, "fsyncs": app.store.wal.syncs - self.syncs,
                "pictures_drawn": app.outbox.pictures_drawn - self.drawn,
                "pictures_replaced": app.outbox.pictures_replaced - self.replaced,
                "group_lag_s": _summary(list(app.outbox.group_lags)[self.lags:])}


class FakeMarks:
    """The fake's counters at the start of play, and the calls, answers and moves since (the fake's process)."""

    def __init__(self, fake: BenchFake) -> None:
        self.fake = fake
        self.calls = len(fake.calls)
        self.served_429 = fake.limiter.served_429
        self.paid = fake.limiter.paid_messages
        self.handle = fake.handle_seconds
        self.callbacks = len(fake.callbacks)

    def grown(self, runs: list[TableRun]) -> dict[str, Any]:
        fake = self.fake
        moves = sum(r.moves for r in runs)
        calls = [c for c in fake.calls[self.calls:] if c.method != "getUpdates"]
        by_method = Counter(c.method for c in calls)
        errors = Counter(f"{c.method} {c.error_code}: {c.description}" for c in calls if not c.ok)
        answers = by_method.get("answerCallbackQuery", 0)

        def per_move(n: int) -> float:
            return round(n / moves, 3) if moves else 0.0

        return {
            "moves": moves, "menu_presses": sum(r.menus for r in runs),
            "finished_tables": sum(r.finished for r in runs),
            "api_calls": len(calls), "api_calls_per_move": per_move(len(calls)), "answer_callback_calls": answers,
            "message_calls_per_move": per_move(len(calls) - answers),
            "group_calls_per_move": per_move(sum(1 for c in calls if c.method in MESSAGE_METHODS and _chat(c) < 0)),
            "dm_calls_per_move": per_move(sum(1 for c in calls if c.method in MESSAGE_METHODS and _chat(c) > 0)),
            "by_method": dict(by_method.most_common()), "errors": dict(errors.most_common()),
            "served_by_method": dict(Counter(c.method for c in calls if c.ok)),
            "paid_messages": fake.limiter.paid_messages - self.paid, "count_edits": fake.limiter.limits.count_edits,
            "late_answers": sum(1 for c in list(fake.callbacks.values())[self.callbacks:] if c.late),
            "unanswered_callbacks": len(fake.unanswered_callbacks()),
            "setup_get_chat_member": sum(1 for c in fake.calls[:self.calls] if c.method == "getChatMember"),
            "served_429": fake.limiter.served_429 - self.served_429,
            "group_new_messages": sum(1 for c in calls if c.method in ("sendMessage", "sendPhoto") and _chat(c) < 0),
            "fake_server_s": round(fake.handle_seconds - self.handle, 2),
        }


async def _run_bench(config: Config) -> dict[str, Any]:
    rng = random.Random(config.seed)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="kozyr-bench-") as tmp:
        fake = BenchFake(limits=_fake_limits(config), callback_timeout=15.0)
        async with fake:
            app = App(_settings(config, fake, Path(tmp) / "bench.sqlite3"))
            await app.start()
            if config.freeze:  # as App.serve does in production (bot/heap.py)
                heap.settle()
            bench = Bench(config, fake, app)
            if config.feed == "polling":
                app.start_polling()
            try:
                t_setup = time.perf_counter()
                runs = await bench.setup(rng)
                setup_s = time.perf_counter() - t_setup
                if config.backlog:
                    await _backlog(app, fake, config.backlog)
                fake_marks = FakeMarks(fake)
                gc.collect()
                profiler = cProfile.Profile() if config.profile else None
                bot_marks = BotMarks(app, config.sql)
                wall0 = time.perf_counter()
                if profiler is not None:
                    profiler.enable()
                await asyncio.gather(*(bench.play(r) for r in runs))
                play_s = time.perf_counter() - wall0
                if config.backlog:  # the backlog's chat is not part of the game: take it away again
                    async with app.store.transaction() as tx:
                        await tx.db.execute("DELETE FROM outbox WHERE chat_id = ?", (BACKLOG_CHAT,))
                await bench.settle()
                if profiler is not None and config.profile:
                    profiler.disable()
                    profiler.dump_stats(config.profile)
                drain_s = time.perf_counter() - wall0 - play_s
                bot_side = bot_marks.grown()
                fake_side = fake_marks.grown(runs)
                async with app.store.read() as tx:
                    bot_side["outbox_left"] = await tx.outbox_counts()
                bot_side["db_bytes"] = Path(tmp, "bench.sqlite3").stat().st_size
            finally:
                await app.stop()
    fake_side.update(setup_s=setup_s, play_s=play_s, drain_s=drain_s)
    return _assemble(config, fake_side, bot_side, bench.samples, load_before)


def _assemble(config: Config, fake_side: dict[str, Any], bot_side: dict[str, Any], samples: list[Sample],
              load_before: tuple[float, ...]) -> dict[str, Any]:
    """One result from the two sides' measurements (the same keys in both modes)."""
    moves = fake_side["moves"]
    play_s = fake_side["play_s"]
    cpu_s, loop_cpu_s = bot_side["cpu_s"], bot_side["loop_cpu_s"]
    commit_ms = [s.commit * 1000 for s in samples]
    handled_ms = [s.handled * 1000 for s in samples if s.handled is not None]
    keyboard_ms = [s.next_keyboard * 1000 for s in samples if s.next_keyboard is not None]
    result = {
        "config": config.__dict__, **fake_side, **bot_side,
        "setup_s": round(fake_side["setup_s"], 2), "play_s": round(play_s, 2),
        "drain_s": round(fake_side["drain_s"], 2), "cpu_s": round(cpu_s, 2), "loop_cpu_s": round(loop_cpu_s, 2),
        "measured_moves": len(commit_ms), "moves_per_s": round(moves / play_s, 1) if play_s else 0.0,
        "commit_ms": _summary(commit_ms), "handled_ms": _summary(handled_ms), "next_keyboard_ms": _summary(keyboard_ms),
        "loadavg_before": load_before, "loadavg_after": os.getloadavg(),
    }
    if config.split:  # the bot's process alone; the fake's (server and players) is reported apart
        result["cpu_ms_per_move"] = result["bot_cpu_ms_per_move"] = round(cpu_s * 1000 / moves, 2) if moves else 0.0
        result["fake_cpu_ms_per_move"] = round(fake_side["fake_cpu_s"] * 1000 / moves, 2) if moves else 0.0
    else:
        result["cpu_ms_per_move"] = round(cpu_s * 1000 / moves, 2) if moves else 0.0
        result["bot_cpu_ms_per_move"] = (round((loop_cpu_s - fake_side["fake_server_s"]) * 1000 / moves, 2)
                                         if moves else 0.0)
    return result


# -- split mode: the fake server and the players in a child process ----------------------------------------
class Link:
    """JSON lines over a socket pair between the bot's process and the fake's."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def over(cls, sock: socket.socket) -> Link:
        reader, writer = await asyncio.open_connection(sock=sock, limit=1 << 28)
        return cls(reader, writer)

    async def send(self, message: dict[str, Any]) -> None:
        self.writer.write(json.dumps(message).encode() + b"\n")
        await self.writer.drain()

    async def recv(self) -> dict[str, Any]:
        line = await self.reader.readline()
        if not line:
            raise EOFError("the other process of the benchmark went away")
        message: dict[str, Any] = json.loads(line)
        return message

    async def call(self, message: dict[str, Any]) -> dict[str, Any]:
        await self.send(message)
        return await self.recv()


async def _run_split(config: Config) -> dict[str, Any]:
    """The bot's side: start the child (fake server and players), run the bot against it by long polling
    (updates through getUpdates and the inbox, as in production), answer the child's questions, and
    measure this process's CPU during play."""
    if config.backlog:
        raise SystemExit("--backlog needs the fake and the bot in one process (no --split)")
    load_before = os.getloadavg()
    ours, theirs = socket.socketpair()
    child = await asyncio.create_subprocess_exec(sys.executable, str(Path(__file__).resolve()), "--child",
                                                 str(theirs.fileno()), pass_fds=(theirs.fileno(),))
    theirs.close()
    link = await Link.over(ours)
    try:
        await link.send({"op": "config", "config": config.__dict__})
        hello = await link.recv()
        with tempfile.TemporaryDirectory(prefix="kozyr-bench-") as tmp:
            where = SimpleNamespace(token=hello["token"], base_url=hello["base_url"])
            app = App(_settings(config, where, Path(tmp) / "bench.sqlite3"))
            await app.start()
            try:
                if config.freeze:
                    heap.settle()
                commits: dict[int, float] = {}
                hook_commits(app, commits)
                accepted = _hook_accepted(app)
                stages = Stages() if config.stages else None
                if stages is not None:
                    stages.hook(app)
                app.start_polling()
                await link.send({"op": "started"})
                bot_side, fake_side, raw = await _serve_child(config, app, link, accepted, stages)
                async with app.store.read() as tx:
                    bot_side["outbox_left"] = await tx.outbox_counts()
                bot_side["db_bytes"] = Path(tmp, "bench.sqlite3").stat().st_size
            finally:
                await app.stop()
        await link.send({"op": "bye"})
    finally:
        if await _exited(child, 30.0) is None:
            child.kill()
        await child.wait()
    samples = []
    for move, update_id, start, keyboard_at in raw:
        commit = commits.get(update_id)
        if commit is None:
            raise AssertionError(f"update {update_id} was pressed on a live button but never applied")
        samples.append(Sample(move, commit - start, None,
                              None if keyboard_at is None else keyboard_at - commit, update_id, start))
    return _assemble(config, fake_side, bot_side, samples, load_before)


async def _exited(process: asyncio.subprocess.Process, timeout: float) -> int | None:
    try:
        return await asyncio.wait_for(process.wait(), timeout)
    except TimeoutError:
        return None


def _hook_accepted(app: App) -> list[int]:
    """``[highest update id the intake has taken]``: the child's settle asks for everything it delivered."""
    intake = app.intake
    assert intake is not None
    accept_all = intake.accept_all  # the polling loop's door (the webhook's is ``accept``, which calls it)
    box = [0]

    async def counted(updates: list[Any]) -> int:
        try:
            return await accept_all(updates)
        finally:
            box[0] = max([box[0], *(u.update_id for u in updates)])

    intake.accept_all = counted  # type: ignore[method-assign]  # instrumentation only
    return box


async def _serve_child(config: Config, app: App, link: Link, accepted: list[int], stages: Stages | None = None
                       ) -> tuple[dict[str, Any], dict[str, Any], list[list[Any]]]:
    """Answer the child until it reports the end of play: whether the bot is quiet, and when play starts
    (this process's counters and CPU clock are taken then, the profiler started)."""
    # The event loop thread's CPU time, not the wall clock: the fake's process shares the cores.
    profiler = cProfile.Profile(time.thread_time) if config.profile else None
    sampler = Sampler() if config.sample else None
    marks: BotMarks | None = None
    loop = asyncio.get_running_loop()
    while True:
        message = await link.recv()
        if message["op"] == "quiet":
            deadline = loop.time() + message["timeout"]
            while (accepted[0] < message["upto"] or app.busy()) and loop.time() < deadline:
                await asyncio.sleep(0.005)
            await app.outbox.drain(timeout=message["timeout"])
            await link.send({"busy": app.busy() or accepted[0] < message["upto"]})
        elif message["op"] == "play":
            gc.collect()
            marks = BotMarks(app, config.sql)
            if profiler is not None:
                profiler.enable()
            if sampler is not None:
                sampler.start()
            if stages is not None:
                stages.on = True
            await link.send({"ok": True})
        elif message["op"] == "end":
            assert marks is not None
            if profiler is not None and config.profile:
                profiler.disable()
                profiler.dump_stats(config.profile)
            if sampler is not None and config.sample:
                sampler.stop(config.sample)
            if stages is not None:
                stages.on = False
                served = {int(k): v for k, v in message["served"].items()}
                queued = {s[1]: s[2] for s in message["samples"]}
                print(stages.report(served, queued, list(queued)))
            return marks.grown(), message["fake"], message["samples"]
        else:
            raise AssertionError(f"unknown request from the fake's process: {message}")


async def _child(fd: int) -> None:
    """The fake's side: the fake Bot API server and the simulated players; the bot is the parent."""
    link = await Link.over(socket.socket(fileno=fd))
    config = Config(**(await link.recv())["config"])
    fake = BenchFake(limits=_fake_limits(config), callback_timeout=15.0)
    served: dict[int, float] = {}
    if config.stages:  # when getUpdates first handed each update out
        get = fake.updates.get

        async def served_get(*args: Any) -> list[dict[str, Any]]:
            batch = await get(*args)
            now = clock()
            for u in batch:
                served.setdefault(u["update_id"], now)
            return batch

        fake.updates.get = served_get  # type: ignore[method-assign]
    async with fake:
        await link.send({"op": "hello", "token": fake.token, "base_url": fake.base_url})
        await link.recv()  # the bot has started
        bench = Bench(config, fake, None, link)
        t_setup = time.perf_counter()
        runs = await bench.setup(random.Random(config.seed))
        setup_s = time.perf_counter() - t_setup
        marks = FakeMarks(fake)
        await link.call({"op": "play"})
        gc.collect()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        await asyncio.gather(*(bench.play(r) for r in runs))
        play_s = time.perf_counter() - wall0
        await bench.settle()
        drain_s = time.perf_counter() - wall0 - play_s
        fake_side = marks.grown(runs)
        fake_side.update(setup_s=setup_s, play_s=play_s, drain_s=drain_s, fake_cpu_s=time.process_time() - cpu0)
        samples = [[s.move, s.update_id, s.start, s.keyboard_at] for s in bench.samples]
        await link.send({"op": "end", "fake": fake_side, "samples": samples, "served": served})
        await link.recv()  # the bot has stopped (it may still deliver on its way out)


BACKLOG_CHAT = -999_999_999


async def _backlog(app: App, fake: BenchFake, rows: int) -> None:
    """Queue ``rows`` messages for one chat nobody plays in, which the fake makes slow (a group at
    Telegram's 20 a minute): the other tables' moves must not pay for it."""
    chat = fake.group("Backlog")
    global BACKLOG_CHAT
    BACKLOG_CHAT = chat.id
    fake.limiter.limits.group_per_window = None  # the fake stays unlimited; the bot's own pacing holds it
    app.outbox.limiter.next_at[chat.id] = time.monotonic() + 3600  # as if rate limited for the whole run
    payload = '{"text":"backlog","markup":null,"thread":0}'
    async with app.store.transaction() as tx:
        await tx.db.executemany("INSERT INTO outbox(chat_id, method, payload, priority, created_at) "
                                "VALUES (?, 'send', ?, 1, ?)", [(chat.id, payload, time.time())] * rows)
    app.store.queued.add(chat.id)


def _chat(call: Any) -> int:
    chat_id = call.params.get("chat_id")
    return chat_id if isinstance(chat_id, int) else 0


def _summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50": round(_pct(values, 0.50), 2), "p90": round(_pct(values, 0.90), 2),
            "p99": round(_pct(values, 0.99), 2), "max": round(max(values), 2),
            "mean": round(statistics.fmean(values), 2)}


def report(r: dict[str, Any]) -> str:
    cfg = r["config"]
    moves = r["moves"] or 1
    lines = [
        f"Kozyr bot benchmark: {cfg['tables']} Carnival tables x 3 humans, {cfg['moves']} moves/table "
        f"(first {cfg['warmup']} not timed), think {cfg['think_ms']:.0f} ms mean, feed={cfg['feed']}, "
        f"{'pictures' if cfg['pictures'] else 'text tables'}"
        f", SQLite driver {cfg['driver']}, "
        + ("fake server and players in their own process (updates by long polling)" if cfg.get("split") else
           "fake server, players and bot in one process"),
        f"setup {r['setup_s']} s; play {r['play_s']} s, then outbox drained in {r['drain_s']} s; "
        + (f"the bot's process CPU {r['cpu_s']} s (event loop thread {r['loop_cpu_s']} s), the fake's process "
           f"{r['fake_cpu_s']:.2f} s" if cfg.get("split") else
           f"process CPU {r['cpu_s']} s, event loop thread {r['loop_cpu_s']} s (the fake server's request "
           f"handling ~{r['fake_server_s']} s of wall time)"),
        f"moves {r['moves']} ({r['measured_moves']} timed), menu presses {r['menu_presses']}, "
        f"finished games {r['finished_tables']}, SQLite file {r['db_bytes'] / 1e6:.1f} MB",
        "",
        f"{'metric':44} {'p50':>8} {'p90':>8} {'p99':>8} {'max':>8}",
    ]
    for label, key in (("update -> move committed (ms)", "commit_ms"),
                       ("update -> handled, answer sent (ms)", "handled_ms"),
                       ("commit -> next player's keyboard in DM (ms)", "next_keyboard_ms")):
        s = r[key]
        if s.get("n"):
            lines.append(f"{label:44} {s['p50']:8.2f} {s['p90']:8.2f} {s['p99']:8.2f} {s['max']:8.2f}")
    lag = r["group_lag_s"]
    if lag.get("n"):
        lines.append(f"{'commit -> group shows it (s)':44} {lag['p50']:8.2f} {lag['p90']:8.2f} {lag['p99']:8.2f} "
                     f"{lag['max']:8.2f}")
    if cfg.get("backlog"):
        lines.append(f"(with {cfg['backlog']} rows queued for one other, rate-limited chat during the whole run)")
    lines += ["", f"moves handled per second: {r['moves_per_s']}",
              (f"CPU per move: {r['cpu_ms_per_move']:.2f} ms in the bot's process (alone: its own CPU clock); "
               f"the fake's process (server and players) {r['fake_cpu_ms_per_move']:.2f} ms" if cfg.get("split") else
               f"CPU per move: {r['cpu_ms_per_move']:.2f} ms for the whole process (bot, fake server and simulated "
               f"players); about {r['bot_cpu_ms_per_move']:.2f} ms without the fake server's request handling"),
              f"garbage collector: {sum(r['gc_runs'])} collections ({r['gc_runs'][2]} full), "
              f"{sum(r['gc_s']) * 1000 / moves:.2f} ms per move ({r['gc_s'][2] * 1000 / moves:.2f} in full ones)"
              + ("" if cfg.get("split") else " (the whole process's)"),
              f"commits {r['commits']}, fsyncs {r['fsyncs']} (group commit: {r['commits'] / max(1, r['fsyncs']):.1f} "
              f"commits per fsync); getChatMember calls during setup {r['setup_get_chat_member']}",
              f"pictures drawn {r['pictures_drawn']}, replaced while drawn (not sent) {r['pictures_replaced']}",
              f"new group messages: {r['group_new_messages']} ({r['group_new_messages'] / moves:.3f} per move)",
              f"Bot API calls: {r['api_calls']} = {r['api_calls_per_move']:.2f} per move; "
              f"answerCallbackQuery {r['answer_callback_calls']} ({r['answer_callback_calls'] / moves:.2f} per move); "
              f"message calls {r['message_calls_per_move']:.2f} per move "
              f"(group chats {r['group_calls_per_move']:.2f}, DMs {r['dm_calls_per_move']:.2f})"]
    for method, n in r["by_method"].items():
        lines.append(f"    {method:28} {n:7d}  {n / moves:6.3f} per move")
    if r["errors"]:
        lines.append("errors served by the fake:")
        lines += [f"    {n:6d}  {e}" for e, n in r["errors"].items()]
    lines.append(f"429 Too Many Requests served: {r['served_429']}"
                 + (" (Telegram's limits on, bot pacing at production values)" if cfg.get("telegram") else
                    " (limits off)"))
    lines += ceiling_report(r["served_by_method"], moves, r["count_edits"])
    if cfg.get("paid"):
        stars = r["paid_messages"] / 10
        lines.append(f"paid broadcasts (budget {cfg['paid']:g} Stars an hour): {r['paid_messages']} messages, "
                     f"{stars:g} Stars in {r['play_s']} s of play = {stars * 3600 / max(r['play_s'], 1e-9):,.0f} "
                     f"Stars an hour at this rate")
    if r.get("sql"):
        total = sum(r["sql"].values())
        lines.append(f"SQL statements {total} = {total / moves:.1f} per move:")
        lines += [f"    {text:70} {n:7d}  {n / moves:6.2f} per move" for text, n in r["sql"].items()]
    lines.append(f"late callback answers {r['late_answers']}, unanswered {r['unanswered_callbacks']}, "
                 f"outbox left {r['outbox_left'] or 'empty'}")
    p99 = r["commit_ms"].get("p99", float("nan"))
    scale = "" if cfg["tables"] >= TARGET_TABLES else f" (only {cfg['tables']} tables: not the target's load)"
    lines += ["", "targets:",
              f"    p99 update -> commit < {TARGET_P99_MS:.0f} ms at {TARGET_TABLES} tables: {p99:.2f} ms  "
              f"{'PASS' if p99 < TARGET_P99_MS else 'MISS'}{scale}",
              f"    <= {TARGET_CALLS_PER_MOVE:.0f} Bot API message calls per move (answerCallbackQuery apart): "
              f"{r['message_calls_per_move']:.2f}  "
              f"{'PASS' if r['message_calls_per_move'] <= TARGET_CALLS_PER_MOVE else 'MISS'} "
              f"(with answerCallbackQuery: {r['api_calls_per_move']:.2f})",
              f"load average before {' '.join(f'{x:.2f}' for x in r['loadavg_before'])}, "
              f"after {' '.join(f'{x:.2f}' for x in r['loadavg_after'])} ({os.cpu_count()} CPUs)"]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> tuple[Config, bool]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, help="concurrent tables (default 200, --quick 20)")
    p.add_argument("--moves", type=int, help="moves per table after the start (default 20, --quick 8)")
    p.add_argument("--warmup", type=int, default=2, help="first moves of each table not timed (default 2)")
    p.add_argument("--think", type=float, default=2000.0,
                   help="mean think time of a player in ms, exponential (default 2000; 0: press at once)")
    p.add_argument("--feed", choices=("direct", "polling"), default="direct",
                   help="in one process: how updates reach the dispatcher (--split always polls)")
    p.add_argument("--split", action="store_true",
                   help="the fake server and the players in a child process; the bot polls it over HTTP")
    p.add_argument("--child", type=int, help=argparse.SUPPRESS)  # split mode's child: the socket's fd
    p.add_argument("--sql", action="store_true",
                   help="count the bot's SQL statements during play (a trace callback, which costs CPU)")
    p.add_argument("--stages", action="store_true", help="--split: where a press's time goes, stage by stage")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds a table may wait for a keyboard")
    p.add_argument("--quick", action="store_true", help="a small smoke run")
    p.add_argument("--json", action="store_true", help="print the measurements as JSON too")
    p.add_argument("--pictures", action="store_true", help="tables as pictures (off: text, as the tests run)")
    p.add_argument("--driver", choices=["inline", "thread"], default="inline",
                   help="the store's SQLite driver: inline (sqlite3 on the loop, the default) or thread (aiosqlite)")
    p.add_argument("--profile", metavar="FILE",
                   help="cProfile the event loop during play into FILE (--split: the bot's loop thread, CPU time)")
    p.add_argument("--sample", metavar="FILE", help="--split: sample the bot's process's CPU during play "
                   "(bench/sampler.py, collapsed stacks) into FILE; `python bench/sampler.py FILE` prints the top")
    p.add_argument("--telegram", action="store_true",
                   help="Telegram's rate limits in the fake server and the bot's pacing at production values")
    p.add_argument("--paid", type=float, default=0.0, metavar="STARS",
                   help="KOZYR_PAID_BROADCAST_STARS_PER_HOUR: sends past the free 30/s go paid (with --telegram)")
    p.add_argument("--ping-after", type=float, metavar="S",
                   help="KOZYR_PING_AFTER: seconds after a player's press within which their turn edits the hand")
    p.add_argument("--backlog", type=int, default=0,
                   help="queue this many outbox rows for one extra, rate-limited chat before play (e.g. 200000)")
    a = p.parse_args(argv)
    config = Config(tables=a.tables or (20 if a.quick else 200), moves=a.moves or (8 if a.quick else 20),
                    warmup=a.warmup, think_ms=a.think, feed=a.feed, seed=a.seed, timeout=a.timeout,
                    pictures=a.pictures, driver=a.driver, profile=a.profile, backlog=a.backlog,
                    telegram=a.telegram, split=a.split, sample=a.sample, sql=a.sql,
                    stages=a.stages, paid=a.paid, ping_after=a.ping_after)
    if a.split:
        config.feed = "polling"
    return config, a.json


def main(argv: list[str] | None = None) -> dict[str, Any]:
    if argv is None and len(sys.argv) == 3 and sys.argv[1] == "--child":
        asyncio.run(_child(int(sys.argv[2])))
        return {}
    config, as_json = parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    result = asyncio.run(run_bench(config))
    print(report(result))
    if as_json:
        print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
