"""Queries both stores run with the same SQL text (the action log, queueing in the outbox, clocks, the inbox,
retention, the league): written once here in the SQL that SQLite and PostgreSQL share, with ``?`` placeholders
that the PostgreSQL store numbers. Where the two dialects differ, a class attribute names the piece
(``_UI_PRUNED`` ...).

Why one text: the queries moved here from the modules that used to send SQL through the store's
connection; keeping one copy means a fix reaches both stores, and tests/store runs each on both.
Every method answers with plain values or rows of bot/store/rows.py, never a driver's row object.
"""

from __future__ import annotations

import time
from typing import Any

from bot import codec
from bot.store.rows import BoardRow, ClockRow, EntrantRow, OutboxRow, Prefs, TournamentRow

LeagueRating = tuple[int, int, str, str, int, str, float, float, int, int, float]
"""chat, topic, season, game, player, name, mu, sigma, games, wins, shown"""
SeatRating = tuple[int, int, float | None, float | None, float | None, float | None]
"""match, seat, mu, sigma, mu_all, sigma_all"""
MatchSeat = tuple[int, int, str, int, int, int]
"""seat, player, name, team, score, place"""


def _clock(r: Any) -> ClockRow:
    return ClockRow(
        table_id=r["table_id"], per_move=r["per_move"], bank=r["bank"], strikes=r["strikes"], absent=r["absent"],
        banks=codec.loads(r["banks"]), missed=codec.loads(r["missed"]), turn_version=r["turn_version"],
        turn_seat=r["turn_seat"], turn_start=r["turn_start"], deadline=r["deadline"], due=r["due"],
        stage=r["stage"], paused=bool(r["paused"]), time_left=r["time_left"], votes=codec.loads(r["votes"]),
        extended=r["extended"])


def _tournament(r: Any) -> TournamentRow:
    return TournamentRow(
        id=r["id"], chat_id=r["chat_id"], thread_id=r["thread_id"], game=r["game"], options=codec.loads(r["options"]),
        format=r["format"], settings=codec.loads(r["settings"]), status=r["status"], creator_id=r["creator_id"],
        seed=r["seed"], round=r["round"], closes_at=r["closes_at"], created_at=r["created_at"],
        finished_at=r["finished_at"])


def outbox_row(row: Any) -> OutboxRow:
    """An outbox row as both stores read it (a sqlite3 row or an asyncpg record)."""
    return OutboxRow(row["id"], row["chat_id"], row["method"], row["slot"], row["merge_key"],
                     codec.loads(row["payload"]), row["attempts"], row["priority"], row["expires_at"],
                     row["created_at"])


def _board(r: Any) -> BoardRow:
    return BoardRow(r["tournament_id"], r["round"], r["board"], r["kind"], codec.loads(r["players"]), r["table_id"])


class SharedQueries:
    """The queries of both stores' ``Tx`` that need no dialect of their own. A subclass provides the four
    primitives (each takes SQL with ``?`` placeholders) and the dialect attributes."""

    _UI_PRUNED = "json_extract(ui, '$.slots_pruned')"  # a finished table whose slots are gone
    _MARK_PRUNED = "json_set(ui, '$.slots_pruned', 1)"
    _PAYLOAD_BLOB = "json_extract(payload, '$.blob')"  # the blob a queued document sends
    _BLOB_ORDER = "rowid"  # blobs in the order they were stored
    _NAMES_AND_SCORES = "group_concat(s.name || ' ' || s.score, ', ')"
    _LEAST = "MIN"  # the smaller of two values
    queued: set[int] | None = None  # chats enqueued to since the outbox last looked (the store's, if it has one)
    _last_outbox: int | None = None  # the outbox row this transaction inserted last (``tag_last``)

    async def _one(self, sql: str, *args: Any) -> Any:
        raise NotImplementedError

    async def _all(self, sql: str, *args: Any) -> list[Any]:
        raise NotImplementedError

    async def _run(self, sql: str, *args: Any) -> int:
        """A statement; the rows it changed."""
        raise NotImplementedError

    async def _run_many(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        raise NotImplementedError

    # -- savepoints (the league's part of a final move) ---------------------------------
    async def savepoint(self, name: str) -> None:
        await self._run(f"SAVEPOINT {name}")

    async def rollback_to(self, name: str) -> None:
        await self._run(f"ROLLBACK TO SAVEPOINT {name}")

    async def release(self, name: str) -> None:
        await self._run(f"RELEASE SAVEPOINT {name}")

    # -- the action log -----------------------------------------------------------------
    async def log_action(self, table_id: int, seat: int, action: str) -> int:
        """Append an action after the table's last one; its index. One statement where ``action_count``
        and ``append_action`` are two (a move's transaction locks its table, so nobody appends between)."""
        row = await self._one("INSERT INTO actions(table_id, idx, seat, action, at) "
                              "SELECT ?, COALESCE(MAX(idx) + 1, 0), ?, ?, ? FROM actions WHERE table_id = ? "
                              "RETURNING idx", table_id, seat, action, time.time(), table_id)
        return int(row["idx"])

    async def append_action(self, table_id: int, idx: int, seat: int, action: str) -> None:
        await self._run("INSERT INTO actions(table_id, idx, seat, action, at) VALUES (?, ?, ?, ?, ?)",
                        table_id, idx, seat, action, time.time())

    async def action_count(self, table_id: int) -> int:
        row = await self._one("SELECT COALESCE(MAX(idx) + 1, 0) AS n FROM actions WHERE table_id = ?", table_id)
        return int(row["n"]) if row else 0

    async def actions(self, table_id: int) -> list[list[Any]]:
        rows = await self._all("SELECT seat, action FROM actions WHERE table_id = ? ORDER BY idx", table_id)
        return [[r["seat"], r["action"]] for r in rows]

    # -- the outbox (queueing; each store claims and settles rows in its own way) ------------
    # Every query here is an index seek (outbox_next, outbox_merge; see migrations/0005_outbox_priority.sql):
    # the cost of queueing a row does not grow with another chat's backlog.
    async def enqueue(self, chat_id: int, method: str, payload: dict[str, Any], slot: str | None = None,
                      merge_key: str | None = None, priority: int = 1, ttl: float | None = None) -> None:
        """Queue an outgoing call. A pending row with the same ``merge_key`` is replaced in place,
        so a message edited five times before it could be sent is sent once, with the last content
        (the row keeps its place and the time of the oldest change it carries; the more urgent priority wins, and
        a change that raises the row's class is its time from then on: how long a row waited in its class is what
        ages it, ``next_row``)."""
        data = codec.dumps(payload)
        if self.queued is not None:
            self.queued.add(chat_id)
        if merge_key is not None:
            # A send not yet made is still a send, with the new content; an edit replaces a pending edit
            # (or keyboard removal) of the same message.
            merged = await self._run(
                f"UPDATE outbox SET payload = ?, method = CASE WHEN method IN ('send', 'photo') THEN method "
                f"ELSE ? END, priority = {self._LEAST}(priority, ?), created_at = CASE WHEN ? < priority THEN ? "
                "ELSE created_at END WHERE id = (SELECT id FROM outbox WHERE merge_key = ? "
                "AND status = 'pending' ORDER BY id DESC LIMIT 1)",
                data, method, priority, priority, time.time(), merge_key)
            if merged:
                return
        now = time.time()
        row = await self._one(
            "INSERT INTO outbox(chat_id, method, slot, merge_key, payload, priority, expires_at, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            chat_id, method, slot, merge_key, data, priority, None if ttl is None else now + ttl, now)
        self._last_outbox = int(row["id"])

    async def tag_last(self, merge_key: str) -> None:
        """Give the row this transaction inserted last a merge key (the log's rows are found by it, not merged
        by it)."""
        if self._last_outbox is not None:
            await self._run("UPDATE outbox SET merge_key = ? WHERE id = ?", merge_key, self._last_outbox)

    async def drop_pending(self, merge_key: str) -> int:
        """Forget a pending row nobody needs any more (the edit of a deal's table once the next deal is on; never
        one a worker has tried to send)."""
        return await self._run("DELETE FROM outbox WHERE merge_key = ? AND status = 'pending' AND attempts = 0",
                               merge_key)

    async def pending(self, merge_key: str) -> OutboxRow | None:
        row = await self._one("SELECT * FROM outbox WHERE merge_key = ? AND status = 'pending' "
                              "ORDER BY id DESC LIMIT 1", merge_key)
        return outbox_row(row) if row else None

    async def set_payload(self, row_id: int, payload: dict[str, Any]) -> None:
        await self._run("UPDATE outbox SET payload = ? WHERE id = ?", codec.dumps(payload), row_id)

    async def pending_chats(self) -> list[int]:
        """Every chat with a pending row: a skip scan of the outbox_next index, one seek per chat
        (SELECT DISTINCT would read every pending row)."""
        rows = await self._all(
            "WITH RECURSIVE c(chat_id) AS ("
            " SELECT (SELECT MIN(chat_id) FROM outbox WHERE status = 'pending')"
            " UNION ALL SELECT (SELECT MIN(chat_id) FROM outbox WHERE status = 'pending' AND chat_id > c.chat_id)"
            " FROM c WHERE c.chat_id IS NOT NULL) "
            "SELECT chat_id FROM c WHERE chat_id IS NOT NULL")
        return [r[0] for r in rows]

    # -- status -----------------------------------------------------------------------
    async def table_counts(self) -> dict[str, int]:
        """Tables by status (/status and /healthz)."""
        rows = await self._all("SELECT status, COUNT(*) AS n FROM tables GROUP BY status")
        return {r["status"]: int(r["n"]) for r in rows}

    # -- clocks and time preferences (migration 0005) -----------------------------------
    async def clock(self, table_id: int) -> ClockRow | None:
        row = await self._one("SELECT * FROM clocks WHERE table_id = ?", table_id)
        return _clock(row) if row else None

    async def save_clock(self, clock: ClockRow) -> None:
        c = clock
        await self._run(
            "INSERT INTO clocks(table_id, per_move, bank, strikes, absent, banks, missed, turn_version, turn_seat, "
            "turn_start, deadline, due, stage, paused, time_left, votes, extended) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(table_id) DO UPDATE SET per_move = excluded.per_move, bank = excluded.bank, "
            "strikes = excluded.strikes, absent = excluded.absent, banks = excluded.banks, missed = excluded.missed, "
            "turn_version = excluded.turn_version, turn_seat = excluded.turn_seat, turn_start = excluded.turn_start, "
            "deadline = excluded.deadline, due = excluded.due, stage = excluded.stage, paused = excluded.paused, "
            "time_left = excluded.time_left, votes = excluded.votes, extended = excluded.extended",
            c.table_id, c.per_move, c.bank, c.strikes, c.absent, codec.dumps(c.banks), codec.dumps(c.missed),
            c.turn_version, c.turn_seat, c.turn_start, c.deadline, c.due, c.stage, int(c.paused), c.time_left,
            codec.dumps(c.votes), c.extended)

    async def due_tables(self, now: float, limit: int = 200) -> list[tuple[int, float]]:
        """(table, due) whose next clock event has come, earliest first (the partial index answers this)."""
        rows = await self._all("SELECT table_id, due FROM clocks WHERE due IS NOT NULL AND due <= ? "
                               "ORDER BY due LIMIT ?", now, limit)
        return [(r["table_id"], r["due"]) for r in rows]

    async def next_due(self) -> float | None:
        row = await self._one("SELECT MIN(due) AS due FROM clocks WHERE due IS NOT NULL")
        return row["due"] if row else None

    async def clocks_of(self, table_ids: list[int]) -> dict[int, ClockRow]:
        if not table_ids:
            return {}
        marks = ", ".join("?" for _ in table_ids)
        rows = await self._all(f"SELECT * FROM clocks WHERE table_id IN ({marks})", *table_ids)
        return {r["table_id"]: _clock(r) for r in rows}

    async def prefs(self, user_id: int) -> Prefs:
        row = await self._one("SELECT tz, quiet_from, quiet_to FROM user_prefs WHERE user_id = ?", user_id)
        return Prefs(row["tz"], row["quiet_from"], row["quiet_to"]) if row else Prefs()

    async def save_prefs(self, user_id: int, prefs: Prefs) -> None:
        await self._run(
            "INSERT INTO user_prefs(user_id, tz, quiet_from, quiet_to) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(user_id) DO UPDATE SET tz = excluded.tz, quiet_from = excluded.quiet_from, "
            "quiet_to = excluded.quiet_to", user_id, prefs.tz, prefs.quiet_from, prefs.quiet_to)

    async def playing_without_clock(self) -> list[int]:
        """Tables in play from before clocks existed (once, at the first start after the upgrade)."""
        rows = await self._all("SELECT t.id FROM tables t LEFT JOIN clocks c ON c.table_id = t.id "
                               "WHERE t.status = 'playing' AND c.table_id IS NULL ORDER BY t.id")
        return [r["id"] for r in rows]

    async def forget_hand(self, user_id: int, slot_prefix: str) -> list[int]:
        """A seat changes hands: drop its former player's queued hand messages and the slots that name their
        messages (so the next owner's cards are never merged into a row for the old chat, nor an edit aimed at
        the old chat's message ids). Returns the message ids whose keyboards should be cleared."""
        like = slot_prefix + "%"
        await self._run("DELETE FROM outbox WHERE status = 'pending' AND chat_id = ? AND merge_key LIKE ?",
                        user_id, "slot:" + like)
        rows = await self._all("SELECT message_id FROM slots WHERE chat_id = ? AND slot LIKE ?", user_id, like)
        await self._run("DELETE FROM slots WHERE chat_id = ? AND slot LIKE ?", user_id, like)
        return [r["message_id"] for r in rows]

    # -- the inbox (bot/intake.py) ---------------------------------------------------------
    async def inbox_put(self, update_id: int, payload: str) -> bool:
        """Keep an update until it is handled; False when it was handled already or is waiting.
        One statement (the check is its WHERE): it runs for every update."""
        return await self._run("INSERT INTO inbox(update_id, payload, received_at) SELECT ?, ?, ? "
                               "WHERE NOT EXISTS (SELECT 1 FROM updates WHERE update_id = ?) "
                               "ON CONFLICT DO NOTHING", update_id, payload, time.time(), update_id) == 1

    async def inbox_waiting(self) -> list[tuple[int, str]]:
        """What is left to handle (one process: everything in the inbox)."""
        rows = await self._all("SELECT update_id, payload FROM inbox ORDER BY update_id")
        return [(r["update_id"], r["payload"]) for r in rows]

    async def inbox_payload(self, update_id: int) -> str | None:
        """An update as received and stored (the handler of a press reads the pressed keyboard from it)."""
        row = await self._one("SELECT payload FROM inbox WHERE update_id = ?", update_id)
        return None if row is None else str(row["payload"])

    async def inbox_done(self, update_id: int) -> None:
        """The update was handled: remember its id (duplicates are refused) and drop its payload."""
        await self._run("INSERT INTO updates(update_id) VALUES (?) ON CONFLICT DO NOTHING", update_id)
        await self._run("DELETE FROM inbox WHERE update_id = ?", update_id)

    async def inbox_depth(self) -> int:
        row = await self._one("SELECT COUNT(*) AS n FROM inbox")
        return int(row["n"]) if row else 0

    # -- retention (bot/services/retention.py): each call deletes at most ``limit`` rows -------------
    async def latest_update(self) -> int | None:
        row = await self._one("SELECT MAX(update_id) AS m FROM updates")
        return row["m"] if row else None

    async def prune_updates(self, low: int, high: int, limit: int) -> int:
        """Forget handled update ids below ``low`` or above ``high``."""
        return await self._run("DELETE FROM updates WHERE update_id IN (SELECT update_id FROM updates "
                               "WHERE update_id < ? OR update_id > ? LIMIT ?)", low, high, limit)

    async def prune_failed(self, keep: int, limit: int) -> int:
        """Delete outbox rows kept as failed, beyond the newest ``keep``."""
        row = await self._one("SELECT id FROM outbox WHERE status = 'failed' ORDER BY id DESC LIMIT 1 OFFSET ?",
                              keep - 1)
        if row is None:
            return 0
        return await self._run("DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE status = 'failed' "
                               "AND id < ? LIMIT ?)", row["id"], limit)

    async def ended_with_slots(self, before: float, limit: int) -> list[int]:
        """Tables finished or cancelled before ``before`` whose slots are not pruned yet."""
        rows = await self._all(f"SELECT id FROM tables WHERE status IN ('finished', 'cancelled') "
                               f"AND updated_at < ? AND {self._UI_PRUNED} IS NULL ORDER BY id LIMIT ?", before, limit)
        return [r["id"] for r in rows]

    async def prune_slots(self, table_id: int) -> int:
        """Forget which messages showed an ended table (its table, DM hand, group hand, lay-down proposal and
        lobby slots); marks it done."""
        total = 0
        for prefix in (f"t{table_id}:", f"h{table_id}:", f"e{table_id}:", f"rp{table_id}:"):
            total += max(0, await self._run("DELETE FROM slots WHERE slot >= ? AND slot < ?",
                                            prefix, prefix[:-1] + ";"))  # ';' sorts right after ':'
        total += max(0, await self._run("DELETE FROM slots WHERE slot = ?", f"lobby:{table_id}"))
        await self._run(f"UPDATE tables SET ui = {self._MARK_PRUNED} WHERE id = ?", table_id)
        return total

    async def prune_documents(self, limit: int) -> int:
        """Delete the bytes of documents no queued row sends any more."""
        order = self._BLOB_ORDER
        return await self._run(
            f"DELETE FROM blobs WHERE {order} IN (SELECT {order} FROM blobs WHERE length(data) > 0 AND key NOT IN "
            f"(SELECT {self._PAYLOAD_BLOB} FROM outbox WHERE method = 'document' "
            f"AND {self._PAYLOAD_BLOB} IS NOT NULL) LIMIT ?)", limit)

    async def prune_file_ids(self, keep: int, limit: int) -> int:
        """Forget Telegram file ids of drawn pictures beyond the newest ``keep`` (one costs an upload again)."""
        order = self._BLOB_ORDER
        row = await self._one(f"SELECT {order} AS r FROM blobs WHERE length(data) = 0 ORDER BY {order} DESC "
                              "LIMIT 1 OFFSET ?", keep - 1)
        if row is None:
            return 0
        return await self._run(f"DELETE FROM blobs WHERE {order} IN (SELECT {order} FROM blobs "
                               f"WHERE length(data) = 0 AND {order} < ? LIMIT ?)", row["r"], limit)

    # -- the league: configuration and admin actions (migration 0003) -----------------------------
    async def league_config(self, chat_id: int) -> tuple[str, int, float, bool] | None:
        """The chat's season rule (kind, days, anchor) and whether it keeps a league per forum topic."""
        row = await self._one("SELECT season_kind, season_days, anchor, per_topic FROM league_config "
                              "WHERE chat_id = ?", chat_id)
        if row is None:
            return None
        return row["season_kind"], row["season_days"], row["anchor"], bool(row["per_topic"])

    async def set_league_config(self, chat_id: int, kind: str, days: int, anchor: float, per_topic: bool) -> None:
        await self._run(
            "INSERT INTO league_config(chat_id, season_kind, season_days, anchor, per_topic) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(chat_id) DO UPDATE SET season_kind = excluded.season_kind, "
            "season_days = excluded.season_days, anchor = excluded.anchor, per_topic = excluded.per_topic",
            chat_id, kind, days, anchor, int(per_topic))

    async def league_excluded(self, chat_id: int, topic: int) -> set[int]:
        rows = await self._all("SELECT player FROM league_excluded WHERE chat_id = ? AND topic = ?", chat_id, topic)
        return {r["player"] for r in rows}

    async def all_league_excluded(self) -> list[tuple[int, int, int]]:
        """(chat, topic, player) of every exclusion (a rebuild needs them all)."""
        rows = await self._all("SELECT chat_id, topic, player FROM league_excluded")
        return [(r["chat_id"], r["topic"], r["player"]) for r in rows]

    async def set_league_excluded(self, chat_id: int, topic: int, player: int, on: bool) -> bool:
        """Exclude (or include again) a player; False when nothing changed."""
        if on:
            changed = await self._run("INSERT INTO league_excluded(chat_id, topic, player) VALUES (?, ?, ?) "
                                      "ON CONFLICT DO NOTHING", chat_id, topic, player)
        else:
            changed = await self._run("DELETE FROM league_excluded WHERE chat_id = ? AND topic = ? AND player = ?",
                                      chat_id, topic, player)
        return changed == 1

    async def league_log(self, chat_id: int, topic: int, at: float, admin_id: int, action: str, target: str,
                         reason: str = "") -> None:
        await self._run("INSERT INTO league_log(chat_id, topic, at, admin_id, action, target, reason) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)", chat_id, topic, at, admin_id, action, target, reason)

    async def remove_league_match(self, chat_id: int, topic: int, match_id: int, reason: str) -> bool:
        """Mark a match of this league removed (kept in the log, out of every rating); False if there is none."""
        return await self._run("UPDATE league_matches SET removed = 1, removed_reason = ? WHERE id = ? "
                               "AND chat_id = ? AND topic = ? AND removed = 0",
                               reason, match_id, chat_id, topic) == 1

    async def archive_season(self, chat_id: int, topic: int, season: str, at: float) -> bool:
        """Mark a season closed; False when it already was."""
        return await self._run("INSERT INTO league_seasons(chat_id, topic, season, closed_at) VALUES (?, ?, ?, ?) "
                               "ON CONFLICT DO NOTHING", chat_id, topic, season, at) == 1

    # -- the league: matches and ratings ------------------------------------------------------
    async def insert_league_match(self, table_id: int, chat_id: int, topic: int, season: str, game: str,
                                  finished_at: float, options: dict[str, Any], teams: list[list[int]],
                                  deal_teams: list[list[list[int]]], record: dict[str, Any],
                                  seats: list[MatchSeat]) -> int:
        """Store a finished table as a match with its seats; returns the match id."""
        row = await self._one(
            "INSERT INTO league_matches(table_id, chat_id, topic, season, game, finished_at, options, teams, "
            "deal_teams, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            table_id, chat_id, topic, season, game, finished_at, codec.dumps(options),
            codec.dumps(teams), codec.dumps(deal_teams), codec.dumps(record))
        match_id = int(row["id"])
        await self._run_many("INSERT INTO league_seats(match_id, seat, player, name, team, score, place) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?)", [(match_id, *seat) for seat in seats])
        return match_id

    async def has_league_match(self, table_id: int) -> bool:
        return await self._one("SELECT 1 FROM league_matches WHERE table_id = ?", table_id) is not None

    async def league_standing(self, chat_id: int, topic: int, season: str, game: str,
                              player: int) -> tuple[str, float, float, int, int] | None:
        """(name, mu, sigma, games, wins) of a player in one league, season and game."""
        row = await self._one("SELECT name, mu, sigma, games, wins FROM league_ratings WHERE chat_id = ? "
                              "AND topic = ? AND season = ? AND game = ? AND player = ?",
                              chat_id, topic, season, game, player)
        return (row["name"], row["mu"], row["sigma"], row["games"], row["wins"]) if row else None

    async def write_league_ratings(self, rows: list[LeagueRating]) -> None:
        """Insert or replace ratings (one row per league, season, game and player)."""
        await self._run_many(
            "INSERT INTO league_ratings(chat_id, topic, season, game, player, name, mu, sigma, games, wins, shown) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(chat_id, topic, season, game, player) DO UPDATE "
            "SET name = excluded.name, mu = excluded.mu, sigma = excluded.sigma, games = excluded.games, "
            "wins = excluded.wins, shown = excluded.shown", list(rows))

    async def write_seat_ratings(self, rows: list[SeatRating]) -> None:
        """Each seat keeps its ratings after the match: the history /stats charts and /top's trend read."""
        await self._run_many("UPDATE league_seats SET mu = ?, sigma = ?, mu_all = ?, sigma_all = ? "
                             "WHERE match_id = ? AND seat = ?",
                             [(mu, sigma, mu_all, sigma_all, match, seat)
                              for match, seat, mu, sigma, mu_all, sigma_all in rows])

    async def replace_league_ratings(self, chat_id: int | None, rows: list[LeagueRating]) -> None:
        """Every rating of one chat (or of all chats) replaced by ``rows`` (a recompute)."""
        if chat_id is None:
            await self._run("DELETE FROM league_ratings")
        else:
            await self._run("DELETE FROM league_ratings WHERE chat_id = ?", chat_id)
        await self._run_many(
            "INSERT INTO league_ratings(chat_id, topic, season, game, player, name, mu, sigma, games, wins, shown) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", list(rows))

    async def league_ratings(self, chat_id: int | None) -> list[LeagueRating]:
        where, args = ("WHERE chat_id = ?", [chat_id]) if chat_id is not None else ("", [])
        rows = await self._all("SELECT chat_id, topic, season, game, player, name, mu, sigma, games, wins, shown "
                               f"FROM league_ratings {where}", *args)
        return [tuple(r) for r in rows]  # eleven columns, as LeagueRating lists them

    async def league_seat_ratings(self, chat_id: int | None) -> list[SeatRating]:
        where, args = ("WHERE m.chat_id = ?", [chat_id]) if chat_id is not None else ("", [])
        rows = await self._all("SELECT s.match_id, s.seat, s.mu, s.sigma, s.mu_all, s.sigma_all FROM league_seats s "
                               f"JOIN league_matches m ON m.id = s.match_id {where}", *args)
        return [tuple(r) for r in rows]  # six columns, as SeatRating lists them

    async def league_match_seats(self, chat_id: int | None) -> list[tuple[Any, ...]]:
        """Every seat of every match (of one chat), in match id and seat order: id, chat, topic, season, game,
        finished_at, teams (JSON), removed, then the seat's seat, player, name, team, score, place."""
        where, args = ("WHERE m.chat_id = ?", [chat_id]) if chat_id is not None else ("", [])
        return await self._tuples(
            "SELECT m.id, m.chat_id, m.topic, m.season, m.game, m.finished_at, m.teams, m.removed, s.seat, s.player, "
            f"s.name, s.team, s.score, s.place FROM league_matches m JOIN league_seats s ON s.match_id = m.id {where} "
            "ORDER BY m.id, s.seat", *args)

    async def _tuples(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in await self._all(sql, *args)]

    # -- the league: what people read -------------------------------------------------------------
    async def league_top(self, chat_id: int, topic: int, season: str, game: str,
                         limit: int) -> list[tuple[int, str, float, int, int]]:
        """(player, name, shown, games, wins), best first."""
        rows = await self._all(
            "SELECT player, name, shown, games, wins FROM league_ratings WHERE chat_id = ? AND topic = ? "
            "AND season = ? AND game = ? ORDER BY shown DESC, games DESC, player LIMIT ?",
            chat_id, topic, season, game, limit)
        return [(r["player"], r["name"], r["shown"], r["games"], r["wins"]) for r in rows]

    async def league_rating_at(self, chat_id: int, topic: int, season: str, game: str | None, player: int,
                               when: float) -> tuple[float, float] | None:
        """(mu, sigma) after the player's last match before ``when``, in one game or overall (``game`` None)."""
        mu, sigma = ("s.mu", "s.sigma") if game else ("s.mu_all", "s.sigma_all")
        row = await self._one(
            f"SELECT {mu} AS mu, {sigma} AS sigma FROM league_seats s JOIN league_matches m ON m.id = s.match_id "
            f"WHERE s.player = ? AND m.chat_id = ? AND m.topic = ? AND m.season = ? AND m.finished_at < ? "
            f"AND m.removed = 0 AND {mu} IS NOT NULL" + (" AND m.game = ?" if game else "") +
            " ORDER BY s.match_id DESC LIMIT 1",
            player, chat_id, topic, season, when, *([game] if game else []))
        return (row["mu"], row["sigma"]) if row else None

    async def league_games_of(self, chat_id: int, topic: int,
                              player: int) -> list[tuple[str, int, int, float, int]]:
        """Per game over every season: (game, games, wins, average place, best score), most played first."""
        rows = await self._all(
            "SELECT m.game, COUNT(*) AS games, SUM(CASE WHEN s.place = 1 THEN 1 ELSE 0 END) AS wins, "
            "AVG(s.place) AS avg_place, MAX(s.score) AS best FROM league_seats s "
            "JOIN league_matches m ON m.id = s.match_id WHERE s.player = ? AND m.chat_id = ? AND m.topic = ? "
            "AND m.removed = 0 GROUP BY m.game ORDER BY games DESC, m.game", player, chat_id, topic)
        return [(r["game"], int(r["games"]), int(r["wins"]), float(r["avg_place"]), r["best"]) for r in rows]

    async def league_rating(self, chat_id: int, topic: int, season: str, game: str,
                            player: int) -> tuple[float, int] | None:
        """(shown rating, games) of a player in one league, season and game."""
        row = await self._one("SELECT shown, games FROM league_ratings WHERE chat_id = ? AND topic = ? AND "
                              "season = ? AND game = ? AND player = ?", chat_id, topic, season, game, player)
        return (row["shown"], row["games"]) if row else None

    async def league_history(self, chat_id: int, topic: int, season: str, game: str, player: int,
                             limit: int) -> list[tuple[float, float]]:
        """(mu, sigma) after each of the player's last ``limit`` rated matches, newest first."""
        rows = await self._all(
            "SELECT s.mu, s.sigma FROM league_seats s JOIN league_matches m ON m.id = s.match_id WHERE s.player = ? "
            "AND m.chat_id = ? AND m.topic = ? AND m.season = ? AND m.game = ? AND m.removed = 0 "
            "AND s.mu IS NOT NULL ORDER BY s.match_id DESC LIMIT ?", player, chat_id, topic, season, game, limit)
        return [(r["mu"], r["sigma"]) for r in rows]

    async def league_meetings(self, chat_id: int, topic: int, a: int, b: int) -> list[tuple[str, int, int]]:
        """(game, a's place, b's place) of every match both played, oldest first."""
        rows = await self._all(
            "SELECT m.game, sa.place AS pa, sb.place AS pb FROM league_seats sa "
            "JOIN league_seats sb ON sb.match_id = sa.match_id AND sb.player = ? "
            "JOIN league_matches m ON m.id = sa.match_id "
            "WHERE sa.player = ? AND m.chat_id = ? AND m.topic = ? AND m.removed = 0 ORDER BY m.id",
            b, a, chat_id, topic)
        return [(r["game"], r["pa"], r["pb"]) for r in rows]

    async def league_export(self, chat_id: int, topic: int) -> list[tuple[Any, ...]]:
        """Every seat of every match of the league: id, finished_at, season, game, table, removed, reason,
        seat, player, name, team, score, place, mu, sigma."""
        return await self._tuples(
            "SELECT m.id, m.finished_at, m.season, m.game, m.table_id, m.removed, m.removed_reason, s.seat, "
            "s.player, s.name, s.team, s.score, s.place, s.mu, s.sigma FROM league_matches m JOIN league_seats s "
            "ON s.match_id = m.id WHERE m.chat_id = ? AND m.topic = ? ORDER BY m.id, s.seat", chat_id, topic)

    async def league_open_seasons(self) -> list[tuple[int, int, str]]:
        """(chat, topic, season) of every season with matches that is not archived yet."""
        rows = await self._all(
            "SELECT DISTINCT m.chat_id, m.topic, m.season FROM league_matches m LEFT JOIN league_seasons z "
            "ON z.chat_id = m.chat_id AND z.topic = m.topic AND z.season = m.season WHERE z.season IS NULL "
            "ORDER BY m.chat_id, m.topic, m.season")
        return [(r["chat_id"], r["topic"], r["season"]) for r in rows]

    async def league_seasons(self, chat_id: int, topic: int) -> list[str]:
        rows = await self._all("SELECT DISTINCT season FROM league_matches WHERE chat_id = ? AND topic = ? "
                               "ORDER BY season DESC", chat_id, topic)
        return [r["season"] for r in rows]

    async def user_by_username(self, username: str) -> tuple[int, str] | None:
        """(user id, first name) of the user with this @username (any case)."""
        row = await self._one("SELECT user_id, first_name FROM users WHERE lower(username) = lower(?)", username)
        return (row["user_id"], row["first_name"]) if row else None

    async def league_names(self, chat_id: int, topic: int) -> list[tuple[int, str]]:
        """(player, name) pairs played under in this league, the most recent first."""
        rows = await self._all(
            "SELECT s.player, s.name, MAX(s.match_id) AS last FROM league_seats s JOIN league_matches m "
            "ON m.id = s.match_id WHERE m.chat_id = ? AND m.topic = ? GROUP BY s.player, s.name "
            "ORDER BY last DESC", chat_id, topic)
        return [(r["player"], r["name"]) for r in rows]

    async def league_recent(self, chat_id: int, topic: int, limit: int = 10) -> list[dict[str, Any]]:
        """The latest matches: id, game, finished_at, removed, and who (names with scores)."""
        rows = await self._all(
            f"SELECT m.id, m.game, m.finished_at, m.removed, {self._NAMES_AND_SCORES} AS who "
            "FROM league_matches m JOIN league_seats s ON s.match_id = m.id WHERE m.chat_id = ? AND m.topic = ? "
            "GROUP BY m.id, m.game, m.finished_at, m.removed ORDER BY m.id DESC LIMIT ?", chat_id, topic, limit)
        return [{"id": r["id"], "game": r["game"], "finished_at": r["finished_at"], "removed": r["removed"],
                 "who": r["who"]} for r in rows]

    # -- tournaments ----------------------------------------------------------------------------
    async def create_tournament(self, row: TournamentRow) -> int:
        made = await self._one(
            "INSERT INTO tournaments(chat_id, thread_id, game, options, format, settings, status, creator_id, seed, "
            "round, closes_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            row.chat_id, row.thread_id, row.game, codec.dumps(row.options), row.format, codec.dumps(row.settings),
            row.status, row.creator_id, row.seed, row.round, row.closes_at, row.created_at)
        row.id = int(made["id"])
        return row.id

    async def tournament(self, tournament_id: int) -> TournamentRow | None:
        r = await self._one("SELECT * FROM tournaments WHERE id = ?", tournament_id)
        return _tournament(r) if r else None

    async def open_tournament(self, chat_id: int, thread_id: int) -> TournamentRow | None:
        """The chat's (topic's) tournament taking entrants or running, if any."""
        r = await self._one("SELECT * FROM tournaments WHERE chat_id = ? AND thread_id = ? "
                            "AND status IN ('registration', 'running') ORDER BY id DESC LIMIT 1", chat_id, thread_id)
        return _tournament(r) if r else None

    async def live_tournaments(self) -> list[TournamentRow]:
        """Every tournament taking entrants or running (their timers after a restart)."""
        rows = await self._all("SELECT * FROM tournaments WHERE status IN ('registration', 'running') ORDER BY id")
        return [_tournament(r) for r in rows]

    async def save_tournament(self, row: TournamentRow) -> None:
        await self._run("UPDATE tournaments SET settings = ?, status = ?, round = ?, closes_at = ?, finished_at = ?, "
                        "thread_id = ? WHERE id = ?", codec.dumps(row.settings), row.status, row.round, row.closes_at,
                        row.finished_at, row.thread_id, row.id)

    async def add_entrant(self, tournament_id: int, entrant: EntrantRow) -> bool:
        """Enter a player; False when they already are."""
        return await self._run(
            "INSERT INTO tournament_entrants(tournament_id, user_id, name, rating, joined_round) "
            "VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (tournament_id, user_id) DO NOTHING",
            tournament_id, entrant.user_id, entrant.name, entrant.rating, entrant.joined_round) > 0

    async def remove_entrant(self, tournament_id: int, user_id: int) -> bool:
        return await self._run("DELETE FROM tournament_entrants WHERE tournament_id = ? AND user_id = ?",
                               tournament_id, user_id) > 0

    async def entrants(self, tournament_id: int) -> list[EntrantRow]:
        rows = await self._all("SELECT user_id, name, rating, joined_round, withdrawn FROM tournament_entrants "
                               "WHERE tournament_id = ? ORDER BY user_id", tournament_id)
        return [EntrantRow(r["user_id"], r["name"], r["rating"], r["joined_round"], r["withdrawn"]) for r in rows]

    async def withdraw_entrant(self, tournament_id: int, user_id: int, from_round: int) -> bool:
        return await self._run("UPDATE tournament_entrants SET withdrawn = ? WHERE tournament_id = ? AND user_id = ? "
                               "AND withdrawn IS NULL", from_round, tournament_id, user_id) > 0

    async def add_board(self, board: BoardRow) -> None:
        await self._run("INSERT INTO tournament_boards(tournament_id, round, board, kind, players, table_id) "
                        "VALUES (?, ?, ?, ?, ?, ?)", board.tournament_id, board.round, board.board, board.kind,
                        codec.dumps(board.players), board.table_id)

    async def set_board_table(self, tournament_id: int, round_no: int, board: int, table_id: int) -> None:
        await self._run("UPDATE tournament_boards SET table_id = ? WHERE tournament_id = ? AND round = ? AND board = ?",
                        table_id, tournament_id, round_no, board)

    async def boards(self, tournament_id: int) -> list[BoardRow]:
        rows = await self._all("SELECT * FROM tournament_boards WHERE tournament_id = ? ORDER BY round, board",
                               tournament_id)
        return [_board(r) for r in rows]

    async def board_of_table(self, table_id: int) -> BoardRow | None:
        r = await self._one("SELECT * FROM tournament_boards WHERE table_id = ?", table_id)
        return _board(r) if r else None

    async def add_board_results(self, tournament_id: int, round_no: int, board: int, places: dict[int, int]) -> bool:
        """A board's places; False when they were stored already (a finished table is told once)."""
        if await self._one("SELECT 1 FROM tournament_results WHERE tournament_id = ? AND round = ? AND board = ? "
                           "LIMIT 1", tournament_id, round_no, board):
            return False
        await self._run_many("INSERT INTO tournament_results(tournament_id, round, board, player, place) "
                             "VALUES (?, ?, ?, ?, ?)",
                             [(tournament_id, round_no, board, p, place) for p, place in places.items()])
        return True

    async def tournament_results(self, tournament_id: int) -> list[tuple[int, int, int, int]]:
        """(round, board, player, place) of every stored result, in order."""
        rows = await self._all("SELECT round, board, player, place FROM tournament_results WHERE tournament_id = ? "
                               "ORDER BY round, board, place, player", tournament_id)
        return [(r["round"], r["board"], r["player"], r["place"]) for r in rows]

    async def league_tournaments(self, chat_id: int, topic: int, limit: int = 5) -> list[tuple[float, str]]:
        """(when, "game: 1. name (points); 2. ...") of the league's latest finished tournaments."""
        rows = await self._all("SELECT at, target FROM league_log WHERE chat_id = ? AND topic = ? "
                               "AND action = 'tournament' ORDER BY at DESC, id DESC LIMIT ?", chat_id, topic, limit)
        return [(float(r["at"]), r["target"]) for r in rows]

    # -- vacations --------------------------------------------------------------------------------
    async def vacation_days(self, user_id: int, year: int) -> float:
        r = await self._one("SELECT days FROM vacations WHERE user_id = ? AND year = ?", user_id, year)
        return float(r["days"]) if r else 0.0

    async def add_vacation_days(self, user_id: int, year: int, days: float) -> None:
        await self._run("INSERT INTO vacations(user_id, year, days) VALUES (?, ?, ?) ON CONFLICT (user_id, year) "
                        "DO UPDATE SET days = vacations.days + excluded.days", user_id, year, days)

    async def away(self, user_id: int) -> tuple[float, float] | None:
        """(since, until) of the user's vacation, if one is set."""
        r = await self._one("SELECT since, until FROM away WHERE user_id = ?", user_id)
        return (float(r["since"]), float(r["until"])) if r else None

    async def set_away(self, user_id: int, since: float, until: float) -> None:
        await self._run("INSERT INTO away(user_id, since, until) VALUES (?, ?, ?) ON CONFLICT (user_id) "
                        "DO UPDATE SET since = excluded.since, until = excluded.until", user_id, since, until)

    async def clear_away(self, user_id: int) -> None:
        await self._run("DELETE FROM away WHERE user_id = ?", user_id)
