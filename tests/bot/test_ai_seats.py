"""AI seats: levels chosen per seat in the lobby, moves thought out off the event loop."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bot.services import ai_seats
from bot.services.ai_seats import AiSeats
from engine.core import get_game
from tests.bot.harness import find, open_table_in, play_out, settle
from tests.bot.helpers import db_rows
from tests.fakebot.ratelimit import RateLimits


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_AI_WORKER="thread")  # the spy lives in this process
async def test_lobby_seats_an_easy_and_a_strong_ai_and_they_play_at_their_levels(fake, app, db, open_table,
                                                                                   monkeypatch):
    levels_used: list[str] = []
    real = ai_seats.choose_action

    def spy(state, seat, level, seed, budget_ms):  # the real choice, with the level it was asked for
        levels_used.append(level)
        return real(state, seat, level, seed, budget_ms)

    monkeypatch.setattr(ai_seats, "choose_action", spy)
    ann = fake.user(first_name="Ann", language_code="en")
    table = await open_table("oh_hell", [ann], options="hand_sizes=3,2", begin=False)
    group, lobby = table.group, table.lobby
    await settle(fake, app)
    assert "🐣 Easy AI" in lobby.button_texts and "🧠 Strong AI" in lobby.button_texts
    await ann.press(lobby, "🐣 Easy AI")
    await settle(fake, app)
    await ann.press(lobby, "🧠 Strong AI")
    await settle(fake, app)
    lobby = find(group, "Players (3")
    assert lobby is not None and "🐣" in lobby.content and "🧠" in lobby.content
    await ann.press(lobby, "▶️ Start")
    await play_out(fake, app, group, [ann], random.Random(3))
    await settle(fake, app)
    assert find(group, "🏁") is not None
    (ui,) = db_rows(db, "SELECT ui FROM tables")[0]
    assert sorted(json.loads(ui)["ai_levels"].values()) == ["easy", "strong"]
    # both AI seats had real choices (bids at least) and each was asked at its own level
    assert "easy" in levels_used and "strong" in levels_used
    assert set(levels_used) <= {"easy", "strong"}


@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_forged_ai_level_is_refused(fake, app, db, open_table):
    from bot.ui.callbacks import Lobby

    ann = fake.user(first_name="Ann", language_code="en")
    lobby = (await open_table("oh_hell", [ann], begin=False)).lobby
    await settle(fake, app)
    table_id = Lobby.unpack(lobby.buttons[0]["callback_data"]).t
    record = await ann.press_data(lobby, Lobby(t=table_id, op="ai", k="genius").pack())
    await settle(fake, app)
    assert record.answered and record.show_alert
    assert "not valid" in (record.answer_text or "")
    assert db_rows(db, "SELECT COUNT(*) FROM seats WHERE user_id IS NULL") == [(0,)], "no AI sat down"


async def test_an_ai_thinks_in_a_worker_thread_while_the_loop_runs(monkeypatch):
    loop_ran = threading.Event()
    seen: dict[str, object] = {}

    def slow_choice(state, seat, level, seed, budget_ms):
        seen["thread"] = threading.current_thread()
        # blocks until the event loop has run other work: a deadlock (and a failure) if it ran on the loop
        seen["loop_ran"] = loop_ran.wait(timeout=30)
        return state.legal_actions(seat)[0]

    monkeypatch.setattr(ai_seats, "choose_action", slow_choice)
    ai = AiSeats("normal", worker="thread")
    state = get_game("oh_hell").new(4, seed=1, options={"hand_sizes": [3]})

    async def other_table() -> None:
        await asyncio.sleep(0)
        loop_ran.set()

    try:
        action, _ = await asyncio.gather(ai.choose(state, state.to_act, 1), other_table())
    finally:
        ai.close()
    assert seen["loop_ran"] is True
    assert seen["thread"] is not threading.main_thread()
    assert action in state.legal_actions()


async def test_by_default_an_ai_thinks_in_a_worker_process_and_the_bot_spends_no_cpu_on_it():
    ai = AiSeats("normal", think_ms=400)
    state = get_game("carnival").new(4, seed=3)
    ticks = 0

    async def other_tables() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(other_tables())
    try:
        await ai.choose(state.clone(), state.to_act, 1)  # the worker's interpreter is started here
        cpu, wall = time.process_time(), time.perf_counter()
        action = await ai.choose(state.clone(), state.to_act, 2)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        ticker.cancel()
        ai.close()
    assert action in state.legal_actions()
    assert wall >= 0.3, "the search used its budget"
    # the same search in a thread of this process costs it 0.4 s of CPU (0.12 s on a machine loaded 3 times over)
    assert cpu < 0.06, (cpu, wall)
    assert ticks > 10, "the loop kept running"


async def test_a_dead_ai_worker_process_is_replaced_and_the_move_still_comes():
    ai = AiSeats("normal", think_ms=20)
    state = get_game("oh_hell").new(4, seed=1, options={"hand_sizes": [3]})
    await ai.choose(state.clone(), state.to_act, 1)
    pool = ai_seats._PROCESSES.get()
    pids = list(pool._processes)  # the running workers
    assert pids and os.getpid() not in pids
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    await asyncio.sleep(0.5)  # the pool notices its worker died
    action = await ai.choose(state.clone(), state.to_act, 2)
    assert action in state.legal_actions()
    assert ai_seats._PROCESSES.get() is not pool
    ai.close()


def test_where_worker_processes_cannot_start_the_ai_thinks_in_a_thread_and_says_so():
    # a program read from stdin: spawn cannot import its main module, so every worker dies at start
    script = """
import asyncio, logging
from bot.services.ai_seats import AiSeats
from engine.core import get_game
logging.basicConfig(level=logging.WARNING)
state = get_game("oh_hell").new(4, seed=1, options={"hand_sizes": [3]})
ai = AiSeats("normal", think_ms=20)
action = asyncio.run(ai.choose(state.clone(), state.to_act, 1))
print("MOVE", action, action in state.legal_actions(), ai.worker)
"""
    done = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-2:] == ["True", "thread"], done.stdout
    assert "AI seats think in a thread" in done.stderr


def test_an_unknown_ai_worker_is_refused():
    with pytest.raises(ValueError, match="KOZYR_AI_WORKER"):
        AiSeats("normal", worker="fork")


def test_an_unknown_default_level_is_refused():
    with pytest.raises(ValueError, match="KOZYR_AI_LEVEL"):
        AiSeats("genius")


@pytest.mark.fake(limits=RateLimits.loose())
async def test_hint_in_the_dm_suggests_a_legal_move_only_to_the_player_to_act(fake, app, db):
    from tests.bot.harness import live_hand, play_buttons

    ann = fake.user(first_name="Ann", language_code="en")
    bob = fake.user(first_name="Bob", language_code="ru")
    group = fake.group("Cards", members=[ann, bob], creator=ann)
    for user in (ann, bob):
        await user.start_bot()
    await settle(fake, app)
    await bob.send("/hint")
    await settle(fake, app)
    assert bob.last_dm().content == "Сейчас ни за одним столом не ваш ход."
    await open_table_in(fake, app, "oh_hell", [ann, bob], ais=1, options="hand_sizes=3", group=group)
    await settle(fake, app)
    for _ in range(4):  # a few turns: bids, then card plays
        user, hand = live_hand([ann, bob])
        other = bob if user is ann else ann
        await user.send("/hint")
        await other.send("/hint")
        await settle(fake, app)
        labels = [b["text"] for b in play_buttons(hand)]
        said = user.last_dm().content
        assert said.startswith("💡") and ("Oh Hell" in said or "Черт побери" in said), said
        assert any(said.endswith(": " + label) for label in labels), (said, labels)
        assert "💡" not in other.last_dm().content
        await user.press(hand, labels[0])
        await settle(fake, app)
    before = len(group.messages())
    await bob.send(group, "/hint")
    await settle(fake, app)
    told = group.messages()[before:]
    assert len(told) == 1 and "private chat" in told[0].content and "💡" not in told[0].content
