"""Both stores as pytest fixtures: SQLite in a temporary file, PostgreSQL in a schema of its own per test
(tests/conftest.py loads this module as a pytest plugin: the ``store`` fixture, and ``pg_url`` for a bot on
PostgreSQL, are every test's).

PostgreSQL is found at KOZYR_TEST_PG_URL (default postgresql://postgres@127.0.0.1:5432/test); where it
does not answer, or asyncpg is not installed, the PostgreSQL cases skip with a message saying so.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlparse

import pytest

PG_URL = os.environ.get("KOZYR_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("KOZYR_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def answers(url: str, default_port: int) -> bool:
    parts = urlparse(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or default_port), timeout=1):
            return True
    except OSError:
        return False


def need_postgres() -> None:
    pytest.importorskip("asyncpg", reason="asyncpg is not installed (pip install -e '.[postgres]')")
    if not answers(PG_URL, 5432):
        pytest.skip(f"PostgreSQL does not answer at {PG_URL} (set KOZYR_TEST_PG_URL)")


def need_redis() -> None:
    pytest.importorskip("redis", reason="redis-py is not installed (pip install -e '.[postgres]')")
    if not answers(REDIS_URL, 6379):
        pytest.skip(f"Redis does not answer at {REDIS_URL} (set KOZYR_TEST_REDIS_URL)")


def fresh_schema() -> str:
    return f"kozyr_test_{uuid.uuid4().hex[:12]}"


async def drop_schema(schema: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(PG_URL)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


@asynccontextmanager
async def opened(kind: str, tmp_path: Path) -> AsyncIterator:
    """An open, migrated, empty store of ``kind`` ("sqlite" or "postgres"); removed afterwards."""
    if kind == "sqlite":
        from bot.store.sqlite import Store

        store = await Store(tmp_path / "kozyr.sqlite3").open()
        try:
            yield store
        finally:
            await store.close()
        return
    need_postgres()
    from bot.store.postgres import PgStore

    schema = fresh_schema()
    store = PgStore(PG_URL, schema=schema)
    try:
        await store.open()
        yield store
    finally:
        await store.close()
        await drop_schema(schema)


KINDS = ["sqlite", "postgres"]


@pytest.fixture(params=KINDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator:
    """An open, migrated, empty store of each kind in turn (the PostgreSQL case skips where there is none)."""
    async with opened(request.param, tmp_path) as opened_store:
        yield opened_store


@pytest.fixture
async def pg_url() -> AsyncIterator[str]:
    """A DATABASE_URL for a bot on PostgreSQL, in a schema of its own (dropped after the test)."""
    need_postgres()
    import asyncpg

    schema = fresh_schema()
    conn = await asyncpg.connect(PG_URL)
    await conn.execute(f'CREATE SCHEMA "{schema}"')
    await conn.close()
    sep = "&" if "?" in PG_URL else "?"
    yield f"{PG_URL}{sep}search_path={schema}"
    await drop_schema(schema)

