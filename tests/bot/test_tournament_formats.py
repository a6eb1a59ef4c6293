"""Round robin and knockout tournaments through the services on a fake clock: every seat misses its
deadline, so the AI plays the tables to their end (today's clock rules, one strike), and the tournament
moves on by itself. Also /tournament's input checks and the standings picture."""

from __future__ import annotations

import asyncio
from itertools import combinations

import pytest

from bot.app import Services, build_services
from bot.render.tournament import render_tournament
from bot.services.ai_seats import AiSeats
from bot.services.deadlines import FakeClock
from bot.services.outbox import Outbox, RateLimiter
from bot.services.types import Actor, Where
from bot.store.sqlite import Store
from bot.tournaments.settings import duration, parse
from bot.tournaments.standings import place_points
from tests.bot.harness import settle
from tests.bot.test_clocks import T0
from tests.fakebot.ratelimit import RateLimits

GROUP = -1002
WHERE = Where(GROUP, 0, "Cup", "en")


async def _services(path) -> tuple[Store, Services, FakeClock]:
    clock = FakeClock(T0)
    store = await Store(path).open()
    services = build_services(store, Outbox(store, None, RateLimiter(0, 1, 1)), "kozyr_test_bot",  # type: ignore[arg-type]
                              ai_delay=0.0, clock=clock, ai=AiSeats("easy", 2.0, worker="thread"))
    async with store.transaction() as tx:
        await tx.ensure_chat(GROUP, "Cup", "en")
    return store, services, clock


async def _run_out(store: Store, services: Services, clock: FakeClock, tid: int, limit: int = 400) -> None:
    """Advance the clock deadline by deadline until the tournament is over."""
    assert services.clocks is not None
    for _ in range(limit):
        for _ in range(1000):
            if not services.play.ai_busy() and not services.tournaments.busy():
                break
            await asyncio.sleep(0.005)
        async with store.read() as tx:
            row = await tx.tournament(tid)
            nxt = await tx.next_due()
        assert row is not None
        if row.status == "finished":
            return
        if nxt is None:
            await services.tournaments.tick()
            continue
        clock.advance(max(0.0, nxt - clock.now()))
        await services.clocks.scheduler.run_due()
    raise AssertionError("the tournament did not finish")


async def _enter(services: Services, tid: int, players: list[Actor]) -> None:
    for p in players:
        assert (await services.tournaments.join(tid, p, "en")).text == "You are in the tournament."


async def test_oh_hell_round_robin_for_six_in_threes_meets_the_balance_and_finishes(tmp_path):
    store, services, clock = await _services(tmp_path / "k.sqlite3")
    people = [Actor(100 + i, f"P{i}", "en") for i in range(6)]
    try:
        await services.tournaments.open(WHERE, people[0], ["oh_hell", "format=robin", "size=3", "clock=1h",
                                                           "hand_sizes=2,1", "withdraw=off"])
        row = await services.tournaments.here(WHERE)
        assert row is not None and row.format == "robin"
        await _enter(services, row.id, people[1:])
        assert (await services.tournaments.join(row.id, people[1], "en")).alert  # once
        assert (await services.tournaments.begin(row.id, people[1], "en", False)).alert  # not the creator
        assert (await services.tournaments.begin(row.id, people[0], "en", False)).text == "The tournament begins!"
        async with store.read() as tx:
            boards = await tx.boards(row.id)
            opened = await tx.tournament(row.id)
        assert opened is not None and opened.round == 5  # all rounds open at once
        assert len(boards) == 10 and all(b.table_id for b in boards)
        met = {pair: 0 for pair in combinations(range(100, 106), 2)}
        for b in boards:
            for pair in combinations(sorted(b.players), 2):
                met[pair] += 1
        assert sorted(met.values()) == [1] * 5 + [2] * 5 + [3] * 5  # 1–3 times, 5 pairs 3 times
        await _run_out(store, services, clock, row.id)
        async with store.read() as tx:
            results = await tx.tournament_results(row.id)
            entrants = await tx.entrants(row.id)
        assert len(results) == 30 and all(e.withdrawn is None for e in entrants)
    finally:
        await services.stop()
        await store.close()


async def test_knockout_for_nine_goes_through_to_a_final_table(tmp_path):
    store, services, clock = await _services(tmp_path / "k.sqlite3")
    people = [Actor(200 + i, f"K{i}", "en") for i in range(9)]
    try:
        await services.tournaments.open(WHERE, people[0], ["carnival", "format=knockout", "size=3", "clock=1h",
                                                           "withdraw=off", "quarters=1"])
        row = await services.tournaments.here(WHERE)
        assert row is not None
        await _enter(services, row.id, people[1:])
        await services.tournaments.begin(row.id, people[0], "en", False)
        await _run_out(store, services, clock, row.id)
        async with store.read() as tx:
            boards = await tx.boards(row.id)
            results = await tx.tournament_results(row.id)
            final = await tx.tournament(row.id)
        assert final is not None and final.status == "finished" and final.round == 2
        assert [(b.round, len(b.players)) for b in boards] == [(0, 3), (0, 3), (0, 3), (1, 3)]
        winners = {p for rnd, _, p, place in results if rnd == 0 and place == 1}
        assert set(boards[-1].players) <= winners | {p for rnd, _, p, place in results if rnd == 0}
        assert len(set(boards[-1].players)) == 3
        matches = await services.league.matches_text(WHERE)  # the final ranking reached the league
        assert "Tournaments:" in matches and "🏆" in matches and "Carnival: 1. K" in matches
    finally:
        await services.stop()
        await store.close()


async def test_opening_a_tournament_checks_its_settings(tmp_path):
    store, services, _ = await _services(tmp_path / "k.sqlite3")
    ann = Actor(1, "Ann", "en")
    try:
        await services.tournaments.open(WHERE, ann, ["carnival", "size=9"])
        await services.tournaments.open(WHERE, ann, ["nosuchgame"])
        await services.tournaments.open(WHERE, ann, ["carnival", "format=league"])
        await services.tournaments.open(WHERE, ann, ["karusele", "size=3", "teams=true"])  # the game exists
        assert await services.tournaments.here(WHERE) is None
        await services.tournaments.open(WHERE, ann, ["carnival", "rounds=2"])
        await services.tournaments.open(WHERE, ann, ["carnival"])
        async with store.read() as tx:
            said = [r["payload"] for r in await tx._all("SELECT payload FROM outbox WHERE chat_id = ?", GROUP)]
        text = "\n".join(said)
        assert "this game seats 3 to 6 players" in text and text.count("I don't know the game") == 1
        assert "teams (2 v 2) needs exactly 4 players" in text
        assert "format=swiss, format=robin or format=knockout" in text and "There is already a tournament" in text
        row = await services.tournaments.here(WHERE)
        assert row is not None
        assert (await services.tournaments.begin(row.id, ann, "en", False)).alert  # one entrant: too few
    finally:
        await services.stop()
        await store.close()


def test_settings_parse_defaults_and_errors() -> None:
    fmt, s, rest = parse({"quarters": "1"}, (3, 6), "solo", 86400.0)
    assert (fmt, s.size, s.rounds, s.points, s.bye, s.per_move, rest) == ("swiss", 3, 3, [2.0, 1.0, 0.0], 1.0,
                                                                           86400.0, {"quarters": "1"})
    _, s, _ = parse({"points": "3,1,0", "bye": "1.5", "clock": "2h", "register": "30m"}, (3, 6), "solo", 1.0)
    assert (s.points, s.bye, s.per_move, s.register) == ([3.0, 1.0, 0.0], 1.5, 7200.0, 1800.0)
    _, s, _ = parse({"size": "4"}, (4, 4), "teams", 1.0)
    assert s.points == [2.0, 0.0]
    assert duration("90s") == 90.0
    for bad in ({"size": "x"}, {"rounds": "0"}, {"clock": "soon"}, {"withdraw": "maybe"}, {"points": "a"}):
        with pytest.raises(ValueError):
            parse(bad, (3, 6), "solo", 1.0)


def test_the_standings_picture_draws_every_row() -> None:
    spec = {"kind": "tournament", "title": "Final standings — Carnival", "subtitle": "Swiss",
            "labels": ["#", "Player", "Points", "Opp.", "Played", "Byes"], "footer": "✖ withdrawn",
            "rows": [{"rank": i + 1, "name": name, "points": "4", "opponents": "7", "played": 3, "byes": 0,
                      "out": name == "Ivy"} for i, name in enumerate(["Ann", "Борис", "Ivy"])]}
    png = render_tournament(spec)
    assert png.startswith(b"\x89PNG")
    from bot.render.tournament import layout_tournament
    names = [d.text for d in layout_tournament(spec).texts if d.kind == "name"]
    assert names == ["Ann", "Борис", "Ivy ✖"]


async def test_registration_closes_by_itself_and_a_late_joiner_gets_half_byes(tmp_path):
    store, services, clock = await _services(tmp_path / "k.sqlite3")
    people = [Actor(300 + i, f"S{i}", "en") for i in range(7)]
    try:
        # too few when the window closes: off
        await services.tournaments.open(WHERE, people[0], ["carnival", "register=1m", "quarters=1"])
        first = await services.tournaments.here(WHERE)
        assert first is not None
        clock.advance(61)
        await services.tournaments.tick()
        async with store.read() as tx:
            off = await tx.tournament(first.id)
        assert off is not None and off.status == "cancelled"
        # enough: the window's end opens round 1 (Swiss, 5 rounds, tables of three: 6 play, no bye)
        await services.tournaments.open(WHERE, people[0], ["carnival", "register=1m", "rounds=5", "quarters=1",
                                                           "withdraw=off"])
        row = await services.tournaments.here(WHERE)
        assert row is not None and row.id != first.id
        await _enter(services, row.id, people[1:6])
        clock.advance(61)
        await services.tournaments.tick()
        async with store.read() as tx:
            running = await tx.tournament(row.id)
            boards = await tx.boards(row.id)
        assert running is not None and running.status == "running" and running.round == 1
        assert [len(b.players) for b in boards] == [3, 3]
        # a late joiner, while fewer than half the rounds have started
        late = await services.tournaments.join(row.id, people[6], "en")
        assert late.text == "You are in the tournament."
        await _run_out(store, services, clock, row.id)
        async with store.read() as tx:
            entrants = {e.user_id: e for e in await tx.entrants(row.id)}
            boards = await tx.boards(row.id)
            done = await tx.tournament(row.id)
        assert entrants[306].joined_round == 1 and done is not None and done.round == 5
        byes = [p for b in boards if b.kind == "bye" for p in b.players]
        assert len(byes) == 4 and len(set(byes)) == 4  # 7 players from round 2: one bye a round, never twice
        async with store.read() as tx:
            standings = await services.tournaments._standings(tx, done)  # noqa: SLF001
            results = await tx.tournament_results(row.id)
        late_row = next(s for s in standings if s.id == 306)
        assert late_row.played + late_row.byes == 4  # rounds 2-5; round 1 counted as half a bye
        boards_of = {}
        for rnd, board, player, place in results:
            boards_of.setdefault((rnd, board), {})[player] = place
        earned = sum(place_points(places, (2.0, 1.0, 0.0)).get(306, 0.0) for places in boards_of.values())
        assert late_row.points == earned + late_row.byes * 1.0 + 0.5
    finally:
        await services.stop()
        await store.close()



@pytest.mark.fake(limits=RateLimits.loose())
async def test_in_a_forum_a_tournament_gets_a_topic_of_its_own_when_asked(fake, app):
    ann, bob = fake.user(first_name="Ann"), fake.user(first_name="Bob")
    forum = fake.group("Club", members=[bob], creator=ann, type="supergroup", is_forum=True, bot_admin=True)
    for user in (ann, bob):
        await user.start_bot()
    await settle(fake, app)
    await bob.send(forum, "/tournament carnival topic=on")  # not an admin: refused, no topic
    await settle(fake, app)
    assert "Only the chat's admins" in forum.messages()[-1].content
    await ann.send(forum, "/tournament carnival topic=on quarters=1")
    await settle(fake, app)
    assert [c.method for c in fake.calls].count("createForumTopic") == 1
    async with app.store.read() as tx:
        rows = await tx.live_tournaments()
    assert len(rows) == 1 and rows[0].thread_id > 0  # the new topic, not the General one
    assert "Tournament: Carnival" in forum.messages()[-1].content
