"""Fuzzing the bot's doors at a running table: random callback datas (ids past 2^63, negative numbers,
unicode, exactly 64 bytes) pressed on the group's messages and random command arguments typed by members
who do not play, on SQLite and (where it answers) PostgreSQL. Every press is answered, nothing is logged as
an error or with a traceback, and the table's stored state does not change."""

from __future__ import annotations

import logging
import random
from typing import Any

import pytest

from tests.bot.harness import RunBot, open_table_in, settle
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import FakeTelegram

PRESSES = 1000
COMMANDS = 200
ATTACKERS = 10  # the command throttle lets a user burst 20 commands: 10 users type 20 each
PREFIXES = ["mv", "mn", "lb", "lg", "pk", "cp", "rm", "ts", "hd", "ck", "xx", "", "mv:", "lb:1"]
OPS = ["join", "leave", "ai", "start", "cancel", "opts", "opt", "back", "quit", "offer", "stay", "take", "u", "c",
       "en", "ru", "on", "off", "lay", "ok", "hint", "undo", "jk", "pg", "do", "discard", "pm", "bk", "open"]
COMMAND_NAMES = ["new", "join", "leave", "begin", "cancel", "rules", "score", "record", "top", "stats", "h2h",
                 "league", "settings", "pause", "resume", "extend", "hint", "hand", "mytables", "games", "help"]


def _numbers(table_id: int, version: int) -> list[str]:
    big = 2 ** 63
    numbers = (0, 1, 2, -1, table_id, version, version - 1, big - 1, big, big + 1, 2 ** 64, -big, -big - 1, 10 ** 30,
               -(10 ** 40))
    return [str(n) for n in numbers] + ["٣", "²", "1e3", "0x10", "+5", " 7", "1_000", "", "-0"]


def _word(rng: random.Random) -> str:
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789:#@=-_ йцукенгшщзхъ😀🂡\u202e\u200b\x00"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))


def _clip64(text: str) -> str:
    """At most 64 UTF-8 bytes (Telegram's limit for callback data), never empty."""
    raw = text.encode()[:64]
    return raw.decode(errors="ignore") or "x"


def _exactly64(rng: random.Random, prefix: str) -> str:
    text = prefix + ":" + "".join(rng.choice("0123456789") for _ in range(64))
    return text.encode()[:64].decode()


def random_data(rng: random.Random, table_id: int, version: int) -> str:
    numbers = _numbers(table_id, version)
    roll = rng.random()
    if roll < 0.05:
        return _exactly64(rng, rng.choice(PREFIXES[:10]))
    if roll < 0.1:
        return _clip64(_word(rng) or "x")
    parts = [rng.choice(PREFIXES)]
    for _ in range(rng.randint(0, 6)):
        kind = rng.random()
        parts.append(rng.choice(numbers) if kind < 0.6 else rng.choice(OPS) if kind < 0.85 else _word(rng))
    return _clip64(":".join(parts))


def random_command(rng: random.Random, table_id: int) -> str:
    args = []
    for _ in range(rng.randint(0, 4)):
        kind = rng.random()
        if kind < 0.4:
            args.append(rng.choice(_numbers(table_id, 0)) or "0")
        elif kind < 0.5:
            args.append("#" + rng.choice(_numbers(table_id, 0)))
        elif kind < 0.6:
            args.append(rng.choice(["quarters", "tz", "quiet", "set", "remove", "season", "exclude", "carnival",
                                    "off", "@Ann", "@nobody"]) + rng.choice(["", "=", "=99999999999999999999999"]))
        else:
            args.append(_word(rng) or "x")
    return ("/" + rng.choice(COMMAND_NAMES) + " " + " ".join(args)).strip()[:4000]


async def _stored_state(app: Any) -> list[Any]:
    """Everything the attack must leave alone: the tables, their seats, clocks and chats, the league."""
    out: list[Any] = []
    async with app.store.read() as tx:
        for sql in ("SELECT id, version, status, state, chat_id, creator_id FROM tables ORDER BY id",
                    "SELECT table_id, seat, user_id, name FROM seats ORDER BY table_id, seat",
                    "SELECT * FROM clocks ORDER BY table_id",
                    "SELECT chat_id, lang FROM chats ORDER BY chat_id",
                    "SELECT COUNT(*) AS n FROM actions",
                    "SELECT COUNT(*) AS n FROM league_matches"):
            out.append([tuple(dict(row).items()) for row in await tx._all(sql)])
    return out


async def _fuzz(fake: FakeTelegram, run_bot: RunBot, caplog: pytest.LogCaptureFixture, presses: int, commands: int,
                **overrides: Any) -> dict[str, int]:
    caplog.set_level(logging.INFO)
    rng = random.Random(2026)
    ann, bob, cat = fake.user(first_name="Ann"), fake.user(first_name="Bob"), fake.user(first_name="Cat")
    attackers = [fake.user(first_name=f"Mallory{i}") for i in range(ATTACKERS)]
    group = fake.group("Cards", members=[bob, cat, *attackers], creator=ann)
    async with run_bot(**overrides) as app:  # run_bot: the database is a parameter (SQLite or PostgreSQL)
        await open_table_in(fake, app, "carnival", [ann, bob, cat], group=group)
        await fake.wait_until(lambda: any(m.buttons for u in (ann, bob, cat) for m in u.inbox()), timeout=20,
                              what="the first hand")
        await settle(fake, app)
        before = await _stored_state(app)
        (table_id, version, status, *_), = before[0]
        assert status == ("status", "playing")
        table_id, version = table_id[1], version[1]
        targets = group.messages(include_deleted=False)
        caplog.clear()

        records = []
        for start in range(0, presses, 100):
            batch = [await rng.choice(attackers + [ann, bob]).press_data(
                rng.choice(targets), random_data(rng, table_id, version)) for _ in range(min(100, presses - start))]
            await fake.wait_until(lambda b=batch: all(r.answered for r in b), timeout=20,
                                  what="answers to a batch of fuzzed presses")
            records += batch
        sent = 0
        for i in range(commands):
            await attackers[i % ATTACKERS].send(group, random_command(rng, table_id))
            sent += 1
        await settle(fake, app, timeout=60)
        after = await _stored_state(app)
        unanswered = [r.data for r in records if not r.answered] + [r.data for r in fake.unanswered_callbacks()]
        tracebacks = [r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
        assert unanswered == [], unanswered[:10]
        assert tracebacks == [], tracebacks[:5]
        assert after == before, "the fuzz changed the stored state"
        return {"presses": len(records), "answered": sum(r.answered for r in records), "commands": sent,
                "unanswered": len(unanswered), "tracebacks": len(tracebacks),
                "dropped_commands": app.throttle.dropped if app.throttle is not None else 0}


@pytest.mark.fake(limits=RateLimits.loose())
async def test_fuzzed_presses_and_commands_on_sqlite(fake, run_bot, caplog, capsys):
    counts = await _fuzz(fake, run_bot, caplog, PRESSES, COMMANDS)
    with capsys.disabled():
        print(f"\nfuzz sqlite: {counts}")
    assert counts["presses"] == PRESSES and counts["answered"] == PRESSES and counts["dropped_commands"] == 0


@pytest.mark.fake(limits=RateLimits.loose())
async def test_fuzzed_presses_and_commands_on_postgres(fake, run_bot, tmp_path, caplog, capsys, pg_url, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the heartbeat file (data/postgres.alive)
    (tmp_path / "data").mkdir()
    counts = await _fuzz(fake, run_bot, caplog, PRESSES, COMMANDS, DATABASE_URL=pg_url)
    with capsys.disabled():
        print(f"\nfuzz postgres: {counts}")
    assert counts["presses"] == PRESSES and counts["answered"] == PRESSES


@pytest.mark.slow
@pytest.mark.fake(limits=RateLimits.loose())
async def test_fuzzed_presses_and_commands_on_sqlite_longer(fake, run_bot, caplog):
    counts = await _fuzz(fake, run_bot, caplog, 5 * PRESSES, COMMANDS)
    assert counts["answered"] == 5 * PRESSES


def test_the_generator_reaches_the_edges():
    """The random datas do hold what the fuzz is for: 64-bit overflows, negatives, unicode, 64 bytes."""
    rng = random.Random(2026)
    datas = [random_data(rng, 1, 3) for _ in range(PRESSES)]
    assert all(1 <= len(d.encode()) <= 64 for d in datas)
    assert any(str(2 ** 63) in d for d in datas) and any(":-" in d for d in datas)
    assert any(not d.isascii() for d in datas) and any(len(d.encode()) == 64 for d in datas)
    commands = [random_command(rng, 1) for _ in range(COMMANDS)]
    assert any(str(2 ** 64) in c or str(10 ** 30) in c for c in commands)
