"""Tournaments and vacations in the store, alike on SQLite and PostgreSQL: what a restart reads back is
what was written (the pairing of a round is rebuilt from it)."""

from __future__ import annotations

from bot.store.rows import BoardRow, EntrantRow, TournamentRow


async def test_a_tournament_its_entrants_boards_and_results_read_back(store):
    row = TournamentRow(0, -7, 3, "carnival", {"quarters": 1}, "swiss", {"size": 3, "rounds": 3}, "registration",
                        11, 12345, closes_at=50.0, created_at=10.0)
    async with store.transaction() as tx:
        tid = await tx.create_tournament(row)
        assert tid == row.id > 0
        assert await tx.add_entrant(tid, EntrantRow(11, "Ann", 2.5))
        assert not await tx.add_entrant(tid, EntrantRow(11, "Ann again"))
        assert await tx.add_entrant(tid, EntrantRow(12, "Bob", 0.0, joined_round=1))
        assert await tx.add_entrant(tid, EntrantRow(13, "Cid"))
        assert await tx.remove_entrant(tid, 13) and not await tx.remove_entrant(tid, 13)
        row.status, row.round, row.settings = "running", 1, {"size": 3, "rounds": 3, "x": [1]}
        await tx.save_tournament(row)
        await tx.add_board(BoardRow(tid, 0, 0, "table", [11, 12]))
        await tx.add_board(BoardRow(tid, 0, 1, "bye", [14]))
        await tx.set_board_table(tid, 0, 0, 99)
        assert await tx.add_board_results(tid, 0, 0, {11: 2, 12: 1})
        assert not await tx.add_board_results(tid, 0, 0, {11: 1, 12: 2})  # told once
        assert await tx.withdraw_entrant(tid, 12, 2) and not await tx.withdraw_entrant(tid, 12, 3)
    async with store.read() as tx:
        assert await tx.tournament(tid) == row
        assert await tx.open_tournament(-7, 3) == row and await tx.open_tournament(-7, 0) is None
        assert [t.id for t in await tx.live_tournaments()] == [tid]
        assert await tx.entrants(tid) == [EntrantRow(11, "Ann", 2.5, 0, None), EntrantRow(12, "Bob", 0.0, 1, 2)]
        assert await tx.boards(tid) == [BoardRow(tid, 0, 0, "table", [11, 12], 99), BoardRow(tid, 0, 1, "bye", [14])]
        assert await tx.board_of_table(99) == BoardRow(tid, 0, 0, "table", [11, 12], 99)
        assert await tx.board_of_table(98) is None
        assert await tx.tournament_results(tid) == [(0, 0, 12, 1), (0, 0, 11, 2)]


async def test_vacation_days_add_up_per_year_and_away_is_one_row(store):
    async with store.transaction() as tx:
        assert await tx.vacation_days(11, 2026) == 0.0
        await tx.add_vacation_days(11, 2026, 2.0)
        await tx.add_vacation_days(11, 2026, 1.5)
        await tx.add_vacation_days(11, 2027, 1.0)
        await tx.set_away(11, 100.0, 200.0)
        await tx.set_away(11, 150.0, 300.0)
    async with store.read() as tx:
        assert await tx.vacation_days(11, 2026) == 3.5 and await tx.vacation_days(11, 2027) == 1.0
        assert await tx.away(11) == (150.0, 300.0)
    async with store.transaction() as tx:
        await tx.clear_away(11)
        assert await tx.away(11) is None


async def test_a_tournament_moves_with_its_group_to_the_supergroup(store):
    row = TournamentRow(0, -7, 0, "carnival", {}, "swiss", {}, "running", 11, 1, created_at=1.0)
    async with store.transaction() as tx:
        await tx.ensure_chat(-7, "Cup", "en")
        await tx.create_tournament(row)
        await tx.migrate_chat(-7, -1007)
    async with store.read() as tx:
        assert await tx.open_tournament(-7, 0) is None
        moved = await tx.open_tournament(-1007, 0)
        assert moved is not None and moved.id == row.id
