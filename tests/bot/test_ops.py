"""Operating the bot: the webhook's secret token and /healthz, /status for the owner, the commands menu
in both languages, one log line per game event, an online backup, and schema migrations.

The bot runs in-process against the fake Bot API (tests/bot/harness.py); the backup command runs as
the operator would run it, ``python -m bot backup PATH``, while that bot is running.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import subprocess
import sys

import aiohttp
import pytest

from bot.app import App
from bot.store.migrate import SchemaTooNew, latest, migrations
from bot.store.sqlite import Store
from tests.bot.harness import find, free_port, open_table_in, settings_for, settle
from tests.bot.procs import ROOT
from tests.fakebot.ratelimit import RateLimits


@pytest.mark.fake(limits=RateLimits.loose())
async def test_webhook_refuses_requests_without_the_secret_and_serves_healthz(fake, db):
    port = free_port()
    ann = fake.user(first_name="Ann")
    group = fake.group("Cards", creator=ann)
    # The App by hand, not run_bot: it serves a webhook (app.serve()) instead of polling.
    app = App(settings_for(fake, db, WEBHOOK_URL="https://kozyr.example/hook/", WEBHOOK_PORT=port))
    serving = asyncio.create_task(app.serve())
    try:
        await fake.wait_until(lambda: fake.calls_of("setWebhook"), timeout=60, what="setWebhook")
        params = fake.calls_of("setWebhook")[-1].params
        assert params["url"] == "https://kozyr.example/hook/webhook"
        secret = params["secret_token"]
        assert len(secret) >= 32
        # The default address is loopback only: a reverse proxy faces the internet, not the bot.
        assert app.webhook is not None and app.webhook._runner is not None
        assert {host for host, *_ in app.webhook._runner.addresses} == {"127.0.0.1"}

        await ann.send(group, "/games")
        update = fake.updates.pending[-1]
        url = f"http://127.0.0.1:{port}/webhook"
        async with aiohttp.ClientSession() as http:
            for headers in ({}, {"X-Telegram-Bot-Api-Secret-Token": secret[:-1] + "x"},
                            {"X-Telegram-Bot-Api-Secret-Token": ""}):
                async with http.post(url, json=update, headers=headers) as response:
                    assert response.status == 401
            await asyncio.sleep(0.2)  # a forged update would have been handled by now; none was
            assert app.intake is not None and app.intake.handled == 0 and not group.messages()

            good = {"X-Telegram-Bot-Api-Secret-Token": secret}
            async with http.post(url, json=update, headers=good) as response:
                assert response.status == 200
            reply = await fake.wait_for_message(group, lambda m: "carnival" in m.content, timeout=30)
            async with http.post(url, json=update, headers=good) as response:  # Telegram retries: once only
                assert response.status == 200
            async with http.post(url, data=b"not json", headers=good) as response:
                assert response.status == 400
            async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
                assert response.status == 200
                health = await response.json()
        await app.outbox.drain()
        assert [m for m in group.messages() if "carnival" in m.content] == [reply]
        assert health["status"] == "ok" and health["inbox"] == 0 and "tables" in health
        assert secret not in json.dumps(health)
    finally:
        serving.cancel()
        await asyncio.gather(serving, return_exceptions=True)
        await app.stop()


@pytest.mark.fake(limits=RateLimits.loose())
async def test_status_for_the_owner_the_menu_in_russian_and_a_log_line_per_game_event(fake, run_bot, caplog):
    caplog.set_level(logging.INFO, logger="bot.events")
    olga = fake.user(first_name="Olga<b>", language_code="ru")
    eve = fake.user(first_name="Eve")
    group = fake.group("Cards", members=[eve], creator=olga)
    async with run_bot(BOT_OWNER_ID=olga.id) as app:  # the menus are read once it stopped
        for user in (olga, eve):
            await user.start_bot()
        await settle(fake, app)
        # A game that plays itself (Pyanitsa's moves are forced), to its end; then one cancelled.
        await open_table_in(fake, app, "pyanitsa", [olga], ais=1, options="max_rounds=8", group=group)
        await fake.wait_until(lambda: find(group, "🏁"), timeout=120, what="the end of the game")
        await settle(fake, app)
        await open_table_in(fake, app, "carnival", [olga], group=group, begin=False)
        await settle(fake, app)
        await olga.send(group, "/cancel")
        await settle(fake, app)

        before = len(eve.inbox())
        await eve.send("/status")  # not the owner: no answer at all
        await olga.send(group, "/status")  # the owner, but in a group: nothing shown there
        group_count = len(group.messages())
        await settle(fake, app)
        assert len(eve.inbox()) == before and len(group.messages()) == group_count
        await olga.send("/status")
        await settle(fake, app)
        status = olga.last_dm()
        assert status is not None
        assert "Kozyr" in status.content
        assert "cancelled 1" in status.content and "finished 1" in status.content
        assert "Очередь" in status.content  # in the owner's language

    menus = {lang: cmds for (_, lang), cmds in fake.commands.items()}
    assert set(menus) == {"", "ru"}
    assert [c["command"] for c in menus[""]] == [c["command"] for c in menus["ru"]]
    english = {c["command"]: c["description"] for c in menus[""]}
    russian = {c["command"]: c["description"] for c in menus["ru"]}
    assert all(russian[c] != english[c] for c in english), russian

    lines = [r.getMessage() for r in caplog.records if r.name == "bot.events"]
    kinds = [line.split(":")[0].split(" ", 2)[2] for line in lines]
    assert kinds == ["opened", "started", "finished", "opened", "cancelled in the lobby"], lines
    assert "pyanitsa" in lines[0] and "2 players (1 AI)" in lines[1]
    assert not any("Olga" in line or "Eve" in line for line in lines)


@pytest.mark.fake(limits=RateLimits.loose())
async def test_backup_while_the_bot_runs_is_a_complete_database(fake, run_bot, db, tmp_path):
    ann = fake.user(first_name="Ann")
    group = fake.group("Cards", creator=ann)
    async with run_bot() as app:  # the backup is checked once it stopped
        await open_table_in(fake, app, "carnival", [ann], group=group, begin=False)
        await settle(fake, app)
        target = tmp_path / "backups"
        target.mkdir()
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "DATABASE_URL": f"sqlite:///{db}"}
        done = await asyncio.to_thread(subprocess.run, [sys.executable, "-m", "bot", "backup", str(target)],
                                       env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "backed up" in done.stdout
        # The bot keeps working during and after the backup.
        await ann.send(group, "/cancel")
        await settle(fake, app)
    copy = target / db.name
    assert not copy.with_name(copy.name + "-wal").exists()  # one self-contained file
    with sqlite3.connect(copy) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == latest()
        assert conn.execute("SELECT game, status FROM tables").fetchall() == [("carnival", "lobby")]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT status FROM tables").fetchall() == [("cancelled",)]

    missing = subprocess.run([sys.executable, "-m", "bot", "backup", str(target)], cwd=tmp_path,
                             env={**env, "DATABASE_URL": "sqlite:///nowhere.sqlite3"},
                             capture_output=True, text=True, timeout=120)
    assert missing.returncode == 1 and "no database at nowhere.sqlite3" in missing.stderr
    assert "Traceback" not in missing.stderr


async def test_migrations_run_once_in_order_and_keep_old_data(tmp_path):
    names = [m.name for m in migrations()]
    assert names[0] == "0001_initial.sql" and [m.version for m in migrations()] == list(range(1, len(names) + 1))
    # A database made before migrations existed (user_version 0, the first schema, some data) is upgraded.
    old = tmp_path / "old.sqlite3"
    with sqlite3.connect(old) as conn:
        conn.executescript(migrations()[0].sql)
        conn.execute("INSERT INTO chats(chat_id, title, lang) VALUES (-5, 'Cards', 'ru')")
    store = await Store(old).open()
    try:
        assert store.migrated == names
        async with store.read() as tx:
            assert await tx.chat_lang(-5) == "ru"
    finally:
        await store.close()
    store = await Store(old).open()
    assert store.migrated == []  # nothing twice
    await store.close()
    with sqlite3.connect(old) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == latest()
        assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'inbox'").fetchone() == ("inbox",)
        conn.execute(f"PRAGMA user_version = {latest() + 1}")
    with pytest.raises(SchemaTooNew, match="newer version"):
        await Store(old).open()
