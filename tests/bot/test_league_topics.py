"""Match recording from a real finished engine game: topics, teams, the stored game record, and what does
not count (a table that did not reach the end of the game)."""

from __future__ import annotations

import json

import pytest

from bot.league import clock, queries
from bot.league import store as db
from bot.league.matches import record_finished
from bot.league.seasons import SeasonRule
from bot.store.sqlite import SeatRow, Store
from engine.core import all_games, get_game
from engine.record import replay
from engine.selfplay import play_game

NOV_15 = 1794787200.0
SHORT = {"carnival": {"quarters": 1}, "oh_hell": {"hand_sizes": "2,1"}, "klaberjass": {"target": 150},
         "calabrasella": {"deals": 2}, "variety": {"deals": 2}, "karusele": {"target": 10},
         "pyanitsa": {"max_rounds": 10}}


async def finished_table(tx, chat_id: int, thread_id: int, game: str, options: dict, seed: int, seats: list[SeatRow],
                         stop_after: int | None = None):
    """A table row as the bot keeps it after a game (the actions logged), and the engine's final state."""
    final, actions = play_game(game, len(seats), seed, options=options)
    if stop_after is not None:  # an unfinished table: only the first moves were played
        state = get_game(game).new(len(seats), seed=seed, options=options)
        for seat, action in actions[:stop_after]:
            state.act(seat, action)
        final, actions = state, actions[:stop_after]
    table_id = await tx.create_table(chat_id, thread_id, game, 1, options, seed)
    await tx.set_seats(table_id, seats)
    for i, (seat, action) in enumerate(actions):
        await tx.append_action(table_id, i, seat, action)
    row = await tx.table(table_id)
    row.status = "finished" if final.over else "cancelled"
    await tx.save_table(row)
    return row, final


async def test_topics_teams_record_and_unfinished_tables(tmp_path):
    store = await Store(tmp_path / "k.sqlite3").open()
    clock.set_source(lambda: NOV_15)
    people = [SeatRow(0, 11, "Ann"), SeatRow(1, 12, "Bob"), SeatRow(2, 13, "Cid"), SeatRow(3, None, "🤖 Ada")]
    try:
        async with store.transaction() as tx:
            await db.set_config(tx, -5, SeasonRule("quarter"), per_topic=True)
            row, state = await finished_table(tx, -5, 42, "karusele", {"teams": True, "target": 10}, 7, people)
            match = await record_finished(tx, row, people, state)
            assert match is not None and match.topic == 42 and match.season == "2026-Q4"
            assert match.teams == [[0, 2], [1, 3]]
            assert await record_finished(tx, row, people, state) is None  # recorded once, whatever happens
            # Not reaching the end of the game: not a match, however far it got.
            row2, unfinished = await finished_table(tx, -5, 42, "karusele", {"target": 10}, 8, people, stop_after=30)
            assert not unfinished.over and await record_finished(tx, row2, people, unfinished) is None
            # Variety's partners change every deal: each deal's partnership is kept with the match.
            row3, variety = await finished_table(tx, -5, 42, "variety", {"deals": 3}, 9, people)
            assert await record_finished(tx, row3, people, variety) is not None
        async with store.read() as tx:
            stored = await tx._one("SELECT record, teams FROM league_matches WHERE table_id = ?", row.id)
            kept = await tx._one("SELECT teams, deal_teams FROM league_matches WHERE table_id = ?", row3.id)
            assert json.loads(kept["teams"]) == [[0], [1], [2], [3]]  # rated by each seat's total
            deals = json.loads(kept["deal_teams"])
            attackers = [d["attackers"] for d in variety.sheet()["deals"]]
            assert len(deals) == 3 and [sorted(d[0]) for d in deals] == [sorted(a) for a in attackers]
            assert all(sorted(d[0] + d[1]) == [0, 1, 2, 3] for d in deals)
            assert replay(json.loads(stored["record"])).scores() == state.scores()  # the game record, replayable
            in_topic = await queries.top(tx, -5, 42, "2026-Q4", "karusele", NOV_15)
            elsewhere = await queries.top(tx, -5, 0, "2026-Q4", "karusele", NOV_15)
            seats = await tx._all("SELECT player, team, place FROM league_seats WHERE match_id = "
                                  "(SELECT id FROM league_matches WHERE table_id = ?) ORDER BY seat", row.id)
        assert {r.player for r in in_topic} == {11, 12, 13, -11} and elsewhere == []
        # Partners share their side's place, and the winning side's players both count a win.
        assert seats[0]["place"] == seats[2]["place"] and seats[1]["place"] == seats[3]["place"]
        winners = {r.player for r in in_topic if r.wins == 1}
        assert winners in ({11, 13}, {12, -11})
    finally:
        clock.set_source(None)
        await store.close()


async def test_a_failing_league_never_stops_a_game_from_finishing(tmp_path, caplog):
    store = await Store(tmp_path / "k.sqlite3").open()
    people = [SeatRow(0, 11, "Ann"), SeatRow(1, 12, "Bob")]
    try:
        async with store.transaction() as tx:
            await tx.db.execute("DROP TABLE league_seats")  # the league's part of the move will fail
            row, state = await finished_table(tx, -5, 0, "klaberjass", {"target": 150}, 3, people)
            assert await record_finished(tx, row, people, state) is None
            await tx.append_action(row.id, 10_000, 0, "after")  # the move's transaction goes on
        async with store.read() as tx:
            assert (await tx.table(row.id)).status == "finished"
            assert await tx._one("SELECT 1 FROM league_matches") is None  # nothing half-recorded
            assert await tx._one("SELECT 1 FROM actions WHERE idx = 10000") is not None
        assert "could not be recorded" in caplog.text
    finally:
        await store.close()


async def test_csv_export_is_this_leagues_only_and_spreadsheet_safe(tmp_path):
    import csv
    import io

    from bot.league.matches import build, rate_stored
    from bot.store.sqlite import TableRow

    store = await Store(tmp_path / "k.sqlite3").open()
    try:
        async with store.transaction() as tx:
            for table_id, chat in ((1, -5), (2, -6)):
                row = TableRow(table_id, chat, 0, "klaberjass", "finished", 1, {}, 1, 1, None, {})
                seats = [SeatRow(0, 11, '=HYPERLINK("http://x","Ann")'), SeatRow(1, 12, "Борис, \"Б\"\n2")]
                match = build(row, seats, [162, 90], 0, "2026-11", NOV_15)
                await db.insert_match(tx, table_id, match, {}, {"secret": "the deal"})
                await rate_stored(tx, match)
            data = await queries.export_csv(tx, -5, 0)
        text = data.decode("utf-8")
        assert text.startswith("\ufeff")  # spreadsheets then read Cyrillic right
        rows = list(csv.DictReader(io.StringIO(text[1:])))
        assert [r["table"] for r in rows] == ["1", "1"]  # the other chat's match is not in it
        assert rows[0]["name"] == "'=HYPERLINK(\"http://x\",\"Ann\")"  # a formula is neutralised
        assert rows[1]["name"] == "Борис, \"Б\"\n2" and rows[0]["place"] == "1" and rows[1]["place"] == "2"
        assert float(rows[0]["mu"]) > 25 > float(rows[1]["mu"]) and "the deal" not in text  # no game record
    finally:
        await store.close()


@pytest.mark.parametrize("game", [g.id for g in all_games()])
async def test_every_game_finishes_into_a_rated_match(tmp_path, game):
    """No game's end trips the league (its failures are caught and logged, so this is where they would show)."""
    spec = get_game(game)
    n = min(max(spec.min_players, 3), spec.max_players)
    people = [SeatRow(s, 100 + s, f"P{s}") for s in range(n)]
    store = await Store(tmp_path / "k.sqlite3").open()
    try:
        async with store.transaction() as tx:
            row, state = await finished_table(tx, -7, 0, game, SHORT.get(game, {}), 21, people)
            match = await record_finished(tx, row, people, state)
        assert match is not None and len(match.seats) == n
        assert [s.place for s in match.seats] == [1 + sum(o > m for o in state.scores()) for m in state.scores()]
        async with store.read() as tx:
            rated = await tx._all("SELECT player FROM league_ratings WHERE game = ?", game)
        assert sorted(r["player"] for r in rated) == [100 + s for s in range(n)]
    finally:
        await store.close()
