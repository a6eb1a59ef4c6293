"""Kill the bot with SIGKILL mid-game (``python -m bot`` in a subprocess), start it again, play on.

The fake Bot API server runs in the test's event loop; the bot is a real separate process with its
SQLite file in tmp_path. Kills land at chosen moments: right after a press, before the bot fetched
it; after the move was committed and answered but before the bot confirmed the update to Telegram
(so the next process gets it again and must not apply it twice); after the commit but before the
answer reached Telegram; and mid-deal (while the outbox is sending the new deal). The first two
moments are made exact by letting the fake server (not the bot) kill the process when the bot's
request arrives.
Afterwards: the game finished, the action log replays to the stored state, every move was applied
exactly once (one action per pressed version, the action of the pressed button), and every log
line reached the group. A press lost in a kill is pressed again, as a person would.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
from pathlib import Path

import pytest

from engine.core import State
from engine.record import start
from tests.bot.harness import find, live_hand, play_buttons
from tests.bot.helpers import answered, db_rows, group_text, log_lines, replay_log
from tests.bot.procs import BotProcess, bot_env, caught_up, ready
from tests.fakebot.errors import ApiError
from tests.fakebot.methods_msg import HANDLERS
from tests.fakebot.models import CallbackRecord
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import FakeTelegram

STANDBYS = 2  # processes importing ahead, so a restart rarely waits for an import
TEST_TIMEOUT = 240.0


async def quiet(fake: FakeTelegram, db: Path, timeout: float = 30) -> None:
    await caught_up(fake, db, timeout)


def ends_a_deal(db: Path, data: str) -> bool:
    """Whether pressing ``data`` (a move button) finishes a deal: the moment the bot deals the next one."""
    if not data.startswith("mv:"):
        return False
    _, _, version, index = data.split(":")
    (snapshot, current), = db_rows(db, "SELECT state, version FROM tables ORDER BY id DESC LIMIT 1")
    state = State.from_json(json.loads(snapshot))
    if int(version) != current or state.to_act is None:
        return False
    events = state.act(state.to_act, state.legal_actions(state.to_act)[int(index)])
    return any(e["type"] == "deal_end" for e in events) and not state.over


def install_traps(fake: FakeTelegram, monkeypatch, trap: dict) -> None:
    """Let the fake server SIGKILL the bot at an exact moment of its conversation with Telegram.

    ``unconfirmed``: the bot's next getUpdates would confirm the pressed update; wait until it
    answered the press (the move is committed), then kill it: the update stays unconfirmed.
    ``unanswered``: the bot answers the press (the move is committed): kill it instead of answering;
    the update is not confirmed either, so the next process gets the press again.
    """
    get_updates, answer = HANDLERS["getUpdates"], HANDLERS["answerCallbackQuery"]

    def fire() -> None:
        trap["fired"] = True
        os.kill(trap["pid"], signal.SIGKILL)

    async def trapped_get_updates(fake_: FakeTelegram, p: dict) -> list:
        if trap.get("mode") and not trap["fired"] and (p.get("offset") or 0) > trap["update_id"]:
            # Not confirmed: the press will be delivered again to the next process.
            if trap["mode"] == "unconfirmed":
                record = fake.callbacks[trap["callback_id"]]
                await fake.wait_until(lambda: record.answered, timeout=30, what="the trapped press's answer")
                fire()
            else:
                await fake.wait_until(lambda: trap["fired"], timeout=30, what="the trapped answer")
            raise ApiError(502, "Bad Gateway")
        return await get_updates(fake_, p)

    async def trapped_answer(fake_: FakeTelegram, p: dict) -> bool:
        if trap.get("mode") == "unanswered" and not trap["fired"] and p["callback_query_id"] == trap["callback_id"]:
            fire()
            raise ApiError(502, "Bad Gateway")
        return await answer(fake_, p)

    monkeypatch.setitem(HANDLERS, "getUpdates", trapped_get_updates)
    monkeypatch.setitem(HANDLERS, "answerCallbackQuery", trapped_answer)


@pytest.mark.slow
@pytest.mark.fake(limits=RateLimits.loose(), callback_timeout=60.0)
async def test_sigkill_mid_game_loses_nothing_and_applies_nothing_twice(fake, tmp_path, monkeypatch):
    db = tmp_path / "k.sqlite3"
    rng = random.Random(20240607)
    trap: dict = {"fired": False}
    trapped: dict[str, str] = {}
    trace: list[str] = []
    install_traps(fake, monkeypatch, trap)
    ann = fake.user(first_name="Ann")
    bob = fake.user(first_name="Bob", language_code="ru")
    cat = fake.user(first_name="Cat")
    users = [ann, bob, cat]
    group = fake.group("Cards", members=[bob, cat], creator=ann)
    env = bot_env(fake, db)
    processes: list[BotProcess] = []
    try:
        async with asyncio.timeout(TEST_TIMEOUT):  # fail with a traceback, never hang the suite
            current = await BotProcess.spawn(env, tmp_path / "bot0.log", standby=False)
            processes.append(current)
            standbys: list[BotProcess] = []

            async def warm(count: int) -> None:
                while len(standbys) < count:
                    log = tmp_path / f"bot{len(processes)}.log"
                    standbys.append(await BotProcess.spawn(env, log, standby=True))
                    processes.append(standbys[-1])

            await warm(STANDBYS)
            await ready(fake, 0, current)

            async def restart() -> None:
                nonlocal current
                await current.kill()
                deletes = len(fake.calls_of("deleteWebhook"))
                current = standbys.pop(0)
                current.go()
                await ready(fake, deletes, current)
                await warm(STANDBYS)

            for user in users:
                await user.start_bot()
            await quiet(fake, db)
            await ann.send(group, "/new carnival quarters=1")  # by hand: the bot is another process
            lobby = await fake.wait_for_message(group, lambda m: "✋ Join" in m.button_texts, timeout=20)
            for user in (bob, cat):
                await answered(fake, await user.press(lobby, "✋ Join"), timeout=20)
            await quiet(fake, db)
            await answered(fake, await ann.press(lobby, "▶️ Start"), timeout=20)

            presses: list[tuple[CallbackRecord, str]] = []
            pressed_at: dict[int, str] = {}  # version -> the button data pressed at that version
            lost: list[CallbackRecord] = []
            kills = {2: "before_fetch", 9: "unconfirmed", 30: "unanswered"}
            done_kills: list[str] = []
            while find(group, "🏁") is None:
                await quiet(fake, db)
                if find(group, "🏁") is not None:
                    break
                found = live_hand(users)
                assert found is not None, f"nobody can move; last calls {fake.calls[-5:]}"
                user, message = found
                datas = [b["callback_data"] for b in play_buttons(message)]
                version = int(datas[0].split(":")[2])
                data = pressed_at.get(version)
                if data not in datas:  # the same button again after a lost press, else a random one
                    data = rng.choice(datas)
                pressed_at[version] = data
                trace.append(f"{asyncio.get_running_loop().time():.2f} {user.first_name} {data}")
                deal_end = ends_a_deal(db, data)
                record = await user.press(message, lambda b, d=data: b.get("callback_data") == d)
                presses.append((record, data))
                n = len(presses)
                update_id = fake.updates.next_id - 1
                mode = kills.get(n)
                if mode == "before_fetch":
                    await restart()  # the press waits in Telegram's queue for the next process
                    done_kills.append(mode)
                elif mode in ("unconfirmed", "unanswered"):
                    trap.update(mode=mode, fired=False, pid=current.proc.pid, update_id=update_id,
                                callback_id=record.id)
                    trapped[mode] = record.id
                    await fake.wait_until(lambda: trap["fired"], timeout=30, what=f"the {mode} trap")
                    trap["mode"] = None
                    await restart()
                    done_kills.append(mode)
                elif deal_end and "mid_deal" not in done_kills:
                    await answered(fake, record, timeout=20)
                    calls = len(fake.calls)
                    await fake.wait_until(lambda c=calls: len(fake.calls) > c + 1, timeout=20)
                    await restart()  # the outbox is half-way through the new deal's messages
                    done_kills.append("mid_deal")
                else:
                    await answered(fake, record, timeout=20)
                    continue
                await quiet(fake, db)
                if not record.answered:
                    lost.append(record)
                assert len(presses) < 1000
            await quiet(fake, db)
    except BaseException:
        print("TRACE", "\n".join(trace[-40:]))
        raise
    finally:
        for process in processes:
            await process.kill()
    logs = "\n".join(p.log.read_text(errors="replace") for p in processes)
    assert sorted(done_kills) == ["before_fetch", "mid_deal", "unanswered", "unconfirmed"], done_kills
    assert "Traceback" not in logs, logs[-3000:]

    # The log replays to the stored final state, one action per pressed version, each the pressed button.
    state, log, events, names = replay_log(db)
    assert state.over and names == ["Ann", "Bob", "Cat"]
    (final_version,), = db_rows(db, "SELECT version FROM tables")
    first = final_version - len(log)
    moves = {}
    for _record, data in presses:
        if data.startswith("mv:"):
            moves.setdefault(int(data.split(":")[2]), set()).add(data)
    assert sorted(moves) == list(range(first, final_version)), "a pressed version without its move, or more"
    replayed = start({"game": "carnival", "players": names, "options": {"quarters": 1}, "seed":
                      db_rows(db, "SELECT seed FROM tables")[0][0]})
    for k, (seat, action) in enumerate(log):
        (data,) = moves[first + k]
        assert replayed.to_act == seat
        assert replayed.legal_actions(seat)[int(data.split(":")[3])] == action, (k, data, action)
        replayed.act(seat, action)

    # No outgoing message was lost: every log line reached the group; the standings are there.
    text = group_text(group)
    for line in log_lines("carnival", events, names, "en"):
        assert line in text, line
    standings = find(group, "🏁")
    for name, total in zip(names, state.scores(), strict=True):
        assert f"{name}: {total}" in standings.content
    assert db_rows(db, "SELECT COUNT(*) FROM outbox") == [(0,)]
    # Every press was answered: the one whose answer died with the process, by the next process.
    assert lost == [] and not fake.unanswered_callbacks()
    # The committed-but-unconfirmed press came again: not applied again (checked above). Whether the next
    # process answers it again depends on whether the killed one had marked it handled (then the repeat
    # is dropped unseen) or not (then it is refused, and the spinner stopped again, which Telegram refuses).
    assert fake.callbacks[trapped["unconfirmed"]].answer_attempts in (1, 2)
    assert fake.callbacks[trapped["unanswered"]].answered
    errors = {c.description for c in fake.errors if "not modified" not in (c.description or "")}
    assert errors <= {"Bad Gateway", "Bad Request: query is too old and response timeout expired or query ID is "
                      "invalid", "Conflict: terminated by other getUpdates request; make sure that only one "
                      "bot instance is running"}, errors  # the killed process's long poll, ended by the next
