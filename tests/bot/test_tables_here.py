"""Which table a group command names (``TablesHere.pick``): a board of the current round, round.board, a
table's #id of this chat only, the choice when several run and none is named; anything else names nothing."""

from __future__ import annotations

from bot.services.types import Actor, Where
from tests.bot.test_tournament_formats import GROUP, WHERE, _enter, _services

ELSEWHERE = Where(GROUP - 1, 0, "Elsewhere", "en")


async def test_a_command_names_a_table_of_this_chat_or_gets_the_choice(tmp_path):
    store, services, _ = await _services(tmp_path / "k.sqlite3")
    people = [Actor(500 + i, f"H{i}", "en") for i in range(6)]
    here = services.here
    try:
        assert (await here.pick(WHERE, "")).table is None and not (await here.pick(WHERE, "")).choices
        assert (await here.pick(WHERE, "1")).unknown  # no tournament yet
        await services.tournaments.open(WHERE, people[0], ["carnival", "rounds=2", "size=3", "clock=1h",
                                                           "quarters=1"])
        row = await services.tournaments.here(WHERE)
        assert row is not None
        await _enter(services, row.id, people[1:])
        await services.tournaments.begin(row.id, people[0], "en", False)
        async with store.transaction() as tx:
            await tx.ensure_chat(ELSEWHERE.chat_id, "Elsewhere", "en")
        await services.lobby.new_table(ELSEWHERE, people[0], "carnival", ["quarters=1"])
        foreign = await services.lobby.open_table_id(ELSEWHERE)
        async with store.read() as tx:
            boards = [b for b in await tx.boards(row.id) if b.kind == "table"]
        assert len(boards) == 2 and foreign is not None

        both = await here.pick(WHERE, "")
        assert both.table is None and [r.table.id for r in both.choices] == [b.table_id for b in boards]
        for named in ("2", "1.2", f"#{boards[1].table_id}", " 2 "):
            picked = await here.pick(WHERE, named)
            assert picked.table is not None and picked.table.table.id == boards[1].table_id, named
            assert picked.table.board is not None and picked.table.board.board == 1
        for nothing in ("3", "0", "2.1", "²", "#", "#x", "1.2.3", "-1", f"#{foreign}", "99999999999999999999"):
            assert (await here.pick(WHERE, nothing)).unknown, nothing  # #foreign: another chat's table
        assert await here.here(foreign, WHERE) is None and await here.here(boards[0].table_id or 0, WHERE)
        only = await here.pick(ELSEWHERE, "")  # the other chat has its one ordinary table
        assert only.table is not None and only.table.table.id == foreign and only.table.board is None
    finally:
        await services.stop()
        await store.close()
