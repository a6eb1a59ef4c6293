"""A 9-player Carnival Swiss (three tables of three, 3 rounds) over the fake Bot API, played to the end:
the players enter with the Join button, an admin starts it, each round's tables open in the group, the
players make a move or two and then leave their seats to the AI under a 2-second clock (one strike), one
player never moves and is withdrawn after round 1, the bot restarts in the middle of round 2, and the
final standings come out and reach the league."""

from __future__ import annotations

import asyncio

import pytest

from tests.bot.harness import running_bot, settle
from tests.bot.helpers import answered, db_rows, plain
from tests.fakebot.ratelimit import RateLimits

NAMES = ["Ann", "Bob", "Cid", "Dan", "Eva", "Fay", "Gus", "Hal", "Ivy"]
CLOCK = {"KOZYR_AI_THINK_MS": 2.0}


def group_has(group, needle: str) -> bool:
    return any(needle in plain(m.content) for m in group.messages())


async def one_move_each(fake, users, group, until: str, timeout: float = 120, enough: int = 99,
                        moved: set[str] | None = None) -> set[str]:
    """Each user (not in ``moved`` yet) presses one move button at the first live hand they get, until
    ``until`` shows in the group (the round is over) or ``enough`` have moved. Who moved."""
    moved = set() if moved is None else set(moved)
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not group_has(group, until) and len(moved) < enough:
        assert loop.time() < end, f"{until!r} never came; moved: {sorted(moved)}"
        for user in users:
            if user.first_name in moved:
                continue
            for message in reversed(user.inbox(include_deleted=False)):
                buttons = [b for b in message.buttons if str(b.get("callback_data", "")).startswith("mv:")]
                if buttons:
                    await user.press_data(message, str(buttons[0]["callback_data"]))
                    moved.add(user.first_name)
                    break
        await asyncio.sleep(0.05)
    return moved


@pytest.mark.slow
@pytest.mark.fake(limits=RateLimits.loose())
async def test_nine_player_carnival_swiss_with_a_restart_and_a_withdrawal(fake, db):
    users = [fake.user(first_name=n) for n in NAMES]
    ann, active = users[0], users[:8]  # users[8], Ivy, never moves
    group = fake.group("Cup", members=users[1:], creator=ann)
    async with running_bot(fake, db, **CLOCK) as app:
        for user in users:
            await user.start_bot()
        await settle(fake, app)
        await ann.send(group, "/tournament carnival rounds=3 size=3 clock=2s strikes=1 register=1h quarters=1")
        reg = await fake.wait_for_message(group, lambda m: "Tournament" in m.content and bool(m.buttons), timeout=20)
        shown = plain(reg.content)
        assert "Swiss, 3 rounds, tables of 3" in shown and "Points per place: 2 / 1 / 0" in shown
        for user in users[1:]:
            joined = await answered(fake, await user.press(reg, lambda b: b.get("text") == "✋ Join"))
            assert joined.answer_text == "You are in the tournament."
        await settle(fake, app)
        assert "Players (9)" in plain(reg.content)
        refused = await answered(fake, await users[1].press(reg, lambda b: "Start now" in b.get("text", "")))
        assert refused.show_alert  # only an admin (or the creator) starts it
        began = await answered(fake, await ann.press(reg, lambda b: "Start now" in b.get("text", "")))
        assert began.answer_text == "The tournament begins!"
        await fake.wait_until(lambda: group_has(group, "Round 1"), timeout=20, what="round 1")
        round1 = next(plain(m.content) for m in group.messages() if "Round 1" in m.content)
        assert round1.count("Table ") == 3 and "Bye" not in round1

        moved = await one_move_each(fake, active, group, "Standings after round 1")
        assert moved == {u.first_name for u in active}
        await fake.wait_until(lambda: group_has(group, "Ivy did not make a single move"), timeout=20,
                              what="the withdrawal")
        await fake.wait_until(lambda: group_has(group, "Round 2"), timeout=20, what="round 2")
        round2 = next(plain(m.content) for m in group.messages() if "Round 2" in m.content)
        assert round2.count("Table ") == 2 and "Bye (1 points)" in round2 and "Ivy" not in round2
        # a few moves of round 2, then the bot goes down in the middle of the round
        early = await one_move_each(fake, active, group, "Standings after round 2", enough=3)
        assert 3 <= len(early) < 6
        await asyncio.sleep(0.3)
    assert db_rows(db, "SELECT COUNT(*) FROM tournament_results WHERE round = 1") == [(0,)]

    async with running_bot(fake, db, **CLOCK) as app:
        moved2 = await one_move_each(fake, active, group, "Standings after round 2", moved=early)
        byes2 = {n for n in NAMES if n in round2.split("Bye")[1]}
        assert moved2 | byes2 == {u.first_name for u in active}
        await fake.wait_until(lambda: group_has(group, "Round 3"), timeout=30, what="round 3")
        round3 = next(plain(m.content) for m in group.messages() if "Round 3" in m.content)
        byes3 = {n for n in NAMES if n in round3.split("Bye")[1]}
        assert len(byes3) == 2 and not byes3 & byes2  # byes spread
        await one_move_each(fake, active, group, "Final standings")
        await settle(fake, app, timeout=60)

    final = next(plain(m.content) for m in group.messages() if "Final standings" in m.content)
    assert "Ivy" in final and "✖" in final
    (status, rounds), = db_rows(db, "SELECT status, round FROM tournaments")
    assert (status, rounds) == ("finished", 3)
    boards = db_rows(db, "SELECT round, kind, COUNT(*) FROM tournament_boards GROUP BY round, kind ORDER BY 1, 2")
    assert boards == [(0, "table", 3), (1, "bye", 1), (1, "table", 2), (2, "bye", 1), (2, "table", 2)]
    assert db_rows(db, "SELECT COUNT(*) FROM tournament_results") == [(9 + 6 + 6,)]
    assert db_rows(db, "SELECT name, withdrawn FROM tournament_entrants WHERE withdrawn IS NOT NULL") == [("Ivy", 1)]
    assert db_rows(db, "SELECT COUNT(*) FROM league_matches") == [(7,)]  # every table rated as it finished
    (target,), = db_rows(db, "SELECT target FROM league_log WHERE action = 'tournament'")
    assert target.startswith("carnival: 1. ")
