"""A tournament's tables named from the group, over the fake Bot API: ``/score 2`` shows table 2 of the round,
``/score`` alone offers the running tables as buttons, each round table's message has a Score button,
/extend and /cancel keep their rights (and a running tournament's table is never cancelled), a forged press
naming another chat's table or tournament does nothing, /record names a table as /score does, /leave
withdraws a player from a Swiss or a round robin tournament (the AI takes their seat at every table still
on, and the group is told), and so does the organizer's (or an admin's) /tournament withdraw, confirmed."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from bot.app import App
from tests.bot.harness import running_bot, settle
from tests.bot.helpers import answered, db_rows, plain
from tests.fakebot.models import StoredMessage
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.users import FakeChat, FakeUser

SLOW_CLOCK = {"KOZYR_AI_THINK_MS": 2.0}
NAMES = ("Ann", "Bob", "Cid", "Dan", "Eva", "Fay")


def says(group, needle: str, after: int = 0) -> list:
    return [m for m in group.messages() if m.message_id > after and needle in plain(m.content)]


def last_id(group) -> int:
    return max((m.message_id for m in group.messages()), default=0)


@asynccontextmanager
async def _cup(fake, db, admins: tuple[int, ...] = ()) -> AsyncIterator[tuple[App, list[FakeUser], FakeChat]]:
    """Six players who opened the bot, in the group "Cup" Ann created (``admins``: indexes of more admins),
    and the bot running."""
    users = [fake.user(first_name=n, username=f"{n.lower()}_cup") for n in NAMES]
    group = fake.group("Cup", members=users[1:], creator=users[0], admins=[users[i] for i in admins])
    async with running_bot(fake, db, **SLOW_CLOCK) as app:
        for user in users:
            await user.start_bot()
        await settle(fake, app)
        yield app, users, group


async def _ask(fake, group, who, command: str, needle: str, reply_to: StoredMessage | None = None) -> StoredMessage:
    """``command`` from ``who`` (optionally replying to a message): the group's first message after it that
    says ``needle``."""
    mark = last_id(group)
    await who.send(group, command, reply_to=reply_to)
    return await fake.wait_for_message(group, lambda m: needle in plain(m.content), after=mark, timeout=10)


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
    async with _cup(fake, db) as (app, users, group):
        ann, bob = users[0], users[1]
        other = fake.group("Elsewhere", members=[bob], creator=users[2])
        tid = await _tournament(fake, app, ann, users, group,
                                "carnival rounds=2 size=3 clock=1h register=1h quarters=1")
        boards = _boards(db, tid)
        assert [(r, b) for r, b, _, _ in boards] == [(0, 0), (0, 1)]
        by_id = {u.id: u.first_name for u in users}
        table2 = {by_id[p] for p in boards[1][2]}

        def sheet_of(message) -> set[str]:
            """The players a score sheet names (its second line: the names)."""
            return set(plain(message.content).splitlines()[1].split(" | "))

        # /score 2: table 2 of the current round; /score 1.2 and /score #id name the same table
        for named in ("2", "1.2", f"#{boards[1][3]}"):
            assert sheet_of(await _ask(fake, group, bob, f"/score {named}", "score sheet")) == table2
        await _ask(fake, group, bob, "/score 7", "There is no table 7 here")  # a table that is not here

        # /score alone, two tables running: the choice, as buttons naming each table and its players
        chooser = await _ask(fake, group, bob, "/score", "Several tables are running here")
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
        await _ask(fake, group, bob, "/extend 1", "Only the table's creator can extend the time")
        for who in (bob, ann):
            await _ask(fake, group, who, "/cancel 1", "tournament's table cannot be cancelled")
        assert db_rows(db, "SELECT COUNT(*) FROM tables WHERE status = 'playing'") == [(2,)]
        await _ask(fake, group, ann, "/extend 1", "The creator gave this move")
        pause_choice = await _ask(fake, group, bob, "/pause", "Several tables")
        assert all(str(b["callback_data"]).endswith(":pa") for b in pause_choice.buttons)

        # forged presses: another chat's table (its data on a button here), this chat's tournament from there
        await users[2].send(other, "/new carnival quarters=1")
        lobby = await fake.wait_for_message(other, lambda m: bool(m.buttons), timeout=10)
        (foreign,), = db_rows(db, "SELECT id FROM tables WHERE chat_id = ?", other.id)
        mark = last_id(group)
        for op in ("sc", "rc", "ca", "pa", "ex"):
            forged = await answered(fake, await bob.press_data(chooser, f"th:{foreign}:{op}"))
            assert forged.show_alert and forged.answer_text == "This button is not valid."
        forged = await answered(fake, await bob.press_data(lobby, f"tn:{tid}:wd"))
        assert forged.show_alert and forged.answer_text == "This button is not valid."
        await settle(fake, app)
        assert not says(group, "score sheet", mark) and not says(other, "score sheet")
        assert not [m for m in group.messages() + other.messages() if m.message_id > mark and m.document]
        assert db_rows(db, "SELECT status FROM tables WHERE id = ?", foreign) == [("lobby",)]
        assert db_rows(db, "SELECT COUNT(*) FROM tournament_entrants WHERE withdrawn IS NOT NULL") == [(0,)]

        # /record names a table as /score does (a game still on: its public log); another chat's #id is none
        for named in ("2", "1.2", f"#{boards[1][3]}"):
            log = await _ask(fake, group, bob, f"/record {named}", "public log")
            assert log.document is not None
            assert log.document["file_name"] == f"kozyr-carnival-{boards[1][3]}-so-far.txt"
        await _ask(fake, group, bob, f"/record #{foreign}", f"There is no table #{foreign} here")
        record_choice = await _ask(fake, group, bob, "/record", "Several tables are running here")
        assert [b["callback_data"] for b in record_choice.buttons] == [f"th:{t}:rc" for *_, t in boards]
        mark = last_id(group)
        assert not (await answered(fake, await bob.press(record_choice, record_choice.buttons[0]["text"]))).show_alert
        log = await fake.wait_for_message(group, lambda m: m.document is not None, after=mark, timeout=10)
        assert log.document is not None and log.document["file_name"] == f"kozyr-carnival-{boards[0][3]}-so-far.txt"
        await settle(fake, app)
        assert not [m for m in other.messages() if m.document]

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
    async with _cup(fake, db) as (app, users, group):
        tid = await _tournament(fake, app, users[0], users, group,
                                "oh_hell format=robin size=3 clock=1h register=1h hand_sizes=2,1")
        boards = _boards(db, tid)
        assert len(boards) == 10  # five rounds of two tables, all on at once
        # /score 2 in a round robin: table 2 of the earliest round still playing
        sheet = await _ask(fake, group, users[1], "/score 2", "score sheet")
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


@pytest.mark.fake(limits=RateLimits.loose())
async def test_the_organizer_withdraws_an_absent_player_and_nobody_else_can(fake, db):
    async with _cup(fake, db, admins=(4,)) as (app, users, group):
        ann, bob, dan, eva, fay = users[0], users[1], users[3], users[4], users[5]
        await _ask(fake, group, ann, "/tournament withdraw @dan_cup", "There is no tournament here")
        tid = await _tournament(fake, app, ann, users, group,
                                "carnival rounds=2 size=3 clock=1h register=1h quarters=1")
        boards = _boards(db, tid)
        gone = await dan.send(group, "brb")  # Dan's last word; he makes no move from here on

        def out() -> list[tuple[int]]:
            return db_rows(db, "SELECT user_id FROM tournament_entrants WHERE withdrawn IS NOT NULL")

        # refused, and said so: not the organizer nor an admin; nobody named; a name that is no entrant's
        await _ask(fake, group, bob, "/tournament withdraw", "Only the tournament's organizer or the chat's admins",
                   reply_to=gone)
        await _ask(fake, group, ann, "/tournament withdraw", "Whom? Send /tournament withdraw as a reply")
        await _ask(fake, group, ann, "/tournament withdraw Zed", "Zed is not playing in this tournament")
        await _ask(fake, group, ann, "/tournament withdraw @nobody_here", "@nobody_here is not playing")

        # the organizer replies to Dan's message: a prompt whose buttons are hers alone, for Dan alone
        prompt = await _ask(fake, group, ann, "/tournament withdraw", "withdraw Dan from the tournament?",
                            reply_to=gone)
        assert plain(prompt.content).startswith("Ann: ")
        refused = await answered(fake, await bob.press(prompt, "🚪 Yes, withdraw"))
        assert refused.show_alert and refused.answer_text == "This button is not for you."
        forged = await answered(fake, await ann.press_data(prompt, f"tw:{tid}:{eva.id}:wd"))  # another player
        assert forged.show_alert and forged.answer_text == "This button is not for you."
        await settle(fake, app)
        assert out() == [] and not says(group, "withdrew")

        mark = last_id(group)
        done = await answered(fake, await ann.press(prompt, "🚪 Yes, withdraw"))
        assert done.answer_text == "Dan is withdrawn from the tournament."
        await fake.wait_until(lambda: says(group, "The organizer withdrew Dan from the tournament", mark),
                              timeout=10, what="the group told")
        await settle(fake, app)
        assert out() == [(dan.id,)]
        his = next(t for _, _, players, t in boards if dan.id in players)
        assert dan.id not in _seat_users(db, his) and None in _seat_users(db, his)  # the AI plays his seat
        assert says(group, "Dan left the game", mark)
        assert not group.messages_by_id[prompt.message_id].buttons  # the prompt's buttons went
        standings = await _ask(fake, group, bob, "/tournament", "Standings after round")
        assert [line for line in plain(standings.content).splitlines() if "Dan" in line][0].endswith("✖")
        await _ask(fake, group, ann, "/tournament withdraw Dan", "Dan has already withdrawn from the tournament")

        # a chat admin may act for the organizer (as for /tournament cancel), named by @username; "No" keeps
        ask = await _ask(fake, group, eva, "/tournament withdraw @fay_cup", "withdraw Fay from the tournament?")
        kept = await answered(fake, await eva.press(ask, "No, keep them"))
        assert not kept.show_alert
        await settle(fake, app)
        assert out() == [(dan.id,)] and not group.messages_by_id[ask.message_id].buttons
        ask = await _ask(fake, group, eva, "/tournament withdraw fay", "withdraw Fay from the tournament?")
        assert (await answered(fake, await eva.press(ask, "🚪 Yes, withdraw"))).answer_text == \
            "Fay is withdrawn from the tournament."
        await fake.wait_until(lambda: says(group, "Eva, an admin of the chat, withdrew Fay"), timeout=10,
                              what="the admin's withdrawal told")
        assert sorted(out()) == sorted([(dan.id,), (fay.id,)])
