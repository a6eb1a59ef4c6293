"""A transient Telegram error inside a handler does not drop the command (the intake handles the update
again with backoff); several webhook workers must share one secret, so PostgreSQL + a webhook without
WEBHOOK_SECRET is refused at the start."""

from __future__ import annotations

import pytest

from tests.bot.harness import settle
from tests.bot.helpers import db_rows
from tests.bot.procs import ROOT, BotProcess
from tests.fakebot.errors import ApiError
from tests.fakebot.methods_msg import HANDLERS
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import FakeTelegram


@pytest.mark.fake(limits=RateLimits.loose())
async def test_begin_survives_getchatmember_answering_429(fake, app, db, open_table, monkeypatch):
    """getChatMember answers 429 twice while the admin sends /begin: the table starts once it answers again."""
    member = HANDLERS["getChatMember"]
    refusals = {"left": 2}

    async def busy_member(fake_: FakeTelegram, params: dict):
        if refusals["left"] > 0:
            refusals["left"] -= 1
            raise ApiError(429, "Too Many Requests: retry after 1", {"retry_after": 1})
        return await member(fake_, params)

    ann, bob = fake.user(first_name="Ann"), fake.user(first_name="Bob")
    group = fake.group("Cards", members=[bob], creator=ann)
    await open_table("carnival", [ann, bob], ais=1, group=group, begin=False)
    await settle(fake, app)
    monkeypatch.setitem(HANDLERS, "getChatMember", busy_member)
    await ann.send(group, "/begin")
    await fake.wait_until(lambda: db_rows(db, "SELECT status FROM tables") == [("playing",)], timeout=20,
                          what="the table started after the 429s")
    await settle(fake, app)
    assert refusals["left"] == 0
    assert db_rows(db, "SELECT COUNT(*) FROM inbox") == [(0,)]
    assert not any("already started" in m.content for m in group.messages())


async def test_postgres_webhook_without_a_secret_stops_the_start_with_one_line(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": ROOT.as_posix(), "BOT_TOKEN": "123456:" + "A" * 35,
           "DATABASE_URL": "postgresql://kozyr@127.0.0.1:1/kozyr", "WEBHOOK_URL": "https://bot.example.com"}
    process = await BotProcess.spawn(env, tmp_path / "bot.log", cwd=tmp_path)
    assert await process.wait(120) == 2
    lines = process.output().strip().splitlines()
    assert len(lines) == 1 and "WEBHOOK_SECRET" in lines[0], lines
    # With the secret (or on SQLite) the settings pass this check: it goes on to the database (refused here).
    process = await BotProcess.spawn({**env, "WEBHOOK_SECRET": "s3cret_-"}, tmp_path / "bot2.log", cwd=tmp_path)
    await process.wait(120)
    assert "WEBHOOK_SECRET" not in process.output()
