"""Migrations on both stores: a database of the previous schema, with real rows, reaches the newest one
with every row intact; a database newer than this Kozyr is refused; PostgreSQL numbering follows SQLite's."""

from __future__ import annotations

import json
import sqlite3

import pytest

from bot.store import pg_migrate
from bot.store.migrate import SchemaTooNew, latest, migrations
from bot.store.sqlite import Store
from tests.store.backends import PG_URL, drop_schema, fresh_schema, need_postgres

PREVIOUS = latest() - 1


def test_postgres_migrations_follow_the_sqlite_numbering_one_for_one():
    assert [m.version for m in pg_migrate.migrations()] == [m.version for m in migrations()]


def _old_sqlite(path) -> None:
    """A database written by the previous Kozyr: its schema, and a game in progress."""
    db = sqlite3.connect(path, isolation_level=None)
    for m in migrations()[:PREVIOUS]:
        db.executescript(f"BEGIN;\n{m.sql}\n;PRAGMA user_version = {m.version};\nCOMMIT;")
    db.execute("INSERT INTO users(user_id, first_name, lang, lang_set, started) VALUES (1, 'Ann', 'ru', 1, 1)")
    db.execute("INSERT INTO tables(chat_id, game, status, creator_id, options, seed, version, state, ui, "
               "created_at, updated_at) VALUES (-5, 'carnival', 'playing', 1, '{\"quarters\": 1}', 42, 7, "
               "'{\"deal\": 2}', '{}', 1.0, 2.0)")
    db.execute("INSERT INTO seats VALUES (1, 0, 1, 'Ann'), (1, 1, NULL, 'AI')")
    db.execute("INSERT INTO actions VALUES (1, 0, 0, 'bid:2', 1.5)")
    db.execute("INSERT INTO outbox(chat_id, method, payload) VALUES (-5, 'send', '{\"text\":\"hi\"}')")
    db.close()


async def test_sqlite_from_the_previous_schema_keeps_a_game_in_progress(tmp_path):
    path = tmp_path / "old.sqlite3"
    _old_sqlite(path)
    store = await Store(path).open()
    try:
        assert store.migrated == [m.name for m in migrations()[PREVIOUS:]]
        async with store.transaction() as tx:
            table = await tx.table(1)
            assert (table.status, table.version, table.state, table.options) == \
                ("playing", 7, {"deal": 2}, {"quarters": 1})
            assert [s.name for s in await tx.seats(1)] == ["Ann", "AI"]
            assert await tx.actions(1) == [[0, "bid:2"]]
            assert await tx.user_lang(1) == "ru"
            assert [h.payload for h in await tx.heads()] == [{"text": "hi"}]
            await tx.set_join_token(1, "tok")  # the table migration 4 added works on old rows
            assert (await tx.token_table("tok")).id == 1
    finally:
        await store.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == latest()


async def test_sqlite_newer_than_this_kozyr_is_refused(tmp_path):
    path = tmp_path / "new.sqlite3"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {latest() + 1}")
    db.close()
    with pytest.raises(SchemaTooNew, match="newer version"):
        await Store(path).open()


async def test_postgres_from_the_previous_schema_keeps_a_game_in_progress():
    need_postgres()
    import asyncpg

    from bot.store.postgres import PgStore

    schema = fresh_schema()
    conn = await asyncpg.connect(PG_URL, server_settings={"search_path": schema})
    try:
        await conn.execute(f'CREATE SCHEMA "{schema}"')
        await conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for m in pg_migrate.migrations()[:PREVIOUS]:
            await conn.execute(m.sql)
        await conn.execute("INSERT INTO schema_version VALUES ($1)", PREVIOUS)
        await conn.execute("INSERT INTO users(user_id, first_name, lang, lang_set) VALUES (1, 'Ann', 'ru', 1)")
        await conn.execute("INSERT INTO tables(chat_id, game, status, creator_id, options, seed, version, state, "
                           "created_at, updated_at) VALUES (-5, 'carnival', 'playing', 1, $1, 42, 7, $2, 1, 2)",
                           json.dumps({"quarters": 1}), json.dumps({"deal": 2}))
        tid = await conn.fetchval("SELECT id FROM tables")
        await conn.execute("INSERT INTO seats VALUES ($1, 0, 1, 'Ann'), ($1, 1, NULL, 'AI')", tid)
        await conn.execute("INSERT INTO actions VALUES ($1, 0, 0, 'bid:2', 1.5)", tid)
        await conn.close()
        store = await PgStore(PG_URL, schema=schema).open()
        try:
            assert store.migrated == [m.name for m in pg_migrate.migrations()[PREVIOUS:]]
            async with store.transaction() as tx:
                table = await tx.table(tid)
                assert (table.status, table.version, table.state) == ("playing", 7, {"deal": 2})
                assert [s.name for s in await tx.seats(tid)] == ["Ann", "AI"]
                assert await tx.actions(tid) == [[0, "bid:2"]] and await tx.user_lang(1) == "ru"
                await tx.set_join_token(tid, "tok")
                assert (await tx.token_table("tok")).id == tid
                assert await tx.conn.fetchval("SELECT version FROM schema_version") == latest()
            # a second start (another worker) applies nothing
            again = await PgStore(PG_URL, schema=schema).open()
            assert again.migrated == []
            await again.close()
        finally:
            await store.close()
    finally:
        if not conn.is_closed():
            await conn.close()
        await drop_schema(schema)


async def test_postgres_newer_than_this_kozyr_is_refused():
    need_postgres()
    import asyncpg

    from bot.store.postgres import PgStore

    schema = fresh_schema()
    conn = await asyncpg.connect(PG_URL)
    try:
        await conn.execute(f'CREATE SCHEMA "{schema}"')
        await conn.execute(f'CREATE TABLE "{schema}".schema_version (version INTEGER NOT NULL)')
        await conn.execute(f'INSERT INTO "{schema}".schema_version VALUES ($1)', latest() + 1)
        store = PgStore(PG_URL, schema=schema)
        with pytest.raises(SchemaTooNew, match="newer version"):
            await store.open()
        await store.close()
    finally:
        await conn.close()
        await drop_schema(schema)
