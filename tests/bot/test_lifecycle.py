"""The bot's life as a process: a crash between an update and its commit, SIGTERM mid-game, a second
process on the same database, and start-up with bad settings, no network or a wrong token.

Each test runs ``python -m bot`` as a real process against the fake Bot API server in the test's
event loop (tests/bot/procs.py). Moments are made exact by the fake server (a request that hangs
until the test lets it go), never by sleeping.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sqlite3
import subprocess
from pathlib import Path

import pytest

from bot.store.migrate import latest
from tests.bot.harness import find, free_port, live_hand, play_buttons
from tests.bot.helpers import answered
from tests.bot.procs import ROOT, BotProcess, bot_env, caught_up, db_value, ready
from tests.fakebot.methods_msg import HANDLERS
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import FakeTelegram

TIMEOUT = 300.0


async def lobby_of_three(fake: FakeTelegram, db):
    ann = fake.user(first_name="Ann")
    bob = fake.user(first_name="Bob")
    cat = fake.user(first_name="Cat")
    group = fake.group("Cards", members=[bob, cat], creator=ann)
    for user in (ann, bob, cat):
        await user.start_bot()
    await caught_up(fake, db)
    await ann.send(group, "/new carnival quarters=1")  # by hand: the bot is another process
    lobby = await fake.wait_for_message(group, lambda m: "✋ Join" in m.button_texts, timeout=30)
    for user in (bob, cat):
        await answered(fake, await user.press(lobby, "✋ Join"), timeout=30)
    await caught_up(fake, db)
    return ann, bob, cat, group, lobby


@pytest.mark.slow
@pytest.mark.fake(limits=RateLimits.loose())
async def test_sigkill_between_an_update_and_its_commit_then_the_command_is_applied_once(fake, tmp_path, monkeypatch):
    """/begin by the group's creator waits on getChatMember (the admin check); the bot is SIGKILLed
    there, after Telegram was told the update arrived (the next getUpdates confirmed it). The next
    process must still start the game, once."""
    db = tmp_path / "k.sqlite3"
    asked, release = asyncio.Event(), asyncio.Event()
    member = HANDLERS["getChatMember"]

    async def hanging_member(fake_: FakeTelegram, p: dict):
        asked.set()
        await release.wait()
        return await member(fake_, p)

    processes: list[BotProcess] = []
    try:
        async with asyncio.timeout(TIMEOUT):
            env = bot_env(fake, db)
            first = await BotProcess.spawn(env, tmp_path / "bot0.log")
            processes.append(first)
            await ready(fake, 0, first)
            ann, _, _, group, _ = await lobby_of_three(fake, db)
            monkeypatch.setitem(HANDLERS, "getChatMember", hanging_member)
            await ann.send(group, "/begin")
            begin_id = fake.updates.next_id - 1
            await asyncio.wait_for(asked.wait(), 60)
            # Telegram forgets the update once a later getUpdates confirms it: wait for exactly that.
            await fake.wait_until(lambda: all(u["update_id"] > begin_id for u in fake.updates.pending),
                                  timeout=30, what="the /begin update confirmed")
            await first.kill()
            assert db_value(db, "SELECT status FROM tables") == "lobby"
            release.set()
            monkeypatch.setitem(HANDLERS, "getChatMember", member)
            deletes = len(fake.calls_of("deleteWebhook"))
            second = await BotProcess.spawn(env, tmp_path / "bot1.log")
            processes.append(second)
            await ready(fake, deletes, second)
            await caught_up(fake, db)
    finally:
        for process in processes:
            await process.kill()
    assert db_value(db, "SELECT COUNT(*) FROM tables") == 1
    assert db_value(db, "SELECT status FROM tables") == "playing", processes[-1].output()[-2000:]
    assert find(group, "already started") is None  # not handled a second time
    assert db_value(db, "SELECT COUNT(*) FROM updates WHERE update_id = ?", begin_id) == 1
    assert db_value(db, "SELECT COUNT(*) FROM inbox") == 0
    assert "Traceback" not in "".join(p.output() for p in processes)


def slow_sends(monkeypatch, delay: float) -> None:
    """Every message send or edit takes ``delay`` seconds at the fake Telegram (a slow network)."""
    for name in ("sendMessage", "editMessageText", "editMessageReplyMarkup"):
        original = HANDLERS[name]

        async def slow(fake_: FakeTelegram, p: dict, original=original):
            await asyncio.sleep(delay)
            return await original(fake_, p)

        monkeypatch.setitem(HANDLERS, name, slow)


@pytest.mark.slow
@pytest.mark.fake(limits=RateLimits.loose())
async def test_sigterm_mid_game_stops_cleanly_and_what_is_left_is_sent_after_the_restart(fake, tmp_path, monkeypatch):
    db = tmp_path / "k.sqlite3"
    processes: list[BotProcess] = []
    try:
        async with asyncio.timeout(TIMEOUT):
            env = bot_env(fake, db, LOG_LEVEL="INFO", KOZYR_STOP_GRACE="0.5")
            first = await BotProcess.spawn(env, tmp_path / "bot0.log")
            processes.append(first)
            await ready(fake, 0, first)
            ann, bob, cat, group, lobby = await lobby_of_three(fake, db)
            await answered(fake, await ann.press(lobby, "▶️ Start"), timeout=30)
            await caught_up(fake, db)
            # Mid-game, on a slow network: a move queues several messages; stop with a short grace.
            slow_sends(monkeypatch, 1.0)
            found = live_hand([ann, bob, cat])
            assert found is not None
            user, message = found
            data = play_buttons(message)[0]["callback_data"]
            await answered(fake, await user.press(message, lambda b: b.get("callback_data") == data), timeout=30)
            # The move queues one edit of the group's live table; /score queues a reply there too.
            await ann.send(group, "/score")
            group_pending = "SELECT COUNT(*) FROM outbox WHERE status = 'pending' AND chat_id < 0"
            await fake.wait_until(lambda: db_value(db, group_pending) >= 2, timeout=30,
                                  what="two group messages queued")
            version = db_value(db, "SELECT version FROM tables")
            first.proc.send_signal(signal.SIGTERM)
            assert await first.wait(60) == 0, first.output()[-3000:]
            left = db_value(db, "SELECT COUNT(*) FROM outbox WHERE status = 'pending'")
            assert left >= 1  # a 0.5 s grace cannot send two 1 s messages to one chat
            assert db_value(db, "SELECT version FROM tables") == version
            # The WAL was checkpointed: the database file alone is complete.
            wal = db.with_name(db.name + "-wal")
            assert not wal.exists() or wal.stat().st_size == 0
            alone = tmp_path / "alone" / db.name
            alone.parent.mkdir()
            shutil.copy(db, alone)
            assert db_value(alone, "SELECT COUNT(*) FROM outbox WHERE status = 'pending'") == left
            assert db_value(alone, "PRAGMA user_version") == latest()

            monkeypatch.undo()
            deletes = len(fake.calls_of("deleteWebhook"))
            second = await BotProcess.spawn({**env, "KOZYR_STOP_GRACE": "10"}, tmp_path / "bot1.log")
            processes.append(second)
            await ready(fake, deletes, second)
            await caught_up(fake, db)  # what was left is delivered now
            second.proc.send_signal(signal.SIGINT)  # Ctrl-C is a graceful stop too
            assert await second.wait(60) == 0, second.output()[-3000:]
    finally:
        for process in processes:
            await process.kill()
    out = "".join(p.output() for p in processes)
    assert "Traceback" not in out and "Unclosed" not in out, out[-3000:]
    assert "SIGTERM received: stopping" in processes[0].output()
    assert "still queued; they are sent after the restart" in processes[0].output()
    assert "SIGINT received: stopping" in processes[1].output()
    assert processes[0].output().rstrip().endswith("stopped")
    assert db_value(db, "SELECT COUNT(*) FROM outbox") == 0


@pytest.mark.slow
@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_second_process_on_the_same_database_refuses_to_start(fake, tmp_path):
    db = tmp_path / "k.sqlite3"
    processes: list[BotProcess] = []
    try:
        async with asyncio.timeout(TIMEOUT):
            env = bot_env(fake, db)
            first = await BotProcess.spawn(env, tmp_path / "bot0.log")
            processes.append(first)
            await ready(fake, 0, first)
            polls = len(fake.calls_of("getMe"))
            second = await BotProcess.spawn(env, tmp_path / "bot1.log")
            processes.append(second)
            assert await second.wait(120) == 2
            text = second.output()
            assert f"another Kozyr process (pid {first.proc.pid}) is already running" in text, text
            assert "Traceback" not in text and len(text.strip().splitlines()) == 1
            assert len(fake.calls_of("getMe")) == polls  # it never talked to Telegram
            assert first.proc.returncode is None
            # Once the first has stopped, the database is free again.
            first.proc.send_signal(signal.SIGTERM)
            assert await first.wait(60) == 0
            deletes = len(fake.calls_of("deleteWebhook"))
            third = await BotProcess.spawn(env, tmp_path / "bot2.log")
            processes.append(third)
            await ready(fake, deletes, third)
    finally:
        for process in processes:
            await process.kill()


async def test_bad_settings_are_one_line_each_and_never_echo_secrets(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "BOT_TOKEN": "abc", "DATABASE_URL": "mysql://kozyr:hunter2secret@db/kozyr",
           "LOG_LEVEL": "LOUD", "KOZYR_AI_DELAY": "-1", "WEBHOOK_SECRET": "has spaces"}
    env["PYTHONPATH"] = ROOT.as_posix()
    process = await BotProcess.spawn(env, tmp_path / "bot.log", cwd=tmp_path)
    assert await process.wait(120) == 2
    text = process.output()
    assert "Traceback" not in text
    lines = text.strip().splitlines()
    assert lines[0] == "kozyr: cannot start:"
    assert {line.split(":")[1].strip() for line in lines[1:]} == {
        "BOT_TOKEN", "DATABASE_URL", "LOG_LEVEL", "KOZYR_AI_DELAY", "WEBHOOK_SECRET"}, text
    assert "hunter2secret" not in text and "mysql://kozyr:***@db/kozyr" in text
    assert "has spaces" not in text

    process = await BotProcess.spawn({**env, "BOT_TOKEN": "", "DATABASE_URL": "sqlite:///x.db", "LOG_LEVEL": "INFO",
                                      "KOZYR_AI_DELAY": "1", "WEBHOOK_SECRET": ""}, tmp_path / "bot2.log", cwd=tmp_path)
    assert await process.wait(120) == 2
    assert "BOT_TOKEN is not set" in process.output()


@pytest.mark.fake(limits=RateLimits.loose())
async def test_help_prints_the_settings_and_starts_nothing(fake, tmp_path):
    env = bot_env(fake, tmp_path / "k.sqlite3")
    process = await BotProcess.spawn(env, tmp_path / "help.log", args=("--help",))
    assert await process.wait(120) == 0
    text = process.output()
    for name in ("BOT_TOKEN", "DATABASE_URL", "WEBHOOK_HOST", "WEBHOOK_SECRET", "BOT_OWNER_ID", "LOG_FORMAT",
                 "KOZYR_STOP_GRACE", "backup PATH"):
        assert name in text
    assert fake.token not in text
    assert fake.calls == [] and not (tmp_path / "k.sqlite3").exists()


@pytest.mark.slow
@pytest.mark.fake(limits=RateLimits.loose())
async def test_unreachable_telegram_is_retried_quietly_and_a_wrong_token_is_one_line(fake, tmp_path):
    env = bot_env(fake, tmp_path / "k.sqlite3", LOG_LEVEL="INFO",
                  TELEGRAM_API_URL=f"http://127.0.0.1:{free_port()}")  # a port nobody listens on
    process = await BotProcess.spawn(env, tmp_path / "down.log")
    try:
        # The first failure is logged; the retries after it (1 + 2 + 4 s) are not, within the minute.
        await fake.wait_until(lambda: "reaching Telegram (getMe) failed" in process.output(), timeout=120,
                              what="the first failure logged")
        await asyncio.sleep(8)
        assert process.proc.returncode is None  # still trying, not crashed
        assert process.output().count("reaching Telegram (getMe) failed") == 1, process.output()
        process.proc.send_signal(signal.SIGTERM)
        assert await process.wait(60) == 0
    finally:
        await process.kill()
    assert "Traceback" not in process.output()

    wrong = "7000000002:" + "B" * 35
    process = await BotProcess.spawn({**bot_env(fake, tmp_path / "k.sqlite3"), "BOT_TOKEN": wrong},
                                     tmp_path / "token.log")
    try:
        assert await process.wait(120) == 2
    finally:
        await process.kill()
    text = process.output()
    assert "Telegram refused BOT_TOKEN (401 Unauthorized)" in text and "Traceback" not in text, text
    assert wrong not in text and "B" * 35 not in text


@pytest.mark.slow
@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_database_from_a_newer_kozyr_is_refused(fake, tmp_path):
    db = tmp_path / "k.sqlite3"
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {latest() + 1}")
    process = await BotProcess.spawn(bot_env(fake, db), tmp_path / "bot.log")
    assert await process.wait(120) == 2
    text = process.output()
    assert f"schema version {latest() + 1}" in text and "newer version" in text and "Traceback" not in text, text
    assert db_value(db, "PRAGMA user_version") == latest() + 1


def pid_namespaces_work() -> bool:
    try:
        return subprocess.run(["unshare", "--pid", "--fork", "--kill-child", "true"], timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@pytest.mark.slow
@pytest.mark.fake(limits=RateLimits.loose())
async def test_sigterm_to_the_bot_as_pid_1_stops_it_cleanly(fake, tmp_path):
    """As a container's PID 1 (here: in its own PID namespace), a process gets no signal it has no handler
    for; the bot installs its own, so SIGTERM stops it gracefully, at once."""
    if not pid_namespaces_work():
        pytest.skip("unshare --pid is not permitted here")
    db = tmp_path / "k.sqlite3"
    process = await BotProcess.spawn(bot_env(fake, db, LOG_LEVEL="INFO"), tmp_path / "bot.log",
                                     prefix=("unshare", "--pid", "--fork", "--kill-child"))
    try:
        async with asyncio.timeout(TIMEOUT):
            await ready(fake, 0, process)
            children = Path(f"/proc/{process.proc.pid}/task/{process.proc.pid}/children").read_text().split()
            (bot_pid,) = children
            nspid = next(line for line in Path(f"/proc/{bot_pid}/status").read_text().splitlines()
                         if line.startswith("NSpid:"))
            assert nspid.split()[-1] == "1", nspid  # PID 1 in its namespace
            os.kill(int(bot_pid), signal.SIGTERM)
            assert await process.wait(60) == 0, process.output()[-3000:]
    finally:
        await process.kill()
    text = process.output()
    assert "SIGTERM received: stopping" in text and text.rstrip().endswith("stopped"), text[-2000:]
    assert "Traceback" not in text
