"""Rummy Lay down benchmark: how long a Lay down press takes to answer, the proposal
picture queued, with about 90 cards on a Machiavelli table.

Run from the repository root: ``nice -n 10 python bench/rummy_lay.py [--positions 60] [--json]``.

What runs: the real bot (``bot.app.App``: the services, Outbox, the SQLite store in a temp dir, pictures on)
against the fake Bot API of ``tests/fakebot``. A 4-player Machiavelli table is opened through the bot;
then, per position, the table's state is replaced by a random mid-game position of
``engine.melds.positions.random_position`` (about 90 table cards; 1-6 cards added from the hand: half
feasible, a quarter barely feasible or not, a quarter random), the player's selection is made with the
toggle presses (``ToggleTurns.toggle(..., "on", i)``), and the clock runs around ``ToggleTurns.toggle(..., "lay")``
only (after two warm-up presses): checks, the solver, the proposal stored and its picture spec queued,
in one transaction up to its COMMIT. Drawing the picture happens later in the outbox and is not
counted (the answer does not wait for it). The process also runs the fake server and the outbox, so
the figures are pessimistic. Prints
p50/p90/p99/max in ms and the load average; asserts nothing. The target: p99 <= 300 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.services.types import Actor  # noqa: E402
from engine import melds  # noqa: E402
from engine.cards import sort_key  # noqa: E402
from engine.core import get_game  # noqa: E402
from engine.melds.positions import random_position  # noqa: E402
from engine.rummy.base import RummyState  # noqa: E402
from tests.bot.harness import running_bot, settle  # noqa: E402
from tests.fakebot.ratelimit import RateLimits  # noqa: E402
from tests.fakebot.server import FakeTelegram  # noqa: E402

WARMUP = 2


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def position_state(seed: int, rng: random.Random) -> tuple[RummyState, list[int]]:
    """A 4-player Machiavelli state with ~90 cards on the table; seat 0 to act holding the added cards
    and a few more; the rest of the pack in the other hands and the stock."""
    variant = melds.registered_variants()["machiavelli"]
    kind = rng.choice(["feasible", "feasible", "near", "random"])
    table, added = random_position(variant, rng, 90, rng.randint(1, 6), kind)
    state = get_game("machiavelli").new(4, seed=seed)
    assert isinstance(state, RummyState)
    rest = state.pack()
    for c in [x if x < 256 else 64 for m in table for x in m] + added:
        rest.remove(c)
    rng.shuffle(rest)
    extra, rest = rest[:6], rest[6:]
    state.table = [melds.normalise(variant, m) for m in table]
    state.hands = [sorted(added + extra, key=sort_key), sorted(rest[:3], key=sort_key),
                   sorted(rest[3:6], key=sort_key), sorted(rest[6:9], key=sort_key)]
    state.stock = rest[9:]
    state.turn = 0
    state._legal_cache = None
    return state, added


async def run(positions: int, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    times: list[float] = []
    outcomes = {"proposal": 0, "refused": 0}
    table_sizes: list[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeTelegram(limits=RateLimits.off()) as fake:
            ann = fake.user(first_name="Ann", language_code="en")
            group = fake.group("Bench", members=[ann], creator=ann)
            async with running_bot(fake, Path(tmp) / "b.sqlite3", KOZYR_PICTURES=True) as app:
                await ann.start_bot()
                await settle(fake, app)
                await ann.send(group, "/new machiavelli")
                lobby = await fake.wait_for_message(group, lambda m: bool(m.buttons), timeout=10)
                await settle(fake, app)
                for _ in range(3):
                    await ann.press(lobby, "🤖 Add AI")
                    await settle(fake, app)
                await ann.press(lobby, "▶️ Start")
                await settle(fake, app)
                assert app.services is not None
                core, toggles = app.services.core, app.services.toggles
                async with app.store.read() as tx:
                    last = await tx.last_table(group.id, 0)
                    assert last is not None
                    table_id = last.id
                actor = Actor(ann.id, "Ann", "en")
                for k in range(positions + WARMUP):
                    state, added = position_state(seed * 1000 + k, rng)
                    table_sizes.append(sum(len(m) for m in state.table))
                    async with core.lock(table_id), app.store.transaction() as tx:
                        row = await tx.table(table_id)
                        assert row is not None
                        row.state = state.to_json()
                        row.version += 1
                        version = row.version
                        await tx.save_table(row)
                    core.forget(table_id)
                    hand = state.hands[0]
                    taken: list[int] = []
                    for c in added:
                        i = next(j for j, h in enumerate(hand) if h == c and j not in taken)
                        taken.append(i)
                        await toggles.toggle(table_id, version, "on", i, actor, "en")
                    started = time.perf_counter()
                    answer = await toggles.toggle(table_id, version, "lay", 0, actor, "en")
                    if k < WARMUP:  # the first press pays one-time costs (imports, caches)
                        continue
                    times.append(1000 * (time.perf_counter() - started))
                    outcomes["proposal" if not answer.alert else "refused"] += 1
                    await settle(fake, app)
    return {
        "positions": positions, "table_cards_mean": round(statistics.mean(table_sizes), 1),
        "p50_ms": round(percentile(times, 0.5), 1), "p90_ms": round(percentile(times, 0.9), 1),
        "p99_ms": round(percentile(times, 0.99), 1), "max_ms": round(max(times), 1),
        "mean_ms": round(statistics.mean(times), 1), **outcomes, "loadavg": os.getloadavg(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(run(args.positions, args.seed))
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:>18}: {value}")


if __name__ == "__main__":
    main()
