"""Hands in the group against hands in the DM, under both readings of Telegram's silence on whether an ephemeral
message counts against its group's 20 messages a minute.

The same 3-player Carnival deal and Machiavelli turn cycle played (1) from the DMs; (2) from the group, each
player pressing "🂠 My hand" once and then playing on the hand shown to them alone there; (3) from the group with
the bot an administrator (the hand comes unasked). Each group mode runs twice: "counts" (the fake counts every
ephemeral message against the group, the bot queues them behind the group's table edit: KOZYR_EPHEMERAL_COUNTS=1,
the default) and "free" (neither does: each player's hands have their own pace and queue). Two paces: "loop",
each player presses the moment their hand is live (the worst case for the limits), and "human", each thinks
6-10 s (at scale 1) over a new live hand first, turn pings on (KOZYR_PING_AFTER scaled too).

Telegram's limits on (the fake's), the bot paced as in production; ``--scale K`` runs both K times faster, and
every time printed is multiplied back by K, so it reads as Telegram's seconds. Per row: moves; message calls per
move (all, and those addressed to the group, ephemeral ones included); press -> own hand redrawn, -> the next
player's live hand, -> the table message (p50); the outbox's group lag (commit -> table/news delivered in the
group) p50/max, its hands' wait (commit -> eph delivered) p50/max, hands sent ahead of the table for having
waited (aged) and the fake's 429s.

    python3 bench/group_hands.py --scale 5                 # every row: about 6 minutes
    python3 bench/group_hands.py --scale 5 --pace human    # the human pace rows only
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bot.group_driver import drive, numbers, show_hands  # noqa: E402
from tests.bot.harness import find, open_table_in, running_bot, settle, telegram_pacing  # noqa: E402
from tests.bot.helpers import replay_log  # noqa: E402
from tests.fakebot.ratelimit import RateLimits  # noqa: E402
from tests.fakebot.server import FakeTelegram  # noqa: E402

THINK = (6.0, 10.0)  # seconds a human looks at a new live hand before pressing (scale 1)
PING_AFTER = 20.0  # the bot's default KOZYR_PING_AFTER (scale 1)
TIMES = ("own_p50", "next_p50", "table_p50")  # milliseconds, scaled back
LAGS = ("lag_p50", "lag_max", "hand_p50", "hand_max")  # seconds, scaled back


async def one(game: str, mode: str, reading: str, pace: str, scale: float, seed: int) -> dict[str, float]:
    counts = reading != "free"
    settings: dict[str, Any] = {**telegram_pacing(scale), "KOZYR_EPHEMERAL_COUNTS": "1" if counts else "0"}
    if pace == "human":
        settings["KOZYR_PING_AFTER"] = PING_AFTER / scale
    with tempfile.TemporaryDirectory(prefix="kozyr-group-hands-") as tmp:
        db = Path(tmp) / "k.sqlite3"
        async with FakeTelegram(limits=RateLimits(ephemeral_counts=counts), time_scale=scale) as fake, \
                running_bot(fake, db, **settings) as app:
            users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
            group = fake.group(f"{game} {mode}", members=users, creator=users[0], bot_admin=mode == "admin")
            options = "quarters=1" if game == "carnival" else ""
            await open_table_in(fake, app, game, users, options=options, group=group)
            await settle(fake, app, timeout=300)
            app.outbox.group_lags.clear()
            app.outbox.hand_lags.clear()
            app.outbox.hands_aged = 0
            started = len(fake.calls)
            if mode == "group":
                await show_hands(fake, group, users)
            if game == "carnival":
                def until() -> bool:
                    return find(group, "deal 2/") is not None
            else:
                first = len(replay_log(db)[1])

                def until() -> bool:  # each seat has moved once
                    return len({seat for seat, _ in replay_log(db)[1][first:]}) >= 3
            think = (THINK[0] / scale, THINK[1] / scale) if pace == "human" else None
            run = await drive(fake, group, users, until, random.Random(seed), "dm" if mode == "dm" else "group",
                              timeout=600, think=think)
            await settle(fake, app, timeout=300)
            measured = numbers(fake, app, group, started, run)
    for key in (*TIMES, *LAGS):
        measured[key] *= scale  # Telegram's time
    return measured


HEADER = (f"{'game':11} {'pace':5} {'reading':7} {'mode':5} | {'moves':>5} {'all/mv':>6} {'grp/mv':>6} | "
          f"{'own p50':>8} {'next p50':>8} {'table p50':>9} | {'lag p50':>7} {'max':>6} | {'hand p50':>8} {'max':>6} "
          f"{'aged':>4} | {'429':>3}")


def row(game: str, pace: str, reading: str, mode: str, n: dict[str, float]) -> str:
    return (f"{game:11} {pace:5} {reading:7} {mode:5} | {n['moves']:5.0f} {n['calls_per_move']:6.2f} "
            f"{n['group_calls_per_move']:6.2f} | "
            f"{n['own_p50'] / 1000:7.2f}s {n['next_p50'] / 1000:7.2f}s {n['table_p50'] / 1000:8.2f}s | "
            f"{n['lag_p50']:6.2f}s {n['lag_max']:5.1f}s | {n['hand_p50']:7.2f}s {n['hand_max']:5.1f}s "
            f"{n['hands_aged']:4.0f} | {n['429s']:3.0f}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="the fake's limits and the bot's pacing, K x faster")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--games", default="carnival,machiavelli")
    parser.add_argument("--pace", default="loop,human", help="loop, human or both")
    parser.add_argument("--human-games", default="carnival", help="the games played at the human pace")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON too")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    print(HEADER, flush=True)
    for pace in args.pace.split(","):
        games = args.games.split(",") if pace == "loop" else args.human_games.split(",")
        for game in games:
            for reading, mode in (("-", "dm"), ("counts", "group"), ("free", "group"),
                                  ("counts", "admin"), ("free", "admin")):
                measured = await one(game, mode, reading, pace, args.scale, args.seed)
                results[f"{game}/{pace}/{reading}/{mode}"] = measured
                print(row(game, pace, reading, mode, measured), flush=True)
    if args.json:
        print(json.dumps(results, indent=1))


if __name__ == "__main__":
    asyncio.run(main())
