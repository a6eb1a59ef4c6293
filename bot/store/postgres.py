"""The PostgreSQL store: the store contract (bot/store/contract.py) for several workers on one database.

Why a second store: SQLite allows one writing process, so one worker. Here any number of worker
processes share the database, and everything that must happen once is serialised by PostgreSQL,
never by process memory:

- a table is locked for the rest of the transaction when a transaction reads it (``SELECT ... FOR
  UPDATE``), so two workers handling presses on one table take turns, and moves on other tables run
  side by side;
- ``next_row`` (and ``heads``, chat by chat) claims a chat's next outbox row (most urgent priority
  class first, as in SQLite) for this worker with ``FOR UPDATE SKIP LOCKED``: a chat with a row claimed
  by another live worker is skipped whole (one worker sends a chat at a time, so its queue stays in
  order even when an urgent row jumps ahead), and a worker that dies releases its claims with its
  presence lock. A chat another worker enqueued to is found by the outbox's periodic rescan
  (``pending_chats``); this worker's own enqueues wake it at once (``PgStore.queued``).

Values are stored as in SQLite (JSON as text, flags as 0/1), so both stores return equal rows.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import AsyncIterator, Callable, Collection
from contextlib import asynccontextmanager, suppress
from typing import Any

import asyncpg

from bot import codec
from bot.store.pg_migrate import upgrade
from bot.store.pg_workers import Identity, register, unregister
from bot.store.queries import SharedQueries, outbox_row
from bot.store.rows import Aged, OutboxRow, SeatRow, TableRow, UserRow, unsent_log
from bot.store.sqlite import LEAGUE_CHAT_TABLES, _table

POOL_SIZE = 10
PRESENCE = 0x4B6F7A77  # pg_advisory_lock(PRESENCE, worker) is held by every live worker for its whole life
# A worker is dead when its presence lock is free: a shared try-lock succeeds (held to the end of this
# transaction, harmless). Cheap, unlike reading pg_locks, which takes every lock-manager partition.
DEAD = f"pg_try_advisory_xact_lock_shared({PRESENCE}, {{col}}::int)"


def _rowcount(status: str) -> int:
    """The rows a statement changed, from its command tag ("DELETE 3")."""
    tail = status.rsplit(" ", 1)[-1]
    return int(tail) if tail.isdigit() else -1


_MARK = re.compile(r"\?")


def numbered(sql: str) -> str:
    """The shared queries' ``?`` placeholders as PostgreSQL's ``$1, $2, ...`` (no query has a literal '?')."""
    count = iter(range(1, 10**6))
    return _MARK.sub(lambda _: f"${next(count)}", sql)


def _user(row: asyncpg.Record) -> UserRow:
    return UserRow(row["user_id"], row["first_name"], row["username"], row["lang"], bool(row["started"]),
                   bool(row["blocked"]))


class PgTx(SharedQueries):
    """The queries of one transaction (``locking``: tables read are locked until it ends) or of one read."""

    _UI_PRUNED = "(ui::jsonb ->> 'slots_pruned')"
    _MARK_PRUNED = "(ui::jsonb || jsonb_build_object('slots_pruned', 1))::text"
    _PAYLOAD_BLOB = "(payload::jsonb ->> 'blob')"
    _BLOB_ORDER = "key"  # no insertion order here: file ids beyond the newest are chosen by key
    _NAMES_AND_SCORES = "string_agg(s.name || ' ' || s.score, ', ' ORDER BY s.seat)"
    _LEAST = "LEAST"

    def __init__(self, conn: asyncpg.Connection, locking: bool, worker: int = 0,
                 queued: set[int] | None = None) -> None:
        self.conn = conn
        self.queued = queued  # chats that got an outbox row: this worker's outbox looks at them first
        self.worker = worker
        self._locking = locking

    async def _one(self, sql: str, *args: Any) -> asyncpg.Record | None:
        return await self.conn.fetchrow(numbered(sql), *args)

    async def _all(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        return list(await self.conn.fetch(numbered(sql), *args))

    async def _run(self, sql: str, *args: Any) -> int:
        return _rowcount(await self.conn.execute(numbered(sql), *args))

    async def _run_many(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            await self.conn.executemany(numbered(sql), rows)

    # -- updates ------------------------------------------------------------------
    async def seen_update(self, update_id: int) -> bool:
        return await self.conn.fetchval("SELECT 1 FROM updates WHERE update_id = $1", update_id) is not None

    async def mark_update(self, update_id: int) -> bool:
        """Record an update as handled; False when it already was."""
        done = await self.conn.fetchval("INSERT INTO updates(update_id) VALUES ($1) ON CONFLICT DO NOTHING "
                                      "RETURNING 1", update_id)
        return done is not None

    # -- users and chats ----------------------------------------------------------
    async def upsert_user(self, user_id: int, first_name: str, username: str | None, lang: str) -> None:
        await self.conn.execute(
            "INSERT INTO users(user_id, first_name, username, lang) VALUES ($1, $2, $3, $4) "
            "ON CONFLICT(user_id) DO UPDATE SET first_name = excluded.first_name, username = excluded.username, "
            "lang = CASE WHEN users.lang_set <> 0 THEN users.lang ELSE excluded.lang END",
            user_id, first_name, username, lang)

    async def user(self, user_id: int) -> UserRow | None:
        row = await self.conn.fetchrow("SELECT * FROM users WHERE user_id = $1", user_id)
        return _user(row) if row else None

    async def set_user_started(self, user_id: int, started: bool = True) -> None:
        await self.conn.execute("UPDATE users SET started = $1, blocked = CASE WHEN $1 = 1 THEN 0 ELSE blocked END "
                              "WHERE user_id = $2", int(started), user_id)

    async def set_user_blocked(self, user_id: int) -> None:
        await self.conn.execute("UPDATE users SET blocked = 1, started = 0 WHERE user_id = $1", user_id)

    async def set_user_lang(self, user_id: int, lang: str) -> None:
        await self.conn.execute("UPDATE users SET lang = $1, lang_set = 1 WHERE user_id = $2", lang, user_id)

    async def user_lang(self, user_id: int) -> str:
        return await self.conn.fetchval("SELECT lang FROM users WHERE user_id = $1", user_id) or "en"

    async def ensure_chat(self, chat_id: int, title: str, lang: str) -> None:
        await self.conn.execute("INSERT INTO chats(chat_id, title, lang) VALUES ($1, $2, $3) "
                              "ON CONFLICT(chat_id) DO UPDATE SET title = excluded.title", chat_id, title, lang)

    async def chat_title(self, chat_id: int) -> str:
        title = await self.conn.fetchval("SELECT title FROM chats WHERE chat_id = $1", chat_id)
        return title if title is not None else ""

    async def chat_lang(self, chat_id: int) -> str:
        return await self.conn.fetchval("SELECT lang FROM chats WHERE chat_id = $1", chat_id) or "en"

    async def set_chat_lang(self, chat_id: int, lang: str) -> None:
        await self.conn.execute("INSERT INTO chats(chat_id, lang) VALUES ($1, $2) "
                              "ON CONFLICT(chat_id) DO UPDATE SET lang = excluded.lang", chat_id, lang)

    async def chat_hands(self, chat_id: int) -> tuple[str, bool]:
        row = await self.conn.fetchrow("SELECT hands, bot_admin FROM chats WHERE chat_id = $1", chat_id)
        return (row["hands"], bool(row["bot_admin"])) if row else ("group", False)

    async def set_chat_hands(self, chat_id: int, hands: str) -> None:
        await self.conn.execute("INSERT INTO chats(chat_id, hands) VALUES ($1, $2) "
                              "ON CONFLICT(chat_id) DO UPDATE SET hands = excluded.hands", chat_id, hands)

    async def chat_bot_rights(self, chat_id: int) -> bool | None:
        row = await self.conn.fetchrow("SELECT bot_admin, bot_rights_known FROM chats WHERE chat_id = $1", chat_id)
        return bool(row["bot_admin"]) if row and row["bot_rights_known"] else None

    async def set_chat_bot_admin(self, chat_id: int, admin: bool) -> None:
        await self.conn.execute("INSERT INTO chats(chat_id, bot_admin, bot_rights_known) VALUES ($1, $2, 1) "
                              "ON CONFLICT(chat_id) DO UPDATE SET bot_admin = excluded.bot_admin, bot_rights_known = 1",
                              chat_id, int(admin))

    async def take_paid(self, hour: int, wanted: int, limit: int) -> int:
        await self.conn.execute("INSERT INTO paid_spend(hour, messages) VALUES ($1, 0) ON CONFLICT DO NOTHING", hour)
        spent = await self.conn.fetchval("SELECT messages FROM paid_spend WHERE hour = $1 FOR UPDATE", hour)
        granted = max(0, min(wanted, limit - int(spent or 0)))
        if granted:
            await self.conn.execute("UPDATE paid_spend SET messages = messages + $1 WHERE hour = $2", granted, hour)
        await self.conn.execute("DELETE FROM paid_spend WHERE hour < $1", hour - 48)  # two days are plenty
        return granted

    async def migrate_chat(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup: everything of the old id moves to the new one."""
        await self.conn.execute("INSERT INTO chats(chat_id, title, lang, hands, bot_admin, bot_rights_known) "
                              "SELECT $1, title, lang, hands, bot_admin, bot_rights_known FROM chats "
                              "WHERE chat_id = $2 ON CONFLICT DO NOTHING", new_id, old_id)
        for table in ("tables", "outbox", "results", "tournaments", *LEAGUE_CHAT_TABLES):
            await self.conn.execute(f"UPDATE {table} SET chat_id = $1 WHERE chat_id = $2", new_id, old_id)
        await self.conn.execute("DELETE FROM slots WHERE chat_id = $1", old_id)

    # -- tables and seats ---------------------------------------------------------
    async def create_table(self, chat_id: int, thread_id: int, game: str, creator_id: int,
                           options: dict[str, Any], seed: int, tournament_id: int | None = None) -> int:
        now = time.time()
        return int(await self.conn.fetchval(
            "INSERT INTO tables(chat_id, thread_id, game, status, creator_id, options, seed, created_at, updated_at, "
            "tournament_id) VALUES ($1, $2, $3, 'lobby', $4, $5, $6, $7, $7, $8) RETURNING id",
            chat_id, thread_id, game, creator_id, codec.dumps(options), seed, now, tournament_id))

    async def _locked_table(self, sql: str, *args: Any) -> TableRow | None:
        row = await self.conn.fetchrow(sql + (" FOR UPDATE OF t" if self._locking else ""), *args)
        return _table(row) if row else None

    async def open_table(self, chat_id: int, thread_id: int) -> TableRow | None:
        return await self._locked_table("SELECT * FROM tables t WHERE chat_id = $1 AND thread_id = $2 "
                                        "AND status IN ('lobby', 'playing') AND tournament_id IS NULL",
                                        chat_id, thread_id)

    async def last_table(self, chat_id: int, thread_id: int) -> TableRow | None:
        return await self._locked_table("SELECT * FROM tables t WHERE chat_id = $1 AND thread_id = $2 "
                                        "AND tournament_id IS NULL ORDER BY id DESC LIMIT 1", chat_id, thread_id)

    async def table(self, table_id: int) -> TableRow | None:
        return await self._locked_table("SELECT * FROM tables t WHERE id = $1", table_id)

    async def open_tables_of_chat(self, chat_id: int) -> list[TableRow]:
        rows = await self.conn.fetch("SELECT * FROM tables WHERE chat_id = $1 AND status IN ('lobby', 'playing') "
                                   "ORDER BY id", chat_id)
        return [_table(r) for r in rows]

    async def playing_tables(self) -> list[TableRow]:
        return [_table(r) for r in await self.conn.fetch("SELECT * FROM tables WHERE status = 'playing' ORDER BY id")]

    async def save_table(self, table: TableRow, touch: bool = True) -> None:
        if touch:
            table.updated_at = time.time()
        await self.conn.execute(
            "UPDATE tables SET status = $1, options = $2, version = $3, state = $4, ui = $5, updated_at = $6 "
            "WHERE id = $7",
            table.status, codec.dumps(table.options), table.version,
            codec.dumps(table.state) if table.state is not None else None,
            codec.dumps(table.ui.to_json()), table.updated_at, table.id)

    async def seats(self, table_id: int) -> list[SeatRow]:
        rows = await self.conn.fetch("SELECT seat, user_id, name FROM seats WHERE table_id = $1 ORDER BY seat",
                                   table_id)
        return [SeatRow(r["seat"], r["user_id"], r["name"]) for r in rows]

    async def set_seats(self, table_id: int, seats: list[SeatRow]) -> None:
        await self.conn.execute("DELETE FROM seats WHERE table_id = $1", table_id)
        await self.conn.executemany("INSERT INTO seats(table_id, seat, user_id, name) VALUES ($1, $2, $3, $4)",
                                  [(table_id, i, s.user_id, s.name) for i, s in enumerate(seats)])

    async def tables_of_user(self, user_id: int) -> list[TableRow]:
        rows = await self.conn.fetch("SELECT t.* FROM tables t JOIN seats s ON s.table_id = t.id "
                                   "WHERE s.user_id = $1 AND t.status = 'playing' ORDER BY t.id", user_id)
        return [_table(r) for r in rows]

    async def set_join_token(self, table_id: int, token: str) -> None:
        # INSERT OR REPLACE in SQLite drops every row that conflicts on either unique column.
        await self.conn.execute("DELETE FROM join_tokens WHERE token = $1 OR table_id = $2", token, table_id)
        await self.conn.execute("INSERT INTO join_tokens(token, table_id) VALUES ($1, $2)", token, table_id)

    async def join_token(self, table_id: int) -> str | None:
        return await self.conn.fetchval("SELECT token FROM join_tokens WHERE table_id = $1", table_id)

    async def token_table(self, token: str) -> TableRow | None:
        return await self._locked_table("SELECT t.* FROM join_tokens j JOIN tables t ON t.id = j.table_id "
                                        "WHERE j.token = $1", token)

    # -- the outbox (queueing is SharedQueries'; claiming and settling rows are this store's) ---------
    async def next_row(self, chat_id: int, aged: Aged | None = None) -> OutboxRow | None:
        """The chat's next row (most urgent priority class first, in order within a class), claimed for this
        worker. None when another live worker holds a claim on any pending row of the chat (it is sending,
        or will: one worker sends a chat at a time, in order), or when the row is locked by a transaction
        in flight (SKIP LOCKED). A dead worker's claims are taken over. The claim is re-checked on the
        row's newest version under its lock, so two workers never both get one row. The message its slot
        names comes along (``slot_read``), as in SQLite; ``aged`` too."""
        rows = await self.next_rows([chat_id], aged, (chat_id,))
        return rows[0] if rows else None

    async def next_rows(self, chat_ids: list[int], aged: Aged | None = None,
                        aged_for: Collection[int] = ()) -> list[OutboxRow]:
        """``next_row`` of each chat (those that have one), in the order asked, ``aged`` for the chats in
        ``aged_for``, claimed by one statement: the claimed rows stay locked until the transaction ends, and a
        move merging its edit into one of them waits for that, so a claim of many chats is one round trip,
        not one per chat."""
        if not chat_ids:
            return []
        chats = list(dict.fromkeys(chat_ids))
        low, high, before, step = aged if aged is not None else (None, None, None, None)
        rows = await self.conn.fetch(
            "WITH nxt AS (SELECT c.ord, COALESCE(CASE WHEN c.aged THEN (SELECT id FROM outbox "
            "WHERE chat_id = c.chat_id AND status = 'pending' AND priority BETWEEN $3::int AND $4::int "
            "AND created_at < $5::float8 - (priority - $3::int) * $6::float8 ORDER BY id LIMIT 1) END, "
            "(SELECT id FROM outbox WHERE chat_id = c.chat_id AND status = 'pending' ORDER BY priority, id LIMIT 1)) "
            "AS id FROM unnest($1::bigint[], $7::bool[]) WITH ORDINALITY AS c(chat_id, aged, ord)), "
            "picked AS (SELECT o.*, nxt.ord FROM outbox o JOIN nxt ON o.id = nxt.id WHERE o.status = 'pending' "
            f"AND (o.worker IS NULL OR o.worker = $2 OR {DEAD.format(col='o.worker')}) "
            "AND NOT EXISTS (SELECT 1 FROM outbox x WHERE x.chat_id = o.chat_id AND x.status = 'pending' "
            f"AND x.id <> o.id AND x.worker IS NOT NULL AND x.worker <> $2 AND NOT {DEAD.format(col='x.worker')}) "
            "FOR UPDATE OF o SKIP LOCKED), "
            "claimed AS (UPDATE outbox SET worker = $2 FROM picked WHERE outbox.id = picked.id "
            "AND picked.worker IS DISTINCT FROM $2) "
            "SELECT picked.*, s.message_id AS slot_message FROM picked LEFT JOIN slots s ON s.slot = picked.slot "
            "ORDER BY picked.ord",
            chats, self.worker, low, high, before, step, [aged is not None and c in aged_for for c in chats])
        out = []
        for row in rows:
            picked = outbox_row(row)
            picked.slot_message, picked.slot_read = row["slot_message"], picked.slot is not None
            out.append(picked)
        return out

    async def any_pending(self) -> bool:
        return await self.conn.fetchval("SELECT 1 FROM outbox WHERE status = 'pending' LIMIT 1") is not None

    async def drop_expired(self, row_id: int) -> None:
        await self.conn.execute("DELETE FROM outbox WHERE id = $1 AND status = 'pending'", row_id)

    async def heads(self, limit: int = 500) -> list[OutboxRow]:
        """The next row of every chat this worker may send now, claimed (``next_row``), oldest first
        (tests and tools; the worker asks chat by chat)."""
        return sorted(await self.next_rows(await self.pending_chats()), key=lambda r: r.id)[:limit]

    async def inbox_waiting(self) -> list[tuple[int, str]]:
        """Several workers: only updates taken by workers that died (or by none) before handling them,
        claimed for this worker (a live worker's updates are its own)."""
        rows = await self.conn.fetch(
            f"UPDATE inbox SET worker = $1 WHERE worker IS NULL OR (worker <> $1 AND {DEAD.format(col='worker')}) "
            "RETURNING update_id, payload", self.worker)
        return sorted((r["update_id"], r["payload"]) for r in rows)

    async def outbox_done(self, row: OutboxRow, slot_message: int | None = None, blob: str | None = None,
                          file_id: str | None = None) -> bool:
        """As SQLite's: a row merged with newer content while in flight stays (an edit, or the newer lines)."""
        if row.slot is not None and slot_message is not None:
            await self.set_slot(row.slot, row.chat_id, slot_message)
        if blob is not None and file_id is not None:
            await self.set_blob_file_id(blob, file_id)
        deleted = await self.conn.fetchval("DELETE FROM outbox WHERE id = $1 AND payload = $2 RETURNING id",
                                         row.id, codec.dumps(row.payload))
        if deleted is not None:
            return True
        if row.slot is None:
            current = await self.conn.fetchval("SELECT payload FROM outbox WHERE id = $1", row.id)
            if current is not None:
                payload = codec.loads(current)
                payload = unsent_log(row.payload, payload)
                await self.set_payload(row.id, payload)
            return False
        edit = {"send": "edit", "photo": "edit_photo"}.get(row.method, row.method)
        await self.conn.execute("UPDATE outbox SET method = $1 WHERE id = $2", edit, row.id)
        return False

    async def outbox_attempted(self, row_id: int, error: str) -> None:
        await self.conn.execute("UPDATE outbox SET attempts = attempts + 1, error = $1 WHERE id = $2", error, row_id)

    async def outbox_failed(self, row_id: int, error: str) -> None:
        await self.conn.execute("UPDATE outbox SET status = 'failed', error = $1 WHERE id = $2", error, row_id)

    async def outbox_counts(self) -> dict[str, int]:
        rows = await self.conn.fetch("SELECT status, COUNT(*) AS n FROM outbox GROUP BY status")
        return {r["status"]: int(r["n"]) for r in rows}

    async def set_slot(self, slot: str, chat_id: int, message_id: int) -> None:
        await self.conn.execute("INSERT INTO slots(slot, chat_id, message_id) VALUES ($1, $2, $3) ON CONFLICT(slot) "
                              "DO UPDATE SET chat_id = excluded.chat_id, message_id = excluded.message_id",
                              slot, chat_id, message_id)

    async def slot_message(self, slot: str) -> int | None:
        return await self.conn.fetchval("SELECT message_id FROM slots WHERE slot = $1", slot)

    async def put_blob(self, key: str, data: bytes) -> None:
        await self.conn.execute("INSERT INTO blobs(key, data) VALUES ($1, $2) ON CONFLICT DO NOTHING", key, data)

    async def blob(self, key: str) -> tuple[bytes, str | None]:
        row = await self.conn.fetchrow("SELECT data, file_id FROM blobs WHERE key = $1", key)
        if row is None:
            raise KeyError(key)
        return bytes(row["data"]), row["file_id"]

    async def set_blob_file_id(self, key: str, file_id: str) -> None:
        await self.conn.execute("UPDATE blobs SET file_id = $1 WHERE key = $2", file_id, key)

    # -- results --------------------------------------------------------------------
    async def add_results(self, table: TableRow, seats: list[SeatRow], scores: list[int], places: list[int]) -> None:
        now = time.time()
        await self.conn.executemany(
            "INSERT INTO results(table_id, seat, chat_id, game, user_id, name, score, place, players, finished_at) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT(table_id, seat) DO UPDATE SET "
            "chat_id = excluded.chat_id, game = excluded.game, user_id = excluded.user_id, name = excluded.name, "
            "score = excluded.score, place = excluded.place, players = excluded.players, "
            "finished_at = excluded.finished_at",
            [(table.id, s.seat, table.chat_id, table.game, s.user_id, s.name, scores[s.seat], places[s.seat],
              len(seats), now) for s in seats])


async def _kept(conn: asyncpg.Connection) -> None:
    """A connection goes back to the pool as it is: the store never changes a session's state (its settings
    are SET LOCAL, its advisory locks transaction-level, no LISTEN), so asyncpg's default reset (advisory
    unlock, CLOSE ALL, UNLISTEN, RESET ALL) would be a round trip after every transaction for nothing, with
    the connection held and the caller waiting. An open transaction is still rolled back by asyncpg first."""


class PgStore:
    """A pool of connections to one PostgreSQL database (optionally one schema of it)."""

    def __init__(self, url: str, schema: str | None = None, pool_size: int = POOL_SIZE,
                 identity: Identity | None = None) -> None:
        self.url = url
        self.schema = schema
        self.identity = identity  # checked against the other live workers' at open (bot/store/pg_workers.py)
        self.pool_size = pool_size
        self.migrated: list[str] = []
        self._pool: asyncpg.Pool | None = None
        self.worker = random.randint(1, 2**31 - 1)  # this process, among the workers sharing the database
        self._presence: asyncpg.Connection | None = None
        self.queued: set[int] = set()  # chats enqueued to by this worker since its outbox last looked
        # Never filled: another worker may take in the same update at the same moment (a webhook's retry
        # while this worker's inbox_done commits), and the Dedup middleware's query is what catches that.
        self.admitted: set[int] = set()

    async def open(self) -> PgStore:
        settings = {"kozyr.worker": str(self.worker)}
        if self.schema:
            settings["search_path"] = self.schema
        if self.schema:
            conn = await asyncpg.connect(self.url)
            try:
                await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
            finally:
                await conn.close()
        self._pool = await asyncpg.create_pool(self.url, min_size=1, max_size=self.pool_size,
                                               server_settings=settings, reset=_kept)
        try:
            # Alive first: the registry tells a live worker's row from a dead one's by this lock.
            self._presence = await asyncpg.connect(self.url)
            await self._presence.execute("SELECT pg_advisory_lock($1, $2)", PRESENCE, self.worker)
            async with self._pool.acquire() as conn:
                if self.identity is not None:  # before migrating: an older worker may still be running
                    await register(conn, self.worker, self.identity, PRESENCE)
                self.migrated = await upgrade(conn)
        except BaseException:
            await self.close()
            raise
        return self

    async def close(self) -> None:
        if self._presence is not None and self._pool is not None and self.identity is not None:
            try:
                async with self._pool.acquire() as conn:
                    await unregister(conn, self.worker)
            except (OSError, asyncpg.PostgresError):
                pass  # the row of a worker whose lock is free is ignored anyway
        if self._presence is not None:
            await self._presence.close()  # from now on this worker's claims are free to take
            self._presence = None
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    @asynccontextmanager
    async def transaction(self, durable: bool = True,
                          committed: Callable[[], None] | None = None) -> AsyncIterator[PgTx]:
        """One transaction; committed on success, rolled back on any error. ``durable=False`` (bookkeeping
        whose loss costs a repeat) commits without waiting for the WAL flush (synchronous_commit off).
        ``committed`` is called after the COMMIT (here it returns once the WAL is flushed)."""
        assert self._pool is not None, "store is not open"
        async with self._pool.acquire() as conn:
            if durable:
                async with conn.transaction():
                    yield PgTx(conn, locking=True, worker=self.worker, queued=self.queued)
            else:  # BEGIN and the setting in one round trip (conn.transaction() would take two)
                await conn.execute("BEGIN; SET LOCAL synchronous_commit = off")
                try:
                    yield PgTx(conn, locking=True, worker=self.worker, queued=self.queued)
                except BaseException:
                    if not conn.is_closed():
                        with suppress(Exception):  # a broken connection: the pool drops it on release
                            await conn.execute("ROLLBACK")
                    raise
                await conn.execute("COMMIT")
        if committed is not None:
            committed()

    async def durable(self) -> None:
        """Nothing to wait for: a durable COMMIT returns after PostgreSQL flushed its WAL, and its rows
        are visible to others only from then on."""

    @asynccontextmanager
    async def read(self) -> AsyncIterator[PgTx]:
        """Reads in one transaction that locks no table (``heads`` still claims what it returns)."""
        assert self._pool is not None, "store is not open"
        async with self._pool.acquire() as conn, conn.transaction():
            yield PgTx(conn, locking=False, worker=self.worker, queued=self.queued)
