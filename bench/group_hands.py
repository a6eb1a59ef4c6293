"""Hands in the group against hands in the DM: the same 3-player Carnival deal and Machiavelli turn cycle played
(1) from the DMs, as before; (2) from the group, each player pressing "🂠 My hand" once and then playing on the
hand shown to them alone there; (3) from the group with the bot an administrator (the hand comes unasked).
Telegram's limits on (the fake's, which count an ephemeral message like any message in that group), the bot
paced as in production; ``--scale K`` runs both K times faster (the times printed are then K times shorter
than Telegram's would be). Prints per mode: presses made in a DM, chat switches per move, message calls per
move (and those in the group), press -> own hand redrawn, -> the next player's live hand, -> the table
message updated (p50/p99), the outbox's group lag and the 429s.

    python3 bench/group_hands.py             # real pacing: about 6 minutes
    python3 bench/group_hands.py --scale 5   # five times faster
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

from tests.bot.group_driver import drive, line, numbers, show_hands  # noqa: E402
from tests.bot.harness import find, open_table_in, running_bot, settle, telegram_pacing  # noqa: E402
from tests.bot.helpers import replay_log  # noqa: E402
from tests.fakebot.ratelimit import RateLimits  # noqa: E402
from tests.fakebot.server import FakeTelegram  # noqa: E402


async def one(game: str, mode: str, scale: float, seed: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="kozyr-group-hands-") as tmp:
        db = Path(tmp) / "k.sqlite3"
        async with FakeTelegram(limits=RateLimits(), time_scale=scale) as fake, \
                running_bot(fake, db, **telegram_pacing(scale)) as app:
            users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cat")]
            group = fake.group(f"{game} {mode}", members=users, creator=users[0], bot_admin=mode == "admin")
            options = "quarters=1" if game == "carnival" else ""
            await open_table_in(fake, app, game, users, options=options, group=group)
            await settle(fake, app, timeout=300)
            app.outbox.group_lags.clear()
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
            run = await drive(fake, group, users, until, random.Random(seed), "dm" if mode == "dm" else "group",
                              timeout=600)
            await settle(fake, app, timeout=300)
            return numbers(fake, app, group, started, run)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="the fake's limits and the bot's pacing, K x faster")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON too")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    for game in ("carnival", "machiavelli"):
        for mode in ("dm", "group", "admin"):
            measured = await one(game, mode, args.scale, args.seed)
            results[f"{game}/{mode}"] = measured
            print(line(f"{game:11} {mode:5} (limits x{args.scale:g})", measured), flush=True)
    if args.json:
        print(json.dumps(results, indent=1))


if __name__ == "__main__":
    asyncio.run(main())
