"""The table app: page weight, first render on localhost, and a move reaching every open app.

Run from the repository root: ``nice -n 10 python bench/webapp.py [--moves 60] [--apps 3] [--renders 10]``.

What runs: the real bot (``bot.app.App`` with the table app on, SQLite in a temp dir) against the fake
Bot API of ``tests/fakebot``; a 4-player Oh Hell table (7 cards a deal) opened through the bot.

- **Page weight**: the bytes of ``bot/webapp/static`` (HTML + CSS + JS, uncompressed). Target <= 150 KB.
- **First render**: headless Chromium (Debian's ``chromium``, through Playwright) opens the page as
  Telegram would (initData in the hash, a fresh browser context each time, Telegram's script blocked)
  and the clock runs from ``goto`` until the table is drawn (``body[data-version]``); the page's own
  ``performance.now()`` at its first drawing (from navigation start) is printed too. Target <= 1 s.
  Skipped, saying so, without chromium or Playwright.
- **Push**: every seat has ``--apps`` open apps (SSE streams over HTTP) and two spectators watch; the
  player to act posts a move through the API; the clock runs from the POST until each open app has
  the new version. p50/p95/max over every (move, app) pair. Target: p95 <= 500 ms (one worker).

The process also runs the fake Bot API and the outbox, so the figures are pessimistic. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp  # noqa: E402

from bot.webapp.server import STATIC  # noqa: E402
from tests.bot.browser import PHONE, chromium, missing, page_url  # noqa: E402
from tests.bot.harness import open_table_in, running_bot, settle  # noqa: E402
from tests.bot.webapp_helpers import APP_SETTINGS, AppClient, init_data, open_stream, table_token  # noqa: E402
from tests.fakebot.ratelimit import RateLimits  # noqa: E402
from tests.fakebot.server import FakeTelegram  # noqa: E402

STATIC_DIR = Path(__file__).resolve().parents[1] / "bot" / "webapp" / "static"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "p50_ms": round(percentile(values, 0.5) * 1000, 1),
            "p95_ms": round(percentile(values, 0.95) * 1000, 1), "max_ms": round(max(values) * 1000, 1)}


async def first_render(fake: FakeTelegram, app: Any, user: Any, table_id: int, runs: int) -> dict[str, Any]:
    why = missing()
    if why is not None:
        return {"skipped": why}
    times, own = [], []
    async with chromium() as browser:
        for _ in range(runs + 1):  # the first run warms the browser up and is not counted
            context = await browser.new_context(viewport=PHONE)
            page = await context.new_page()
            await page.route("https://telegram.org/**", lambda route: route.abort())  # no internet here
            start = time.perf_counter()
            await page.goto(page_url(fake, app, user, table_id))
            await page.wait_for_selector("body[data-version]")
            times.append(time.perf_counter() - start)
            own.append(float(await page.get_attribute("body", "data-rendered") or 0) / 1000)
            await context.close()
    return {"goto_to_table": summary(times[1:]), "navigation_start_to_table": summary(own[1:])}


async def push(fake: FakeTelegram, app: Any, users: list[Any], table_id: int, moves: int, apps: int) -> dict[str, Any]:
    token = table_token(app, table_id)
    async with aiohttp.ClientSession() as http:
        players = [AppClient(http, app, init_data(fake.token, u)) for u in users]
        watchers: list[tuple[AppClient, Any]] = []
        for user in [*users, fake.user(first_name="Eve"), fake.user(first_name="Zed")]:
            for _ in range(apps if user in users else 1):
                client = AppClient(http, app, init_data(fake.token, user))
                assert (await client.open(token))[0] == 200
                watchers.append((client, await open_stream(client)))
        for client in players:
            assert (await client.open(token))[0] == 200
        for _, stream in watchers:
            await stream.next_table()
        delays: list[float] = []
        played = 0
        while played < moves:
            status, body = await players[0].state()
            table = body["table"]
            if table["status"] != "playing":
                break
            seat = table["to_act"]
            _, mine = await players[seat].state()
            actions = mine["table"]["actions"]
            if not actions:
                await asyncio.sleep(0.01)
                continue
            version = mine["table"]["version"]
            start = time.perf_counter()
            waits = [asyncio.create_task(stream.table_at(version + 1)) for _, stream in watchers]
            status, answer = await players[seat].post("move", {"version": version, "action": actions[0]["action"],
                                                               "request": uuid.uuid4().hex})
            if status != 200:
                for w in waits:
                    w.cancel()
                continue
            for w in waits:
                await w
                delays.append(time.perf_counter() - start)
            played += 1
        for _, stream in watchers:
            stream.response.close()
    return {"moves": played, "open_apps": len(watchers), **summary(delays)}


async def main(args: argparse.Namespace) -> dict[str, Any]:
    weight = {name: (STATIC_DIR / name).stat().st_size for name in STATIC}
    result: dict[str, Any] = {"page_bytes": sum(weight.values()), "page_files": weight}
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeTelegram(limits=RateLimits.off()) as fake:
            users = [fake.user(first_name=n, language_code="en") for n in ("Ann", "Bob", "Cy", "Dee")]
            async with running_bot(fake, Path(tmp) / "w.sqlite3", **APP_SETTINGS, KOZYR_AI_DELAY=0.0,
                                   KOZYR_PER_CHAT_INTERVAL=0.0, KOZYR_GROUP_PER_MINUTE=100000,
                                   KOZYR_GLOBAL_PER_SECOND=100000) as app:
                await open_table_in(fake, app, "oh_hell", users, options="hand_sizes=7")
                await settle(fake, app)
                async with app.store.read() as tx:
                    table_id = (await tx.playing_tables())[0].id
                result["first_render"] = await first_render(fake, app, users[0], table_id, args.renders)
                result["push"] = await push(fake, app, users, table_id, args.moves, args.apps)
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--apps", type=int, default=3, help="open apps per seated player")
    parser.add_argument("--renders", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out = asyncio.run(main(args))
    if args.json:
        print(json.dumps(out))
    else:
        print(f"page weight: {out['page_bytes'] / 1024:.1f} KB (HTML+CSS+JS, uncompressed; target <= 150 KB)")
        print(f"first render (localhost, headless chromium): {out['first_render']} (target <= 1 s)")
        print(f"a move reaching every open app: {out['push']} (target p95 <= 500 ms)")
