"""The SQLite store: one connection, one writer, explicit transactions, WAL.

Every change the bot makes (a move, a join, an outgoing message) happens inside
``async with store.transaction() as tx``: either all of it is on disk or none of it is,
so a crash at any moment loses nothing and applies nothing twice.
"""

from __future__ import annotations

import asyncio
import inspect
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiosqlite

from bot import codec
from bot.store.migrate import upgrade
from bot.store.queries import SharedQueries, outbox_row
from bot.store.rows import Aged, OutboxRow, SeatRow, TableRow, TableUi, UserRow, unsent_log

__all__ = ["OutboxRow", "SeatRow", "Store", "TableRow", "Tx", "UserRow"]
from bot.store.walsync import WalSync

OPEN = ("lobby", "playing")
LEAGUE_CHAT_TABLES = ("league_config", "league_matches", "league_ratings", "league_excluded", "league_seasons",
                      "league_log")

BUSY_TIMEOUT_MS = 0  # SQLite's own lock wait blocks the thread it runs on: the event loop's (see _begin)
ADMITTED_LIMIT = 100_000  # update ids kept in Store.admitted at most
LOCK_PATIENCE = 120.0  # seconds a transaction waits for another connection's lock before it fails


def is_busy(exc: BaseException) -> bool:
    """A transient lock error (another connection writes): worth waiting for and retrying."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def _table(row: sqlite3.Row) -> TableRow:
    return TableRow(
        id=row["id"], chat_id=row["chat_id"], thread_id=row["thread_id"], game=row["game"],
        status=row["status"], creator_id=row["creator_id"], options=codec.loads(row["options"]),
        seed=row["seed"], version=row["version"],
        state=codec.loads(row["state"]) if row["state"] else None, ui=TableUi.from_json(codec.loads(row["ui"])),
        updated_at=row["updated_at"],
    )


def _user(row: sqlite3.Row) -> UserRow:
    return UserRow(row["user_id"], row["first_name"], row["username"], row["lang"], bool(row["started"]),
                   bool(row["blocked"]))


class Known:
    """Users', chats' and tables' seats rows as committed, kept in memory: a move asked for the players'
    languages and the group's title and language four to six times (each hand message, the table's news),
    the middleware for the presser's row on every update, every press for its table's seats
    (bench/bot.py --sql).

    Why it is safe here and only here: this process is the database's one writer (bot/store/lock.py) and
    every change to ``users``, ``chats`` and ``seats`` goes through this module's ``Tx`` methods, which drop the entry
    they change. A transaction that changed an entry reads it from the database until it ends (it may still
    roll back), so only committed rows are kept. The PostgreSQL store shares the database with other
    workers, which change rows this process would not hear of: it reads every time. Bounded: the oldest
    entries go first."""

    LIMIT = 20_000  # entries of each kind

    def __init__(self) -> None:
        self.users: dict[int, UserRow | None] = {}
        # (title, lang, hands, bot_admin, bot_rights_known); None: no row
        self.chats: dict[int, tuple[str, str, str, int, int] | None] = {}
        self.seats: dict[int, tuple[tuple[int, int | None, str], ...]] = {}  # a table's seats, in order

    @classmethod
    def keep(cls, kept: dict[int, Any], key: int, value: Any) -> None:
        if len(kept) >= cls.LIMIT:
            del kept[next(iter(kept))]
        kept[key] = value


class Tx(SharedQueries):
    """The queries of one transaction (or of one read under the store's lock)."""

    def __init__(self, db: Any, queued: set[int] | None = None, known: Known | None = None) -> None:
        self.db = db
        self.queued = queued  # chats that got an outbox row: the outbox worker looks at them first
        self.known = known if known is not None else Known()
        self._changed_users: set[int] = set()  # rows this transaction changed: not kept until it ends
        self.admitted: list[int] = []  # updates this transaction took into the inbox (``Store.admitted``)
        self._changed_chats: set[int] = set()
        self._changed_seats: set[int] = set()

    def _user_changed(self, user_id: int) -> None:
        self.known.users.pop(user_id, None)
        self._changed_users.add(user_id)

    def _chat_changed(self, chat_id: int) -> None:
        self.known.chats.pop(chat_id, None)
        self._changed_chats.add(chat_id)

    # Each aiosqlite call is a round trip to its thread (execute, fetch and close would be three);
    # execute_fetchall does the whole query in one, which matters when a move makes dozens of queries.
    async def _one(self, sql: str, *args: Any) -> sqlite3.Row | None:
        rows = await self.db.execute_fetchall(sql, args)
        return next(iter(rows), None)

    async def _all(self, sql: str, *args: Any) -> list[sqlite3.Row]:
        return list(await self.db.execute_fetchall(sql, args))

    async def _run(self, sql: str, *args: Any) -> int:
        cur = await self.db.execute(sql, args)
        return int(cur.rowcount)

    async def _run_many(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            await self.db.executemany(sql, rows)

    async def _tuples(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        """Rows as plain tuples: a rebuild reads every seat of every match, and sqlite3.Row costs twice the time."""
        cur = await self.db.execute(sql, args)
        cur.row_factory = None
        rows = cur.fetchall()
        return list(await rows) if inspect.isawaitable(rows) else rows  # aiosqlite's fetchall is a coroutine

    # -- updates ------------------------------------------------------------------
    async def seen_update(self, update_id: int) -> bool:
        return await self._one("SELECT 1 FROM updates WHERE update_id = ?", update_id) is not None

    async def inbox_put(self, update_id: int, payload: str) -> bool:
        fresh = await super().inbox_put(update_id, payload)
        if fresh:
            self.admitted.append(update_id)
        return fresh

    async def mark_update(self, update_id: int) -> bool:
        """Record an update as handled; False when it already was."""
        cur = await self.db.execute("INSERT OR IGNORE INTO updates(update_id) VALUES (?)", (update_id,))
        return cur.rowcount == 1

    # -- users and chats ----------------------------------------------------------
    async def upsert_user(self, user_id: int, first_name: str, username: str | None, lang: str) -> None:
        self._user_changed(user_id)
        await self.db.execute(
            "INSERT INTO users(user_id, first_name, username, lang) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(user_id) DO UPDATE SET first_name = excluded.first_name, username = excluded.username, "
            "lang = CASE WHEN users.lang_set THEN users.lang ELSE excluded.lang END",
            (user_id, first_name, username, lang),
        )

    async def user(self, user_id: int) -> UserRow | None:
        kept = self.known.users
        if user_id in kept:
            found = kept[user_id]
            return replace(found) if found is not None else None  # a copy: the caller may change it
        row = await self._one("SELECT * FROM users WHERE user_id = ?", user_id)
        user = _user(row) if row else None
        if user_id not in self._changed_users:
            Known.keep(kept, user_id, replace(user) if user is not None else None)
        return user

    async def set_user_started(self, user_id: int, started: bool = True) -> None:
        self._user_changed(user_id)
        await self.db.execute(
            "UPDATE users SET started = ?, blocked = CASE WHEN ? THEN 0 ELSE blocked END WHERE user_id = ?",
            (int(started), int(started), user_id),
        )

    async def set_user_blocked(self, user_id: int) -> None:
        self._user_changed(user_id)
        await self.db.execute("UPDATE users SET blocked = 1, started = 0 WHERE user_id = ?", (user_id,))

    async def set_user_lang(self, user_id: int, lang: str) -> None:
        self._user_changed(user_id)
        await self.db.execute("UPDATE users SET lang = ?, lang_set = 1 WHERE user_id = ?", (lang, user_id))

    async def user_lang(self, user_id: int) -> str:
        user = await self.user(user_id)
        return user.lang if user is not None else "en"

    async def _chat(self, chat_id: int) -> tuple[str, str, str, int, int] | None:
        """The chat's (title, lang, hands, bot_admin, bot_rights_known), kept (``Known``)."""
        kept = self.known.chats
        if chat_id in kept:
            return kept[chat_id]
        row = await self._one("SELECT title, lang, hands, bot_admin, bot_rights_known FROM chats WHERE chat_id = ?",
                              chat_id)
        chat = (row["title"], row["lang"], row["hands"], row["bot_admin"], row["bot_rights_known"]) if row else None
        if chat_id not in self._changed_chats:
            Known.keep(kept, chat_id, chat)
        return chat

    async def ensure_chat(self, chat_id: int, title: str, lang: str) -> None:
        self._chat_changed(chat_id)
        await self.db.execute(
            "INSERT INTO chats(chat_id, title, lang) VALUES (?, ?, ?) "
            "ON CONFLICT(chat_id) DO UPDATE SET title = excluded.title",
            (chat_id, title, lang),
        )

    async def chat_title(self, chat_id: int) -> str:
        chat = await self._chat(chat_id)
        return chat[0] if chat is not None else ""

    async def chat_lang(self, chat_id: int) -> str:
        chat = await self._chat(chat_id)
        return chat[1] if chat is not None else "en"

    async def set_chat_lang(self, chat_id: int, lang: str) -> None:
        self._chat_changed(chat_id)
        await self.db.execute(
            "INSERT INTO chats(chat_id, lang) VALUES (?, ?) ON CONFLICT(chat_id) DO UPDATE SET lang = excluded.lang",
            (chat_id, lang),
        )

    async def chat_hands(self, chat_id: int) -> tuple[str, bool]:
        chat = await self._chat(chat_id)
        return (chat[2], bool(chat[3])) if chat is not None else ("group", False)

    async def set_chat_hands(self, chat_id: int, hands: str) -> None:
        self._chat_changed(chat_id)
        await self.db.execute("INSERT INTO chats(chat_id, hands) VALUES (?, ?) "
                              "ON CONFLICT(chat_id) DO UPDATE SET hands = excluded.hands", (chat_id, hands))

    async def chat_bot_rights(self, chat_id: int) -> bool | None:
        chat = await self._chat(chat_id)
        return bool(chat[3]) if chat is not None and chat[4] else None

    async def set_chat_bot_admin(self, chat_id: int, admin: bool) -> None:
        self._chat_changed(chat_id)
        await self.db.execute("INSERT INTO chats(chat_id, bot_admin, bot_rights_known) VALUES (?, ?, 1) "
                              "ON CONFLICT(chat_id) DO UPDATE SET bot_admin = excluded.bot_admin, bot_rights_known = 1",
                              (chat_id, int(admin)))

    async def take_paid(self, hour: int, wanted: int, limit: int) -> int:
        await self.db.execute("INSERT INTO paid_spend(hour, messages) VALUES (?, 0) ON CONFLICT(hour) DO NOTHING",
                              (hour,))
        row = await self._one("SELECT messages FROM paid_spend WHERE hour = ?", hour)
        granted = max(0, min(wanted, limit - (row["messages"] if row else 0)))
        if granted:
            await self.db.execute("UPDATE paid_spend SET messages = messages + ? WHERE hour = ?", (granted, hour))
        await self.db.execute("DELETE FROM paid_spend WHERE hour < ?", (hour - 48,))  # two days are plenty
        return granted

    async def migrate_chat(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup: everything of the old id moves to the new one."""
        self._chat_changed(new_id)
        self._chat_changed(old_id)
        await self.db.execute("INSERT OR IGNORE INTO chats(chat_id, title, lang, hands, bot_admin, bot_rights_known) "
                              "SELECT ?, title, lang, hands, bot_admin, bot_rights_known FROM chats WHERE chat_id = ?",
                              (new_id, old_id))
        for table in ("tables", "outbox", "results", "tournaments", *LEAGUE_CHAT_TABLES):
            await self.db.execute(f"UPDATE {table} SET chat_id = ? WHERE chat_id = ?", (new_id, old_id))
        # Old messages cannot be edited under the new id: forget them, so edits become new messages.
        await self.db.execute("DELETE FROM slots WHERE chat_id = ?", (old_id,))

    # -- tables and seats ---------------------------------------------------------
    async def create_table(self, chat_id: int, thread_id: int, game: str, creator_id: int,
                           options: dict[str, Any], seed: int, tournament_id: int | None = None) -> int:
        now = time.time()
        cur = await self.db.execute(
            "INSERT INTO tables(chat_id, thread_id, game, status, creator_id, options, seed, created_at, updated_at, "
            "tournament_id) VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?, ?)",
            (chat_id, thread_id, game, creator_id, codec.dumps(options), seed, now, now, tournament_id),
        )
        return int(cur.lastrowid or 0)

    async def open_table(self, chat_id: int, thread_id: int) -> TableRow | None:
        row = await self._one("SELECT * FROM tables WHERE chat_id = ? AND thread_id = ? "
                              "AND status IN ('lobby', 'playing') AND tournament_id IS NULL", chat_id, thread_id)
        return _table(row) if row else None

    async def last_table(self, chat_id: int, thread_id: int) -> TableRow | None:
        row = await self._one("SELECT * FROM tables WHERE chat_id = ? AND thread_id = ? AND tournament_id IS NULL "
                              "ORDER BY id DESC LIMIT 1", chat_id, thread_id)
        return _table(row) if row else None

    async def table(self, table_id: int) -> TableRow | None:
        row = await self._one("SELECT * FROM tables WHERE id = ?", table_id)
        return _table(row) if row else None

    async def open_tables_of_chat(self, chat_id: int) -> list[TableRow]:
        """The chat's tables in the lobby or in play, every forum topic."""
        rows = await self._all("SELECT * FROM tables WHERE chat_id = ? AND status IN ('lobby', 'playing')", chat_id)
        return [_table(r) for r in rows]

    async def playing_tables(self) -> list[TableRow]:
        return [_table(r) for r in await self._all("SELECT * FROM tables WHERE status = 'playing'")]

    async def save_table(self, table: TableRow, touch: bool = True) -> None:
        """Write status, options, version and snapshot of ``table`` (the caller bumped the version).
        ``touch`` restarts the table's clock (turn timers count from it); a reminder does not."""
        if touch:
            table.updated_at = time.time()
        await self.db.execute(
            "UPDATE tables SET status = ?, options = ?, version = ?, state = ?, ui = ?, updated_at = ? WHERE id = ?",
            (table.status, codec.dumps(table.options), table.version,
             codec.dumps(table.state) if table.state is not None else None,
             codec.dumps(table.ui.to_json()), table.updated_at, table.id),
        )

    async def seats(self, table_id: int) -> list[SeatRow]:
        kept = self.known.seats
        found = kept.get(table_id)
        if found is None:
            rows = await self._all("SELECT seat, user_id, name FROM seats WHERE table_id = ? ORDER BY seat",
                                   table_id)
            found = tuple((r["seat"], r["user_id"], r["name"]) for r in rows)
            if table_id not in self._changed_seats:
                Known.keep(kept, table_id, found)
        return [SeatRow(*seat) for seat in found]

    async def set_seats(self, table_id: int, seats: list[SeatRow]) -> None:
        self.known.seats.pop(table_id, None)
        self._changed_seats.add(table_id)
        await self.db.execute("DELETE FROM seats WHERE table_id = ?", (table_id,))
        await self.db.executemany(
            "INSERT INTO seats(table_id, seat, user_id, name) VALUES (?, ?, ?, ?)",
            [(table_id, i, s.user_id, s.name) for i, s in enumerate(seats)],
        )

    async def tables_of_user(self, user_id: int) -> list[TableRow]:
        rows = await self._all(
            "SELECT t.* FROM tables t JOIN seats s ON s.table_id = t.id "
            "WHERE s.user_id = ? AND t.status = 'playing'", user_id)
        return [_table(r) for r in rows]

    async def set_join_token(self, table_id: int, token: str) -> None:
        await self.db.execute("INSERT OR REPLACE INTO join_tokens(token, table_id) VALUES (?, ?)", (token, table_id))

    async def join_token(self, table_id: int) -> str | None:
        row = await self._one("SELECT token FROM join_tokens WHERE table_id = ?", table_id)
        return row["token"] if row else None

    async def token_table(self, token: str) -> TableRow | None:
        """The table a Join link's token opens (None for an unknown or forged token)."""
        row = await self._one("SELECT t.* FROM join_tokens j JOIN tables t ON t.id = j.table_id WHERE j.token = ?",
                              token)
        return _table(row) if row else None

    # -- the outbox (queueing is SharedQueries'; claiming and settling rows are this store's) ---------
    # Every query here is an index seek (outbox_next, outbox_merge; see migrations/0005_outbox_priority.sql):
    # the cost of queueing or picking a row does not grow with another chat's backlog.
    async def next_row(self, chat_id: int, aged: Aged | None = None) -> OutboxRow | None:
        """The chat's next row: the most urgent priority class first, in order within a class; but with
        ``aged`` (lowest class, highest class, created before, seconds more per class), the oldest row of those
        classes that has waited that long goes first (so a busy chat's lower classes wait a bounded time).
        ``alone`` says whether it is the chat's only pending row (then the outbox need not look again after it).
        The message its slot names comes along (``slot_read``): the outbox needs it to edit, and asked apart."""
        head = ("SELECT o.*, s.message_id AS slot_message FROM outbox o LEFT JOIN slots s "
                "ON s.slot = o.slot WHERE o.chat_id = ? AND o.status = 'pending' ")
        if aged is not None:
            low, high, before, step = aged
            rows = await self._all(head + "AND o.priority BETWEEN ? AND ? AND o.created_at < ? - (o.priority - ?) * ? "
                                   "ORDER BY o.id LIMIT 1", chat_id, low, high, before, low, step)
            if rows:
                row = outbox_row(rows[0])
                row.slot_message, row.slot_read = rows[0]["slot_message"], row.slot is not None
                return row  # ``alone`` unknown: the outbox looks again
        rows = await self._all(head + "ORDER BY o.priority, o.id LIMIT 2", chat_id)
        if not rows:
            return None
        row = outbox_row(rows[0])
        row.slot_message, row.slot_read = rows[0]["slot_message"], row.slot is not None
        row.alone = len(rows) == 1
        return row

    async def next_rows(self, chat_ids: list[int], aged: Aged | None = None,
                        aged_for: Collection[int] = ()) -> list[OutboxRow]:
        """``next_row`` of each chat that has one, in the order asked, ``aged`` for the chats in ``aged_for``
        (one statement on PostgreSQL)."""
        return [row for chat_id in chat_ids
                if (row := await self.next_row(chat_id, aged if chat_id in aged_for else None)) is not None]

    async def any_pending(self) -> bool:
        return await self._one("SELECT 1 FROM outbox WHERE status = 'pending' LIMIT 1") is not None

    async def drop_expired(self, row_id: int) -> None:
        await self.db.execute("DELETE FROM outbox WHERE id = ? AND status = 'pending'", (row_id,))

    async def heads(self, limit: int = 500) -> list[OutboxRow]:
        """The next row of every chat, oldest first (tests and tools; the worker asks chat by chat)."""
        rows = [r for r in [await self.next_row(c) for c in await self.pending_chats()] if r is not None]
        return sorted(rows, key=lambda r: r.id)[:limit]

    async def outbox_done(self, row: OutboxRow, slot_message: int | None = None, blob: str | None = None,
                          file_id: str | None = None) -> bool:
        """Record a delivered row (and what it taught us: the slot's message, the blob's file id).

        A row merged with newer content while in flight stays: a delivered send of a slot becomes
        an edit of the message it made; a log message keeps only the lines added since. True if deleted.
        """
        if row.slot is not None and slot_message is not None:
            await self.set_slot(row.slot, row.chat_id, slot_message)
        if blob is not None and file_id is not None:
            await self.set_blob_file_id(blob, file_id)
        sent = codec.dumps(row.payload)
        cur = await self.db.execute("DELETE FROM outbox WHERE id = ? AND payload = ?", (row.id, sent))
        if cur.rowcount:
            return True
        if row.slot is None:
            current = await self._one("SELECT payload FROM outbox WHERE id = ?", row.id)
            if current is not None:
                payload = codec.loads(current["payload"])
                payload = unsent_log(row.payload, payload)
                await self.set_payload(row.id, payload)
            return False
        edit = {"send": "edit", "photo": "edit_photo"}.get(row.method, row.method)
        await self.db.execute("UPDATE outbox SET method = ? WHERE id = ?", (edit, row.id))
        return False

    async def outbox_attempted(self, row_id: int, error: str) -> None:
        await self.db.execute("UPDATE outbox SET attempts = attempts + 1, error = ? WHERE id = ?", (error, row_id))

    async def outbox_failed(self, row_id: int, error: str) -> None:
        await self.db.execute("UPDATE outbox SET status = 'failed', error = ? WHERE id = ?", (error, row_id))

    async def outbox_counts(self) -> dict[str, int]:
        rows = await self._all("SELECT status, COUNT(*) AS n FROM outbox GROUP BY status")
        return {r["status"]: r["n"] for r in rows}

    async def set_slot(self, slot: str, chat_id: int, message_id: int) -> None:
        await self.db.execute("INSERT OR REPLACE INTO slots(slot, chat_id, message_id) VALUES (?, ?, ?)",
                              (slot, chat_id, message_id))

    async def slot_message(self, slot: str) -> int | None:
        row = await self._one("SELECT message_id FROM slots WHERE slot = ?", slot)
        return row["message_id"] if row else None

    async def put_blob(self, key: str, data: bytes) -> None:
        await self.db.execute("INSERT OR IGNORE INTO blobs(key, data) VALUES (?, ?)", (key, data))

    async def blob(self, key: str) -> tuple[bytes, str | None]:
        row = await self._one("SELECT data, file_id FROM blobs WHERE key = ?", key)
        if row is None:
            raise KeyError(key)
        return bytes(row["data"]), row["file_id"]

    async def set_blob_file_id(self, key: str, file_id: str) -> None:
        await self.db.execute("UPDATE blobs SET file_id = ? WHERE key = ?", (file_id, key))

    # -- the league -----------------------------------------------------------------
    async def add_results(self, table: TableRow, seats: list[SeatRow], scores: list[int], places: list[int]) -> None:
        now = time.time()
        await self.db.executemany(
            "INSERT OR REPLACE INTO results(table_id, seat, chat_id, game, user_id, name, score, place, players, "
            "finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(table.id, s.seat, table.chat_id, table.game, s.user_id, s.name, scores[s.seat], places[s.seat],
              len(seats), now) for s in seats],
        )



class InlineConnection:
    """sqlite3 on the event loop's own thread, behind the same awaitable calls as aiosqlite.

    Why: with aiosqlite every query is two thread switches and, on a busy loop, a wait for a loop
    turn, while the store's lock is held for the whole transaction. bench/bot.py measured p99 from
    update to committed move at 2.4 s with 200 busy tables that way, and 7 ms with this. A query
    blocks the loop for microseconds; a commit (synchronous=NORMAL) for the write() of its WAL frames,
    the fsync being a worker thread's (bot/store/walsync.py), and a lock held by another connection
    never (busy_timeout is 0; ``Store`` retries with asyncio sleeps).
    """

    def __init__(self, path: str | Path, **kwargs: Any) -> None:
        self._db = sqlite3.connect(path, check_same_thread=False, **kwargs)

    @property
    def row_factory(self) -> Any:
        return self._db.row_factory

    @row_factory.setter
    def row_factory(self, factory: Any) -> None:
        self._db.row_factory = factory

    async def execute(self, sql: str, parameters: Any = ()) -> sqlite3.Cursor:
        return self._db.execute(sql, parameters)

    async def executemany(self, sql: str, parameters: Any) -> sqlite3.Cursor:
        return self._db.executemany(sql, parameters)

    async def executescript(self, script: str) -> sqlite3.Cursor:
        return self._db.executescript(script)

    async def execute_fetchall(self, sql: str, parameters: Any = ()) -> list[Any]:
        return self._db.execute(sql, parameters).fetchall()

    async def close(self) -> None:
        self._db.close()


async def _inline(path: str | Path, **kwargs: Any) -> InlineConnection:
    return InlineConnection(path, **kwargs)


async def _thread(path: str | Path, **kwargs: Any) -> aiosqlite.Connection:
    return await aiosqlite.connect(path, **kwargs)


# "inline": sqlite3 on the loop thread (default, measured faster); "thread": aiosqlite's worker thread.
DRIVERS = {"inline": _inline, "thread": _thread}


class Store:
    """Opens the database, applies the schema, hands out transactions one at a time."""

    def __init__(self, path: str | Path, driver: str = "inline") -> None:
        if driver not in DRIVERS:
            raise ValueError(f"unknown SQLite driver {driver!r}; choose from {', '.join(DRIVERS)}")
        self.path = Path(path)
        self.driver = driver
        self._db: Any = None
        self._lock = asyncio.Lock()
        self.migrated: list[str] = []
        self.lock_patience = LOCK_PATIENCE
        self.wal: WalSync = WalSync(None)
        self.busy_waits = 0  # how often a BEGIN found the database locked by another connection
        self.queued: set[int] = set()  # chats enqueued to since the outbox last looked (see Tx.enqueue)
        self.known = Known()  # users' and chats' committed rows (see Known)
        # Updates this process took into the inbox, not yet handled: the check that they were never handled
        # was made then (inbox_put), and this process is the only one that handles them, so the dispatcher's
        # Dedup need not ask the database again (bot/handlers/context.py). Filled once the COMMIT succeeded.
        self.admitted: set[int] = set()
        # Bookkeeping that rides along in every write transaction, run just before its COMMIT; it answers how
        # to settle once the COMMIT's outcome is known (bot/store/batch.py sets it).
        self.rider: Callable[[Tx], Awaitable[Callable[[BaseException | None], None] | None]] | None = None

    async def open(self) -> Store:
        if str(self.path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.known, self.admitted = Known(), set()  # nothing kept from before: the file may have changed
        self._db = await DRIVERS[self.driver](self.path, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        await self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL, with group commit: a durable transaction returns once an fsync of the WAL that began
        # after its COMMIT is done, taken outside the lock (bot/store/walsync.py says what survives what).
        await self._db.execute("PRAGMA synchronous=NORMAL")
        await self._db.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints run in WalSync's thread
        self.wal = WalSync(None if str(self.path) == ":memory:" else self.path.resolve())
        await self._db.execute("PRAGMA foreign_keys=ON")
        # Never wait for a lock inside SQLite: with the inline driver that wait would freeze the event
        # loop. A busy database is retried in ``transaction`` with asyncio sleeps instead.
        await self._db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        self.migrated = await self._migrate()
        return self

    async def _migrate(self) -> list[str]:
        """Apply pending schema migrations (bot/store/migrate.py) on a plain sqlite3 connection."""
        if str(self.path) == ":memory:":
            db = self._db._db if isinstance(self._db, InlineConnection) else None
            if db is None:
                raise ValueError("an in-memory database needs the inline driver")
            return upgrade(db)
        db = sqlite3.connect(self.path, isolation_level=None, timeout=5.0)
        try:
            return upgrade(db)
        finally:
            db.close()

    async def close(self) -> None:
        """Close, after moving the WAL into the database file, so the file alone is a complete copy."""
        if self._db is not None:
            await self.wal.close()
            try:
                await self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:
                pass  # a busy reader (a running backup) only delays the checkpoint to the next start
            await self._db.close()
            self._db = None

    async def _begin(self, call: Any, sql: str) -> None:
        """Run ``sql`` (a BEGIN, or the schema), waiting out a lock held by another connection with
        asyncio sleeps (backing off to half a second), so the event loop never blocks on it.
        After ``lock_patience`` seconds the "database is locked" error is raised."""
        deadline = time.monotonic() + self.lock_patience
        pause = 0.005
        while True:
            try:
                await call(sql)
                return
            except sqlite3.OperationalError as exc:
                if not is_busy(exc) or time.monotonic() + pause > deadline:
                    raise
                self.busy_waits += 1
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.5)

    @asynccontextmanager
    async def transaction(self, durable: bool = True,
                          committed: Callable[[], None] | None = None) -> AsyncIterator[Tx]:
        """One explicit write transaction; committed on success, rolled back on any error.

        ``durable`` (the default): this returns once the WAL is on disk up to the COMMIT, so what the
        transaction acknowledges survives power loss. The fsync is shared with every transaction that
        committed before it began and is waited for after the lock is released (bot/store/walsync.py).
        Bookkeeping whose loss costs at most a repeat (an outbox row marked sent, an update id marked
        seen) passes ``durable=False`` and does not wait; the next fsync takes its frames along.
        ``committed`` is called once the COMMIT succeeded, before the wait for the fsync: work that tells
        nobody anything by itself may start (the intake's handlers: whatever they tell waits for its own fsync,
        which covers this one, bot/intake.py). Bookkeeping queued meanwhile rides along, under a savepoint,
        just before the COMMIT (``rider``, bot/store/batch.py): its callers do not wait for this fsync.

        The error that ended the transaction is the one raised: SQLite may already have rolled back
        by itself (SQLITE_FULL, SQLITE_IOERR), and the failing ROLLBACK then must not replace it."""
        assert self._db is not None, "store is not open"
        async with self._lock:
            await self._begin(self._db.execute, "BEGIN IMMEDIATE")
            tx = Tx(self._db, self.queued, self.known)
            try:
                yield tx
            except BaseException:
                try:
                    await self._db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass  # no transaction is active any more: the original error tells what happened
                raise
            else:
                settle = None
                try:
                    if self.rider is not None:  # bookkeeping rides along (bot/store/batch.py)
                        settle = await self.rider(tx)
                    await self._db.execute("COMMIT")
                except BaseException as exc:
                    try:  # a failed COMMIT (disk full, I/O error) must not leave the connection in a transaction
                        await self._db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                    if settle is not None:
                        settle(exc)
                    raise
                seq = self.wal.committed_one(durable)
                if settle is not None:
                    settle(None)
                if tx.admitted:
                    if len(self.admitted) > ADMITTED_LIMIT:  # updates never dispatched: asking costs a query
                        self.admitted.clear()
                    self.admitted.update(tx.admitted)
        if committed is not None:
            committed()
        if durable:
            await self.wal.wait(seq)

    async def durable(self) -> None:
        """Wait until every durable transaction committed so far is on disk (the outbox, before it shows
        anyone rows it read: they may come from a transaction whose fsync is still running)."""
        await self.wal.wait()

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Tx]:
        """Reads, serialized with the writes (one connection; never inside another transaction)."""
        assert self._db is not None, "store is not open"
        async with self._lock:
            yield Tx(self._db, self.queued, self.known)
