"""Two ``python -m bot`` workers behind one webhook address, on one PostgreSQL database with Redis limits,
against the fake Bot API with Telegram's limits (strict). Mid-game one worker is SIGKILLed right after a
press; the other one takes over what it had in hand, the game goes on, and nothing is lost or doubled:
every update Telegram sent is handled, the action log has no gap or repeat, no message is sent twice,
and Telegram never answered 429.

The test plays the load balancer: it takes updates from the fake and POSTs them, with the secret header,
to the workers in turn, passing over a worker that does not answer (as a proxy's health check would).
"""

from __future__ import annotations

import asyncio
import random

import aiohttp
import pytest

from tests.bot.harness import free_port, live_hand, play_buttons
from tests.bot.procs import BotProcess
from tests.fakebot.server import FakeTelegram
from tests.store.backends import drop_schema, need_postgres, need_redis
from tests.store.worker_process import SECRET, new_schema, spawn_worker

pytestmark = pytest.mark.slow


class Balancer:
    """Telegram's side of the webhook, with a round-robin proxy in front of the workers."""

    def __init__(self, fake: FakeTelegram, ports: list[int]) -> None:
        self.fake, self.ports, self.turn, self.posted = fake, ports, 0, 0
        self.task = asyncio.create_task(self._run())

    async def _post(self, http: aiohttp.ClientSession, update: dict) -> None:
        while True:
            port = self.ports[self.turn % len(self.ports)]
            self.turn += 1
            try:
                async with http.post(f"http://127.0.0.1:{port}/webhook", json=update,
                                     headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
                                     timeout=aiohttp.ClientTimeout(total=10)) as response:
                    if response.status == 200:
                        self.posted += 1
                        return
            except (aiohttp.ClientError, TimeoutError):
                pass
            await asyncio.sleep(0.05)

    async def _run(self) -> None:
        offset = None
        async with aiohttp.ClientSession() as http:
            while True:
                for update in await self.fake.updates.get(offset, 100, 1, None):
                    await self._post(http, update)
                    offset = update["update_id"] + 1

    async def stop(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


async def _db(url: str, sql: str) -> object:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        return await conn.fetchval(sql)
    finally:
        await conn.close()


async def caught_up(fake: FakeTelegram, url: str, timeout: float = 90) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        if not fake.updates.undelivered() and await _db(url, "SELECT COUNT(*) FROM inbox") == 0 and \
                await _db(url, "SELECT COUNT(*) FROM outbox WHERE status = 'pending'") == 0:
            return
        assert loop.time() < deadline, "the workers did not catch up"
        await asyncio.sleep(0.1)


async def test_two_webhook_workers_one_killed_mid_game_nothing_lost_or_doubled(fake, tmp_path):  # Telegram's limits
    need_postgres()
    need_redis()
    url, schema = await new_schema()
    workers: list[BotProcess] = []
    alice, bob, carol = (fake.user(first_name=n) for n in ("Alice", "Bob", "Carol"))
    group = fake.group("Cards", members=[alice, bob, carol], creator=alice)
    ports = [free_port(), free_port()]
    balancer = Balancer(fake, ports)
    try:
        for n, port in enumerate(ports):
            workers.append(await spawn_worker(fake, tmp_path, url, f"w{n}", port=port,
                                              KOZYR_PER_CHAT_INTERVAL="1.05", KOZYR_GROUP_PER_MINUTE="20",
                                              KOZYR_GLOBAL_PER_SECOND="30"))
        await fake.wait_until(lambda: len(fake.calls_of("setWebhook")) >= 2, timeout=120, what="two workers")
        for user in (alice, bob, carol):
            await user.start_bot()
        await alice.send(group, "/new carnival quarters=1")  # by hand: the bot is two other processes
        lobby = await fake.wait_for_message(group, lambda m: "Join" in " ".join(m.button_texts), timeout=60)
        await caught_up(fake, url)
        for user in (bob, carol):
            await user.press(lobby, "✋ Join")
            await caught_up(fake, url)
        await alice.press(lobby, "▶️ Start")
        rng = random.Random(5)
        presses = 0

        async def press_one() -> None:
            nonlocal presses
            try:
                found = await fake.wait_until(lambda: live_hand([alice, bob, carol]), timeout=60, what="a hand")
            except AssertionError as exc:  # what the workers said tells a stall from a crash
                raise AssertionError(f"{exc}\n" + "\n".join(w.output()[-3000:] for w in workers)) from None
            user, message = found
            button = rng.choice(play_buttons(message))
            await user.press(message, lambda b, d=button["callback_data"]: b.get("callback_data") == d)
            presses += 1

        for _ in range(4):
            await press_one()
            await caught_up(fake, url)
        before = await _db(url, "SELECT COUNT(*) FROM actions")
        await press_one()
        await asyncio.sleep(0.05)  # the press is on its way to (or in) a worker
        await workers[0].kill()
        balancer.ports = [ports[1]]
        for _ in range(4):
            await caught_up(fake, url)
            await press_one()
        await caught_up(fake, url)
        after = await _db(url, "SELECT COUNT(*) FROM actions")
    finally:
        await balancer.stop()
        for w in workers:
            await w.kill()
    logs = "\n".join(w.output()[-2000:] for w in workers)
    # nothing lost: every update Telegram sent was handled (its id is recorded), the game went on
    handled = await _db(url, "SELECT COUNT(*) FROM updates")
    assert handled == fake.updates.next_id - 1, logs
    assert after > before >= 4, logs
    idx = await _db(url, "SELECT array_agg(idx ORDER BY idx) FROM actions")
    assert list(idx) == list(range(len(idx)))
    # nothing doubled: no message sent twice in a row to a chat, every press answered once
    sends = [(c.params.get("chat_id"), c.params.get("text")) for c in fake.calls_of("sendMessage") if c.ok]
    assert not [a for a, b in zip(sends, sends[1:], strict=False) if a == b], sends
    assert not fake.unanswered_callbacks()
    assert fake.limiter.served_429 == 0 and not fake.errors, [(c.method, c.description) for c in fake.errors]
    await drop_schema(schema)
