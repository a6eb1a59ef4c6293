"""Workers on one PostgreSQL database refuse to start beside a live worker whose settings they cannot share
(bot/store/pg_workers.py): another WEBHOOK_SECRET, or code expecting another schema version. Real
``python -m bot`` processes against the fake Bot API, with Redis; the store-level cases open the real store.

A worker of an older Kozyr cannot be run here, so "a live older worker" is what one is to the others: a
PostgreSQL session holding its presence lock, and its row in the registry.
"""

from __future__ import annotations

import pytest

from tests.bot.procs import BotProcess
from tests.store.backends import PG_URL, drop_schema, need_postgres, need_redis
from tests.store.worker_process import SECRET, new_schema, spawn_worker


def current_schema() -> int:
    from bot.store.pg_migrate import migrations

    return migrations()[-1].version


async def refused(worker: BotProcess) -> str:
    """The one line a refused worker writes (it exits 2, and writes nothing else)."""
    code = await worker.wait(120)
    lines = [line for line in worker.output().splitlines() if line.strip()]
    assert code == 2, worker.output()
    assert len(lines) == 1, worker.output()
    return lines[0]


async def older_worker(url: str, worker: int, code_schema: int) -> object:
    """A live worker as the others see it: its presence lock held by a session, its row in the registry."""
    import asyncpg

    from bot.store.pg_workers import REGISTRY, secret_hash
    from bot.store.postgres import PRESENCE

    conn = await asyncpg.connect(url)
    await conn.execute("SELECT pg_advisory_lock($1, $2)", PRESENCE, worker)
    await conn.execute(REGISTRY)
    await conn.execute("INSERT INTO kozyr_workers VALUES ($1, $2, $3, 'elsewhere', 4242, 0)", worker,
                       secret_hash(SECRET), code_schema)
    return conn


@pytest.fixture
async def shared_url():
    need_postgres()
    need_redis()
    url, schema = await new_schema()
    yield url, schema
    await drop_schema(schema)


@pytest.mark.slow
async def test_a_second_worker_with_another_secret_is_refused_in_one_line_the_same_settings_start(
        fake, tmp_path, shared_url):
    url, _ = shared_url
    workers = [await spawn_worker(fake, tmp_path, url, "first", SECRET)]
    try:
        await fake.wait_until(lambda: len(fake.calls_of("setWebhook")) >= 1, timeout=120, what="the first worker")
        workers.append(await spawn_worker(fake, tmp_path, url, "other", "another-secret"))
        line = await refused(workers[-1])
        assert "WEBHOOK_SECRET differs" in line and "another-secret" not in line and SECRET not in line
        assert len(fake.calls_of("setWebhook")) == 1  # it never told Telegram its secret
        workers.append(await spawn_worker(fake, tmp_path, url, "same", SECRET))
        await fake.wait_until(lambda: len(fake.calls_of("setWebhook")) >= 2, timeout=120, what="the same settings")
        assert workers[0].proc.returncode is None and workers[-1].proc.returncode is None
    finally:
        for worker in workers:
            await worker.kill()


@pytest.mark.slow
async def test_a_worker_beside_a_live_one_of_another_schema_version_is_refused_and_starts_once_it_died(
        fake, tmp_path, shared_url):
    url, _ = shared_url
    other = await older_worker(url, 777, current_schema() - 1)
    try:
        line = await refused(await spawn_worker(fake, tmp_path, url, "newer", SECRET))
        assert f"expects database schema version {current_schema()}" in line and "worker 777" in line
    finally:
        await other.close()  # type: ignore[attr-defined]
    worker = await spawn_worker(fake, tmp_path, url, "after", SECRET)
    try:
        await fake.wait_until(lambda: fake.calls_of("setWebhook"), timeout=120, what="the worker after")
    finally:
        await worker.kill()


@pytest.mark.slow
async def test_a_database_newer_than_the_code_is_refused_in_one_line(fake, tmp_path, shared_url):
    import asyncpg

    url, _ = shared_url
    conn = await asyncpg.connect(url)
    await conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    await conn.execute("INSERT INTO schema_version VALUES ($1)", current_schema() + 1)
    await conn.close()
    line = await refused(await spawn_worker(fake, tmp_path, url, "older", SECRET))
    assert f"schema version {current_schema() + 1}" in line


async def test_a_dead_workers_row_blocks_nobody_and_is_removed(shared_url):
    import asyncpg

    from bot.store.pg_workers import Identity, WorkerMismatch, secret_hash
    from bot.store.postgres import PgStore

    url, schema = shared_url
    mine = Identity(secret_hash(SECRET), current_schema())
    other = await older_worker(PG_URL + f"?search_path={schema}", 778, current_schema())
    try:
        with pytest.raises(WorkerMismatch, match="WEBHOOK_SECRET differs"):
            await PgStore(url, identity=Identity(secret_hash("another-secret"), current_schema())).open()
        store = await PgStore(url, identity=mine).open()  # the same settings: it starts beside it
        await store.close()
    finally:
        await other.close()  # type: ignore[attr-defined]
    store = await PgStore(url, identity=Identity(secret_hash("another-secret"), current_schema())).open()
    try:
        conn = await asyncpg.connect(url)
        try:
            rows = await conn.fetch("SELECT worker, secret_hash FROM kozyr_workers")
        finally:
            await conn.close()
        assert [(r["worker"], r["secret_hash"]) for r in rows] == [(store.worker, secret_hash("another-secret"))]
    finally:
        await store.close()
