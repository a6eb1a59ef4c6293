"""Recompute from the log equals the incremental ratings, exactly (floats compared with ==), including
after exclusions and removed matches; the CLI checks and rebuilds a database file."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

from bot.league import clock
from bot.league import store as db
from bot.league.matches import build, rate_stored
from bot.league.recompute import check, recompute
from bot.league.service import League, PlayerRef
from bot.services.types import Where
from bot.store.sqlite import SeatRow, Store, TableRow

ROOT = Path(__file__).resolve().parents[2]
GAMES = [("carnival", {}, (3, 6)), ("klaberjass", {}, (2, 2)), ("karusele", {"teams": True}, (4, 4)),
         ("oh_hell", {}, (3, 5)), ("variety", {}, (4, 4))]


async def add_matches(store: Store, rng: random.Random, count: int, start_table: int, chats: list[int],
                      when: float) -> None:
    """Random finished tables through the live path (build, store, rate in the same transaction)."""
    for i in range(count):
        game, options, (lo, hi) = rng.choice(GAMES)
        n = rng.randint(lo, hi)
        people = rng.sample(range(1, 13), n)
        seats = [SeatRow(s, None if rng.random() < 0.15 else people[s], f"P{people[s]}") for s in range(n)]
        scores = [rng.choice([0, 10, 10, 20, 30]) for _ in range(n)]  # many ties
        if game == "karusele":
            scores[2], scores[3] = scores[0], scores[1]  # partners share a total
        row = TableRow(start_table + i, rng.choice(chats), 0, game, "finished", 1, options, 1, 1, None, {})
        async with store.transaction() as tx:
            rule, _ = await db.config(tx, row.chat_id)
            match = build(row, seats, scores, 0, rule.key(when + i * 3600), when + i * 3600)
            await db.insert_match(tx, row.id, match, options, {})
            await rate_stored(tx, match)


async def snapshot(store: Store) -> tuple[list, list]:
    async with store.read() as tx:
        ratings = [tuple(r) for r in await tx._all("SELECT * FROM league_ratings ORDER BY chat_id, topic, season, "
                                                     "game, player")]
        seats = [tuple(r) for r in await tx._all("SELECT * FROM league_seats ORDER BY match_id, seat")]
    return ratings, seats


async def test_recompute_equals_incremental_through_exclusions_and_removals(tmp_path):
    rng = random.Random(17)
    store = await Store(tmp_path / "k.sqlite3").open()
    clock.set_source(lambda: 1794787200.0)
    try:
        await add_matches(store, rng, 150, 1, [-1, -2], 1793577600.0)  # from 2026-11-01 into December
        league = League(store, None, pictures=False)  # type: ignore[arg-type]  (these actions send nothing)
        where = Where(-1, 0, "Cards", "en")
        assert "excluded" in await league.exclude(where, 99, PlayerRef(user_id=3), "smurf account", True)
        async with store.read() as tx:
            mine = (await tx._one("SELECT id FROM league_matches WHERE chat_id = -1 ORDER BY id LIMIT 1 OFFSET 4"))[0]
            theirs = (await tx._one("SELECT id FROM league_matches WHERE chat_id = -2 LIMIT 1"))[0]
        assert "no match" in await league.remove(where, 99, theirs, "not ours")
        assert "removed" in await league.remove(where, 99, mine, "played with the wrong rules")
        await add_matches(store, rng, 100, 1000, [-1, -2], 1797000000.0)
        ratings, seats = await snapshot(store)
        assert len(ratings) > 100 and any(r[4] < 0 for r in ratings)  # AI players are rated too
        assert {r[2] for r in ratings} >= {"2026-11", "2026-12"}
        assert not any(r[4] == 3 and r[0] == -1 for r in ratings)  # the excluded player, in the chat that excluded
        assert any(r[4] == 3 and r[0] == -2 for r in ratings)  # ...but not in the other chat
        async with store.read() as tx:
            assert await check(tx) == []
        async with store.transaction() as tx:
            assert await recompute(tx) == 249
        assert await snapshot(store) == (ratings, seats)

        # A stored value off by one ulp is found.
        async with store.transaction() as tx:
            await tx.db.execute("UPDATE league_ratings SET mu = mu + 1e-12 WHERE rowid = 1")
        async with store.read() as tx:
            assert len(await check(tx)) == 1
    finally:
        clock.set_source(None)
        await store.close()


async def test_cli_checks_and_rebuilds(tmp_path):
    path = tmp_path / "k.sqlite3"
    store = await Store(path).open()
    try:
        await add_matches(store, random.Random(5), 40, 1, [-1], 1793577600.0)
        async with store.transaction() as tx:
            await tx.db.execute("UPDATE league_seats SET mu = 1.0 WHERE match_id = 3 AND seat = 0")
    finally:
        await store.close()

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "bot.league", "recompute", "--db", str(path), *args],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)

    bad = cli("--check")
    assert bad.returncode == 1 and "1 stored values differ" in bad.stdout
    fixed = cli()
    assert fixed.returncode == 0 and "recomputed 40 matches" in fixed.stdout
    good = cli("--check")
    assert good.returncode == 0 and "0 stored values differ" in good.stdout
    assert cli("--db-typo").returncode == 2  # argparse: a clear usage error


def test_bench_script_runs_tiny(capsys):
    """bench/league.py must keep working (a tiny run; the numbers themselves are the script's business)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("kozyr_bench_league", ROOT / "bench" / "league.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    result = bench.main(["--top-matches", "30", "--players", "8", "--runs", "4", "--recompute-matches", "60"])
    assert result["top"]["matches"] == 30 and result["top"]["recompute_diffs"] == 0
    assert result["top"]["players_rated"] >= 8  # the humans, plus AI seats now and then
    assert result["recompute"]["matches"] == 60 and result["recompute"]["diffs_after_recompute"] == 0
    out = capsys.readouterr().out
    assert "/top with 30 matches" in out and "recompute of 60 matches" in out
