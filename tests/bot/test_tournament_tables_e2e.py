"""A tournament's tables named from the group, over the fake Bot API: ``/score 2`` shows table 2 of the round,
``/score`` alone offers the running tables as buttons, each round table's message has a Score button,
/extend and /cancel keep their rights (and a running tournament's table is never cancelled), a forged press
naming another chat's table or tournament does nothing, and /leave withdraws a player from a Swiss or a
round robin tournament: the AI takes their seat at every table still on, and the group is told."""

from __future__ import annotations

import json

import pytest

from tests.bot.harness import running_bot, settle
from tests.bot.helpers import answered, db_rows, plain
from tests.fakebot.ratelimit import RateLimits

SLOW_CLOCK = {"KOZYR_AI_THINK_MS": 2.0}


def says(group, needle: str, after: int = 0) -> list:
    return [m for m in group.messages() if m.message_id > after and needle in plain(m.content)]


def last_id(group) -> int:
    return max((m.message_id for m in group.messages()), default=0)


async def _tournament(fake, app, ann, users, group, spec: str) -> int:
    """Open ``spec`` as Ann (the group's creator: an admin), everyone joins, Ann starts it; its id."""
    await ann.send(group, f"/tournament {spec}")
    reg = await fake.wait_for_message(group, lambda m: "Tournament" in m.content and bool(m.buttons), timeout=20)
    for user in users:
        if user is not ann:
            assert (await answered(fake, await user.press(reg, "✋ Join"))).answer_text == "You are in the tournament."
    began = await answered(fake, await ann.press(reg, lambda b: "Start now" in b.get("text", "")))
    assert began.answer_text == "The tournament begins!"
    await fake.wait_until(lambda: says(group, "Round 1"), timeout=20, what="round 1")
    await settle(fake, app)
    (tid,), = db_rows(app.settings.database_url.removeprefix("sqlite:///"), "SELECT id FROM tournaments")
    return int(tid)


def _boards(db, tid: int) -> list[tuple[int, int, list[int], int]]:
    """(round, board, players, table id) of the tournament's tables."""
    rows = db_rows(db, "SELECT round, board, players, table_id FROM tournament_boards WHERE tournament_id = ? "
                       "AND kind = 'table' ORDER BY round, board", tid)
    return [(r, b, json.loads(p), t) for r, b, p, t in rows]


def _seat_users(db, table_id: int) -> list[int | None]:
    return [u for (u,) in db_rows(db, "SELECT user_id FROM seats WHERE table_id = ? ORDER BY seat", table_id)]


async def _withdraw(fake, app, group, who, other) -> None:
    """``/leave`` by ``who``: the prompt is theirs alone (``other``'s press is refused), then they confirm."""
    mark = last_id(group)
    await who.send(group, "/leave")
    prompt = await fake.wait_for_message(group, lambda m: "withdraw from the tournament?" in m.content, after=mark,
                                         timeout=10)
    assert who.first_name in plain(prompt.content)
    refused = await answered(fake, await other.press(prompt, "🚪 Yes, withdraw"))
    assert refused.show_alert and refused.answer_text == "This button is not for you."
    done = await answered(fake, await who.press(prompt, "🚪 Yes, withdraw"))
    assert done.answer_text == "You withdrew from the tournament."
    await fake.wait_until(lambda: says(group, f"{who.first_name} withdraws from the tournament", mark), timeout=10,
                          what="the group told of the withdrawal")
    await settle(fake, app)


@pytest.mark.fake(limits=RateLimits.loose())
async def test_swiss_tables_are_named_chosen_scored_and_left_from_the_group(fake, db):
    names = ["Ann", "Bob", "Cid", "Dan", "Eva", "Fay"]
    users = [fake.user(first_name=n) for n in names]
    ann, bob = users[0], users[1]
    group = fake.group("Cup", members=users[1:], creator=ann)
    other = fake.group("Elsewhere", members=[bob], creator=users[2])
    async with running_bot(fake, db, **SLOW_CLOCK) as app:
        for user in users:
            await user.start_bot()
        await settle(fake, app)
        tid = await _tournament(fake, app, ann, users, group,
                                "carnival rounds=2 size=3 clock=1h register=1h quarters=1")
        boards = _boards(db, tid)
        assert [(r, b) for r, b, _, _ in boards] == [(0, 0), (0, 1)]
        by_id = {u.id: u.first_name for u in users}
        table2 = {by_id[p] for p in boards[1][2]}

        def sheet_of(message) -> set[str]:
            """The players a score sheet names (its second line: the names)."""
            return set(plain(message.content).splitlines()[1].split(" | "))

        # /score 2: table 2 of the current round
        mark = last_id(group)
        await bob.send(group, "/score 2")
        sheet = await fake.wait_for_message(group, lambda m: "score sheet" in m.content, after=mark, timeout=10)
        assert sheet_of(sheet) == table2
        # /score 1.2 and /score #id name the same table; a table that is not here is said so
        for named in ("1.2", f"#{boards[1][3]}"):
            mark = last_id(group)
            await bob.send(group, f"/score {named}")
            sheet = await fake.wait_for_message(group, lambda m: "score sheet" in m.content, after=mark, timeout=10)
            assert sheet_of(sheet) == table2
        mark = last_id(group)
        await bob.send(group, "/score 7")
        await fake.wait_for_message(group, lambda m: "There is no table 7 here" in plain(m.content), after=mark,
                                    timeout=10)

        # /score alone, two tables running: the choice, as buttons naming each table and its players
        mark = last_id(group)
        await bob.send(group, "/score")
        chooser = await fake.wait_for_message(group, lambda m: "Several tables are running here" in m.content,
                                              after=mark, timeout=10)
        labels = [b["text"] for b in chooser.buttons]
        assert len(labels) == 2 and labels[1].startswith(f"#{boards[1][3]} Carnival, round 1, table 2: ")
        assert all(name in labels[1] for name in table2)
        mark = last_id(group)
        assert not (await answered(fake, await bob.press(chooser, labels[1]))).show_alert
        sheet = await fake.wait_for_message(group, lambda m: "score sheet" in m.content, after=mark, timeout=10)
        assert sheet_of(sheet) == table2

        # each round table's group message carries a Score button for that table
        scored = [m for m in group.messages() if any(b.get("callback_data") == f"th:{boards[0][3]}:sc"
                                                     and b["text"] == "📊 Score" for b in m.buttons)]
        assert scored, "table 1's message has no Score button"
        mark = last_id(group)
        await answered(fake, await bob.press(scored[-1], "📊 Score"))
        sheet = await fake.wait_for_message(group, lambda m: "score sheet" in m.content, after=mark, timeout=10)
        assert sheet_of(sheet) == {by_id[p] for p in boards[0][2]}

        # rights: /extend is the organizer's (the tables' creator); /cancel refuses a running tournament's
        # table to everyone, the chat's admin included; /pause with several tables and no name asks which
        mark = last_id(group)
        await bob.send(group, "/extend 1")
        await fake.wait_for_message(group, lambda m: "Only the table's creator can extend the time" in m.content,
                                    after=mark, timeout=10)
        for who in (bob, ann):
            mark = last_id(group)
            await who.send(group, "/cancel 1")
            await fake.wait_for_message(group, lambda m: "tournament's table cannot be cancelled" in plain(m.content),
                                        after=mark, timeout=10)
        assert db_rows(db, "SELECT COUNT(*) FROM tables WHERE status = 'playing'") == [(2,)]
        mark = last_id(group)
        await ann.send(group, "/extend 1")
        await fake.wait_until(lambda: says(group, "The creator gave this move", mark), timeout=10, what="extended")
        mark = last_id(group)
        await bob.send(group, "/pause")
        pause_choice = await fake.wait_for_message(group, lambda m: "Several tables" in m.content, after=mark,
                                                   timeout=10)
        assert all(str(b["callback_data"]).endswith(":pa") for b in pause_choice.buttons)

        # forged presses: another chat's table (its data on a button here), this chat's tournament from there
        await users[2].send(other, "/new carnival quarters=1")
        lobby = await fake.wait_for_message(other, lambda m: bool(m.buttons), timeout=10)
        (foreign,), = db_rows(db, "SELECT id FROM tables WHERE chat_id = ?", other.id)
        mark = last_id(group)
        for op in ("sc", "ca", "pa", "ex"):
            forged = await answered(fake, await bob.press_data(chooser, f"th:{foreign}:{op}"))
            assert forged.show_alert and forged.answer_text == "This button is not valid."
        forged = await answered(fake, await bob.press_data(lobby, f"tn:{tid}:wd"))
        assert forged.show_alert and forged.answer_text == "This button is not valid."
        await settle(fake, app)
        assert not says(group, "score sheet", mark) and not says(other, "score sheet")
        assert db_rows(db, "SELECT status FROM tables WHERE id = ?", foreign) == [("lobby",)]
        assert db_rows(db, "SELECT COUNT(*) FROM tournament_entrants WHERE withdrawn IS NOT NULL") == [(0,)]

        # /leave at a tournament table: withdrawing, confirmed by the player alone; the AI takes the seat
        cid = users[2]
        table_of_cid = next(t for _, _, players, t in boards if cid.id in players)
        helper = next(u for u in users if u is not cid)
        await _withdraw(fake, app, group, cid, helper)
        assert db_rows(db, "SELECT withdrawn FROM tournament_entrants WHERE user_id = ?", cid.id) == [(1,)]
        assert cid.id not in _seat_users(db, table_of_cid) and None in _seat_users(db, table_of_cid)
        assert says(group, "Cid left the game")
        mark = last_id(group)
        await cid.send(group, "/leave")  # once out, /leave is not a tournament's any more
        await settle(fake, app)
        assert not says(group, "withdraw from the tournament?", mark)


@pytest.mark.fake(limits=RateLimits.loose())
async def test_leaving_a_round_robin_hands_every_one_of_the_players_tables_to_the_ai(fake, db):
    names = ["Ann", "Bob", "Cid", "Dan", "Eva", "Fay"]
    users = [fake.user(first_name=n) for n in names]
    ann = users[0]
    group = fake.group("Cup", members=users[1:], creator=ann)
    async with running_bot(fake, db, **SLOW_CLOCK) as app:
        for user in users:
            await user.start_bot()
        await settle(fake, app)
        tid = await _tournament(fake, app, ann, users, group,
                                "oh_hell format=robin size=3 clock=1h register=1h hand_sizes=2,1")
        boards = _boards(db, tid)
        assert len(boards) == 10  # five rounds of two tables, all on at once
        # /score 2 in a round robin: table 2 of the earliest round still playing
        mark = last_id(group)
        await users[1].send(group, "/score 2")
        sheet = await fake.wait_for_message(group, lambda m: "score sheet" in m.content, after=mark, timeout=10)
        by_id = {u.id: u.first_name for u in users}
        assert set(plain(sheet.content).splitlines()[1].split(" | ")) == {by_id[p] for p in boards[1][2]}

        dan = users[3]
        his = [t for _, _, players, t in boards if dan.id in players]
        assert len(his) == 5
        await _withdraw(fake, app, group, dan, users[4])
        for table_id in his:  # the AI sits in his seat at each of his five tables
            assert dan.id not in _seat_users(db, table_id) and None in _seat_users(db, table_id)
        others = [t for _, _, players, t in boards if dan.id not in players]
        assert all(None not in _seat_users(db, t) for t in others)  # nobody else's table was touched
        (withdrawn,), = db_rows(db, "SELECT withdrawn FROM tournament_entrants WHERE user_id = ?", dan.id)
        assert withdrawn is not None
        assert len(says(group, "Dan left the game")) >= 1
