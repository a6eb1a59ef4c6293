"""A ``python -m bot`` worker as the multi-worker tests start it (tests/store/test_worker_settings.py,
tests/store/test_workers_kill.py): behind a webhook address of its own, on a PostgreSQL schema the workers
share, with Redis for Telegram's limits, against the fake Bot API. Each worker runs in a directory of its own
(no developer's .env is read) and writes its output to a log beside it."""

from __future__ import annotations

from pathlib import Path

from tests.bot.harness import free_port
from tests.bot.procs import BotProcess, bot_env
from tests.fakebot.server import FakeTelegram
from tests.store.backends import PG_URL, REDIS_URL, fresh_schema

SECRET = "kozyr-test-secret"


async def new_schema() -> tuple[str, str]:
    """An empty schema on the test PostgreSQL: the DATABASE_URL that works in it, and its name (for
    ``drop_schema``). The caller checks that PostgreSQL answers (``need_postgres``)."""
    import asyncpg

    schema = fresh_schema()
    conn = await asyncpg.connect(PG_URL)
    await conn.execute(f'CREATE SCHEMA "{schema}"')
    await conn.close()
    return f"{PG_URL}?search_path={schema}", schema


async def spawn_worker(fake: FakeTelegram, tmp_path: Path, url: str, name: str, secret: str = SECRET,
                       port: int | None = None, **env: str) -> BotProcess:
    """Start worker ``name`` on ``url`` (its directory ``tmp_path/name``, its log ``tmp_path/name.log``),
    listening on ``port`` (a free one by default); ``env``: more settings."""
    port = port or free_port()
    settings = bot_env(fake, tmp_path / "unused.sqlite3", DATABASE_URL=url, REDIS_URL=REDIS_URL,
                       WEBHOOK_URL=f"http://127.0.0.1:{port}", WEBHOOK_PORT=str(port), WEBHOOK_SECRET=secret,
                       **env)
    (tmp_path / name).mkdir()
    return await BotProcess.spawn(settings, tmp_path / f"{name}.log", cwd=tmp_path / name)
