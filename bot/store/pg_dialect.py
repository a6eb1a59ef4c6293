"""The SQLite-flavoured SQL some modules still send through ``tx.db`` / ``tx._one`` / ``tx._all``
(the league, retention, the inbox), run on PostgreSQL.

Why: those modules predate the store contract and write their queries inline; until each moves its
queries behind bot/store/contract.py, this adapter lets the same text run on PostgreSQL. It knows a
closed list of rewrites, each tested in tests/store/test_pg_dialect.py; anything else SQLite-only is
passed through and PostgreSQL's own error names it.

- ``?`` placeholders become ``$1, $2, ...``;
- ``INSERT OR IGNORE`` becomes ``ON CONFLICT DO NOTHING``; ``INSERT OR REPLACE`` an upsert on the
  table's primary key (``PRIMARY_KEYS``);
- ``json_extract(col, '$.k')`` becomes ``(col::jsonb ->> 'k')``; ``json_set(col, '$.k', 1)`` a jsonb merge;
- ``rowid`` becomes the table's primary key (``ROWID``); ``length(blob)`` is ``octet_length``;
- an ``INSERT`` into a table with an ``id`` gets ``RETURNING id``, so ``cursor.lastrowid`` works.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

PRIMARY_KEYS = {
    "league_ratings": ("chat_id", "topic", "season", "game", "player"),
    "league_config": ("chat_id",),
    "results": ("table_id", "seat"),
    "slots": ("slot",),
    "join_tokens": ("token",),
}
WITH_ID = {"tables", "outbox", "league_matches", "league_log"}
ROWID = {"blobs": "key"}  # SQLite's rowid orders rows by insertion; blobs has no such column here

_OR = re.compile(r"^\s*INSERT\s+OR\s+(IGNORE|REPLACE)\s+INTO\s+(\w+)\s*\(([^)]*)\)", re.I | re.S)
_INTO = re.compile(r"^\s*INSERT\s+INTO\s+(\w+)", re.I)
_JSON_EXTRACT = re.compile(r"json_extract\((\w+),\s*'\$\.(\w+)'\)", re.I)
_JSON_SET = re.compile(r"json_set\((\w+),\s*'\$\.(\w+)',\s*(\d+)\)", re.I)


def translate(sql: str) -> tuple[str, bool]:
    """The PostgreSQL text of ``sql``, and whether it returns the new row's id."""
    returning = False
    match = _OR.match(sql)
    if match:
        kind, table, cols = match.group(1).upper(), match.group(2), [c.strip() for c in match.group(3).split(",")]
        sql = re.sub(r"INSERT\s+OR\s+\w+\s+INTO", "INSERT INTO", sql, count=1, flags=re.I)
        if kind == "IGNORE":
            sql += " ON CONFLICT DO NOTHING"
        else:
            key = PRIMARY_KEYS[table]
            sets = ", ".join(f"{c} = excluded.{c}" for c in cols if c not in key)
            sql += f" ON CONFLICT ({', '.join(key)}) DO " + (f"UPDATE SET {sets}" if sets else "NOTHING")
    else:
        into = _INTO.match(sql)
        if into and into.group(1) in WITH_ID and "RETURNING" not in sql.upper():
            sql += " RETURNING id"
            returning = True
    sql = _JSON_EXTRACT.sub(r"(\1::jsonb ->> '\2')", sql)
    sql = _JSON_SET.sub(r"(\1::jsonb || jsonb_build_object('\2', \3))::text", sql)
    for table, key in ROWID.items():
        if re.search(rf"\b{table}\b", sql):
            sql = re.sub(r"\browid\b", key, sql)
    sql = re.sub(r"\blength\(data\)", "octet_length(data)", sql)
    count = iter(range(1, 10**6))
    sql = re.sub(r"\?", lambda _: f"${next(count)}", sql)
    return sql, returning


def _rowcount(status: str) -> int:
    tail = status.rsplit(" ", 1)[-1]
    return int(tail) if tail.isdigit() else -1


@dataclass
class Cursor:
    rowcount: int
    lastrowid: int | None = None


class SqliteDialect:
    """The slice of aiosqlite's connection those modules use, on an asyncpg connection."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    async def execute(self, sql: str, parameters: Any = ()) -> Cursor:
        text, returning = translate(sql)
        if returning:
            row = await self.conn.fetchrow(text, *parameters)
            return Cursor(1 if row else 0, row["id"] if row else None)
        return Cursor(_rowcount(await self.conn.execute(text, *parameters)))

    async def executemany(self, sql: str, parameters: Any) -> Cursor:
        text, _ = translate(sql)
        rows = list(parameters)
        if rows:
            await self.conn.executemany(text, rows)
        return Cursor(len(rows))

    async def execute_fetchall(self, sql: str, parameters: Any = ()) -> list[Any]:
        return await self.conn.fetch(translate(sql)[0], *parameters)
