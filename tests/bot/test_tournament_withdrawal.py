"""Withdrawing from a round robin (every round's tables open at once), through the services on a fake clock:
by the player's own /leave (the confirmation press), by the organizer's /tournament withdraw, and by the
no-move rule. Every way the AI takes their seat at every table still on, those tables count as lost for them
(``forfeit``), and the standings mark them. And whom ``/tournament withdraw`` names."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from aiogram.types import Chat, ForumTopicCreated, Message, MessageEntity, User

from bot.handlers.tournament import _named
from bot.services.types import Actor
from bot.tournaments.naming import Named
from bot.tournaments.standings import forfeit
from tests.bot.test_tournament_formats import WHERE, _enter, _run_out, _services


def test_forfeit_puts_the_withdrawn_last_and_ranks_the_rest_among_themselves() -> None:
    assert forfeit({1: 1, 2: 2, 3: 3}, set()) == {1: 1, 2: 2, 3: 3}
    assert forfeit({1: 1, 2: 2, 3: 3}, {1, 9}) == {2: 1, 3: 2, 1: 3}  # the AI won the seat: no points for 1
    assert forfeit({1: 1, 2: 1, 3: 3}, {3}) == {1: 1, 2: 1, 3: 3}  # a shared place stays shared
    assert forfeit({1: 2, 2: 1, 3: 3}, {2, 3}) == {1: 1, 2: 3, 3: 3}  # two gone share the last place


async def _robin(tmp_path, withdraw: str):
    store, services, clock = await _services(tmp_path / "k.sqlite3")
    people = [Actor(400 + i, f"R{i}", "en") for i in range(6)]
    await services.tournaments.open(WHERE, people[0], ["oh_hell", "format=robin", "size=3", "clock=1h",
                                                       "hand_sizes=2,1", f"withdraw={withdraw}"])
    row = await services.tournaments.here(WHERE)
    assert row is not None
    await _enter(services, row.id, people[1:])
    assert (await services.tournaments.begin(row.id, people[0], "en", False)).text == "The tournament begins!"
    return store, services, clock, row.id, people


async def _idle(services) -> None:
    for _ in range(2000):
        if not services.play.ai_busy() and not services.tournaments.busy():
            return
        await asyncio.sleep(0.005)


def _message(text: str, reply: Message | None = None, thread: int | None = None, **extra: object) -> Message:
    chat = Chat(id=-100, type="supergroup", is_forum=thread is not None)
    ann = User(id=1, is_bot=False, first_name="Ann")
    return Message(message_id=50, date=datetime.now(UTC), chat=chat, from_user=ann, text=text,
                   reply_to_message=reply, message_thread_id=thread, **extra)


def test_withdraw_names_the_replied_to_author_a_mention_or_the_words_typed() -> None:
    dan = User(id=4, is_bot=False, first_name="Dan", last_name="Lee")
    said = _message("brb").model_copy(update={"message_id": 7, "from_user": dan})
    assert _named(_message("/tournament withdraw", said), []) == Named(4, "", "Dan Lee")
    assert _named(_message("/tournament withdraw @dan", entities=[MessageEntity(type="mention", offset=21,
                                                                                length=4)]), ["@dan"]) \
        == Named(None, "@dan", "")
    assert _named(_message("/tournament withdraw Dan  Lee"), ["Dan", "Lee"]) == Named(text="Dan Lee")
    # in a forum topic every message replies to the topic's first one: its author is named by nobody
    opened = _message("").model_copy(update={"message_id": 3, "from_user": dan, "text": None,
                                             "forum_topic_created": ForumTopicCreated(name="Cup", icon_color=0)})
    assert _named(_message("/tournament withdraw", opened, thread=3), []) == Named()


@pytest.mark.parametrize("by", ["themselves", "the organizer"])
async def test_a_player_who_withdraws_leaves_every_robin_table_and_loses_them(tmp_path, by):
    store, services, clock, tid, people = await _robin(tmp_path, "off")  # the no-move rule off: only /leave
    leaver = people[2]
    try:
        if by == "themselves":
            answer = await services.tournaments.withdraw(tid, leaver, "en")
            assert answer.text == "You withdrew from the tournament."
            assert (await services.tournaments.withdraw(tid, leaver, "en")).alert  # once
        else:  # people[0] opened it; people[1] is no admin (the handler says so) and may not
            refused = await services.tournaments.withdraw_player(tid, people[1], leaver.user_id, "en", False)
            assert refused.alert and "Only the tournament's organizer" in refused.text
            answer = await services.tournaments.withdraw_player(tid, people[0], leaver.user_id, "en", False)
            assert answer.text == "R2 is withdrawn from the tournament."
            again = await services.tournaments.withdraw_player(tid, people[0], leaver.user_id, "en", False)
            assert again.alert and again.text == "R2 has already withdrawn from the tournament."
        await _idle(services)
        async with store.read() as tx:
            boards = [b for b in await tx.boards(tid) if leaver.user_id in b.players]
            seats = {b.table_id: await tx.seats(b.table_id) for b in boards if b.table_id is not None}
            entrants = {e.user_id: e for e in await tx.entrants(tid)}
        assert len(boards) == 5 and entrants[leaver.user_id].withdrawn is not None
        for b in boards:  # the AI sits where they sat, at every one of their tables
            seat = b.players.index(leaver.user_id)
            assert seats[b.table_id][seat].user_id is None
        await _run_out(store, services, clock, tid)
        async with store.read() as tx:
            results = await tx.tournament_results(tid)
            done = await tx.tournament(tid)
            assert done is not None
            standings = await services.tournaments._standings(tx, done)  # noqa: SLF001
        theirs = [place for _, _, p, place in results if p == leaver.user_id]
        assert theirs == [3] * 5  # last at each table, whatever the AI made of the seat
        boards_of: dict[tuple[int, int], list[int]] = {}
        for rnd, board, _, place in results:
            boards_of.setdefault((rnd, board), []).append(place)
        for b in boards:  # the other two are ranked between themselves: one of them is first
            assert 1 in boards_of[(b.round, b.board)]
        row = next(s for s in standings if s.id == leaver.user_id)
        assert row.withdrawn and row.points == 0.0 and row.played == 5
        assert all(not s.withdrawn for s in standings if s.id != leaver.user_id)
    finally:
        await services.stop()
        await store.close()


async def test_the_no_move_rule_withdraws_a_robin_player_from_their_other_tables(tmp_path):
    store, services, clock, tid, _ = await _robin(tmp_path, "on")
    assert services.clocks is not None
    try:
        async with store.read() as tx:
            first_board = (await tx.boards(tid))[0]
        table_id = first_board.table_id
        assert table_id is not None
        for _ in range(400):  # only the first table's deadlines come (nobody moves) until it ends
            await _idle(services)
            async with store.read() as tx:
                results = await tx.tournament_results(tid)
                c = await tx.clock(table_id)
            if results:
                break
            assert c is not None and c.due is not None
            clock.advance(max(0.0, c.due - clock.now()))
            await services.clocks.fire(table_id)
        await _idle(services)
        async with store.read() as tx:
            first = {p for _, _, p, _ in results}
            entrants = {e.user_id: e for e in await tx.entrants(tid)}
            live = []
            for b in await tx.boards(tid):
                table = await tx.table(b.table_id) if b.table_id is not None else None
                if table is not None and table.status == "playing":
                    live.append((b, await tx.seats(b.table_id)))
            said = await tx._all("SELECT payload FROM outbox WHERE method = 'send'")  # noqa: SLF001
        assert first == set(first_board.players)
        assert sum("did not make a single move at a table" in r["payload"] for r in said) == 3
        assert all(entrants[p].withdrawn is not None for p in first)
        assert all(entrants[p].withdrawn is None for p in entrants if p not in first)
        handed = [(b, seats) for b, seats in live if set(b.players) & first]
        assert handed  # they had other tables on: each one's seat went to the AI
        for b, seats in handed:
            for i, player in enumerate(b.players):
                assert (seats[i].user_id is None) == (player in first)
    finally:
        await services.stop()
        await store.close()
