"""The queries that moved into the store (bot/store/queries.py: the league, retention, the inbox, savepoints)
answer alike on SQLite and PostgreSQL; each answer is a plain value or a typed row, never a driver's row."""

from __future__ import annotations

import pytest


async def _match(tx, table_id: int, chat: int, season: str, at: float, places: tuple[int, int]) -> int:
    return await tx.insert_league_match(table_id, chat, 0, season, "carnival", at, {"quarters": 1}, [[0], [1]], [],
                                        {"game": "carnival"}, [(0, 11, "Ann", 0, 30, places[0]),
                                                               (1, 12, "Bob", 1, 10, places[1])])


async def test_league_config_exclusions_log_and_seasons(store):
    async with store.transaction() as tx:
        assert await tx.league_config(-1) is None
        await tx.set_league_config(-1, "days", 14, 86400.0, True)
        await tx.set_league_config(-1, "week", 7, 0.0, False)
        assert await tx.league_config(-1) == ("week", 7, 0.0, False)
        assert await tx.set_league_excluded(-1, 0, 11, True)
        assert not await tx.set_league_excluded(-1, 0, 11, True)  # already excluded: nothing changed
        assert await tx.league_excluded(-1, 0) == {11}
        assert await tx.all_league_excluded() == [(-1, 0, 11)]
        assert await tx.set_league_excluded(-1, 0, 11, False)
        assert await tx.league_excluded(-1, 0) == set()
        await tx.league_log(-1, 0, 5.0, 11, "season", "week")
        assert await tx.archive_season(-1, 0, "2026-01", 9.0)
        assert not await tx.archive_season(-1, 0, "2026-01", 9.0)


async def test_league_matches_ratings_and_what_people_read(store):
    async with store.transaction() as tx:
        await tx.upsert_user(11, "Ann", "Ann_K", "en")
        first = await _match(tx, 1, -1, "2026-01", 100.0, (1, 2))
        second = await _match(tx, 2, -1, "2026-01", 200.0, (2, 1))
        other = await _match(tx, 3, -2, "2026-01", 300.0, (1, 2))
        assert first < second < other
        assert await tx.has_league_match(1) and not await tx.has_league_match(99)
        rating = (-1, 0, "2026-01", "carnival", 11, "Ann", 26.0, 7.0, 2, 1, 5.0)
        await tx.write_league_ratings([rating, (-1, 0, "2026-01", "carnival", 12, "Bob", 24.0, 7.5, 2, 1, 1.5)])
        await tx.write_league_ratings([(*rating[:6], 27.0, 6.5, 2, 1, 7.5)])  # replaces Ann's row
        await tx.write_seat_ratings([(first, 0, 25.5, 8.0, 25.5, 8.0), (second, 0, 27.0, 6.5, None, None)])
    async with store.read() as tx:
        assert await tx.league_standing(-1, 0, "2026-01", "carnival", 11) == ("Ann", 27.0, 6.5, 2, 1)
        assert await tx.league_standing(-1, 0, "2026-01", "carnival", 13) is None
        assert await tx.league_top(-1, 0, "2026-01", "carnival", 10) == [(11, "Ann", 7.5, 2, 1), (12, "Bob", 1.5, 2, 1)]
        assert await tx.league_rating_at(-1, 0, "2026-01", "carnival", 11, 150.0) == (25.5, 8.0)
        assert await tx.league_rating_at(-1, 0, "2026-01", None, 11, 250.0) == (25.5, 8.0)  # overall: 2nd unset
        assert await tx.league_rating_at(-1, 0, "2026-01", "carnival", 11, 50.0) is None
        assert await tx.league_games_of(-1, 0, 11) == [("carnival", 2, 1, 1.5, 30)]
        assert await tx.league_rating(-1, 0, "2026-01", "carnival", 11) == (7.5, 2)
        assert await tx.league_history(-1, 0, "2026-01", "carnival", 11, 40) == [(27.0, 6.5), (25.5, 8.0)]
        assert await tx.league_meetings(-1, 0, 11, 12) == [("carnival", 1, 2), ("carnival", 2, 1)]
        export = await tx.league_export(-1, 0)
        assert [r[:2] for r in export] == [(first, 100.0), (first, 100.0), (second, 200.0), (second, 200.0)]
        assert export[0][7:] == (0, 11, "Ann", 0, 30, 1, 25.5, 8.0)
        assert await tx.league_open_seasons() == [(-2, 0, "2026-01"), (-1, 0, "2026-01")]
        assert await tx.league_seasons(-1, 0) == ["2026-01"]
        assert await tx.user_by_username("ann_k") == (11, "Ann")
        assert await tx.user_by_username("nobody") is None
        assert sorted(await tx.league_names(-1, 0)) == [(11, "Ann"), (12, "Bob")]
        recent = await tx.league_recent(-1, 0, 1)
        assert [(r["id"], r["game"], r["removed"]) for r in recent] == [(second, "carnival", 0)]
        assert sorted(recent[0]["who"].split(", ")) == ["Ann 30", "Bob 10"]
        assert sorted(await tx.league_ratings(-1)) == sorted([
            (-1, 0, "2026-01", "carnival", 11, "Ann", 27.0, 6.5, 2, 1, 7.5),
            (-1, 0, "2026-01", "carnival", 12, "Bob", 24.0, 7.5, 2, 1, 1.5)])
        assert (first, 0, 25.5, 8.0, 25.5, 8.0) in await tx.league_seat_ratings(-1)
        assert len(await tx.league_seat_ratings(None)) == 6
        seats = await tx.league_match_seats(-2)
        assert seats == [(other, -2, 0, "2026-01", "carnival", 300.0, "[[0],[1]]", 0, 0, 11, "Ann", 0, 30, 1),
                         (other, -2, 0, "2026-01", "carnival", 300.0, "[[0],[1]]", 0, 1, 12, "Bob", 1, 10, 2)]
    async with store.transaction() as tx:
        assert await tx.remove_league_match(-1, 0, second, "a test")
        assert not await tx.remove_league_match(-1, 0, second, "again")
        assert not await tx.remove_league_match(-2, 0, second, "another chat's match")
        assert await tx.league_games_of(-1, 0, 11) == [("carnival", 1, 1, 1.0, 30)]
        await tx.replace_league_ratings(-1, [(-1, 0, "2026-01", "carnival", 11, "Ann", 25.0, 8.0, 1, 1, 1.0)])
        assert await tx.league_top(-1, 0, "2026-01", "carnival", 10) == [(11, "Ann", 1.0, 1, 1)]
        await tx.replace_league_ratings(None, [])
        assert await tx.league_ratings(None) == []


async def test_a_savepoint_undoes_only_what_came_after_it(store):
    async with store.transaction() as tx:
        await tx.set_league_config(-1, "month", 30, 0.0, False)
        await tx.savepoint("part")
        await tx.set_league_config(-1, "week", 7, 0.0, True)
        await tx.rollback_to("part")
        await tx.release("part")
        await tx.ensure_chat(-1, "Cards", "en")
    async with store.read() as tx:
        assert await tx.league_config(-1) == ("month", 30, 0.0, False)
        assert await tx.chat_title(-1) == "Cards"


async def test_the_inbox_keeps_an_update_until_it_is_done(store):
    async with store.transaction() as tx:
        assert await tx.inbox_put(5, '{"update_id": 5}')
        assert not await tx.inbox_put(5, '{"update_id": 5}')  # waiting already
        assert await tx.inbox_depth() == 1
        if not hasattr(tx, "conn"):  # one process: everything waiting is its own (PostgreSQL: only orphans)
            assert await tx.inbox_waiting() == [(5, '{"update_id": 5}')]
        assert await tx.inbox_payload(5) == '{"update_id": 5}'  # as received: a press's handler reads it
        assert await tx.inbox_payload(6) is None
        await tx.inbox_done(5)
        assert await tx.inbox_payload(5) is None
        assert await tx.inbox_depth() == 0
        assert not await tx.inbox_put(5, '{"update_id": 5}')  # handled: refused
        assert await tx.seen_update(5)


async def test_retention_prunes_in_batches_and_keeps_the_newest(store):
    async with store.transaction() as tx:
        for update_id in range(1, 11):
            await tx.mark_update(update_id)
        assert await tx.latest_update() == 10
        assert await tx.prune_updates(4, 9, 3) == 3  # 1, 2, 3 and 10 are outside; three at a time
        assert await tx.prune_updates(4, 9, 3) == 1
        assert [u for u in range(1, 11) if await tx.seen_update(u)] == [4, 5, 6, 7, 8, 9]
        for n in range(4):
            await tx.enqueue(-1, "send", {"text": str(n)})
        while heads := await tx.heads():  # one chat: its rows come one at a time
            await tx.outbox_failed(heads[0].id, "gone")
        assert (await tx.outbox_counts()).get("failed") == 4
        assert await tx.prune_failed(3, 100) == 1
        assert await tx.prune_failed(3, 100) == 0
        table_id = await tx.create_table(-1, 0, "carnival", 1, {}, 1)
        table = await tx.table(table_id)
        table.status = "finished"
        await tx.save_table(table)
        for slot in (f"t{table_id}:1", f"h{table_id}:0:0", f"e{table_id}:2", f"rp{table_id}:1:4:1", f"lobby:{table_id}",
                     f"t{table_id}0:1", f"e{table_id}0:1"):
            await tx.set_slot(slot, -1, 1)
        assert await tx.ended_with_slots(table.updated_at + 1, 10) == [table_id]
        assert await tx.ended_with_slots(table.updated_at - 1, 10) == []
        assert await tx.prune_slots(table_id) == 5
        assert await tx.slot_message(f"t{table_id}0:1") == 1  # another table's slots stay
        assert await tx.slot_message(f"e{table_id}0:1") == 1
        assert await tx.ended_with_slots(table.updated_at + 1, 10) == []  # marked done
        assert (await tx.table(table_id)).ui.extra["slots_pruned"] == 1
        await tx.put_blob("doc-sent", b"%PDF")
        await tx.put_blob("doc-queued", b"%PDF")
        await tx.enqueue(-1, "document", {"blob": "doc-queued"})
        for n in range(3):
            await tx.put_blob(f"pic{n}", b"")
        assert await tx.prune_documents(100) == 1
        assert await tx.blob("doc-queued") == (b"%PDF", None)
        assert await tx.prune_file_ids(2, 100) == 1
        with pytest.raises(KeyError):
            await tx.blob("pic0")
        assert await tx.blob("pic2") == (b"", None)
        assert await tx.table_counts() == {"finished": 1}
