"""docker-compose.yml brought up for real: two bot workers behind nginx, PostgreSQL and Redis, playing the
start of a Carnival game against the fake Bot API (on the host) through the webhook.

Skipped, with the reason, where ``docker compose`` or a Docker engine is missing (as on the development
machines, which have a Docker client only).
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from tests.bot.harness import live_hand, play_buttons
from tests.store.test_workers_kill import SECRET, Balancer
from tests.test_docker import docker_works

ROOT = Path(__file__).resolve().parents[1]
PROJECT = "kozyr-compose-test"


def compose_works() -> str | None:
    reason = docker_works()
    if reason:
        return reason
    done = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True, timeout=60)
    return None if done.returncode == 0 else "no docker compose plugin"


@pytest.mark.slow
async def test_the_compose_stack_plays_through_the_webhook(fake):
    reason = compose_works()
    if reason:
        pytest.skip(f"Docker Compose not available ({reason}); the stack is not started here")
    await fake.stop()
    await fake.start(host="0.0.0.0")
    port = fake.base_url.rsplit(":", 1)[1]
    env = {**os.environ, "BOT_TOKEN": fake.token, "WEBHOOK_URL": "http://127.0.0.1:8080",
           "WEBHOOK_SECRET": SECRET, "TELEGRAM_API_URL": f"http://host.docker.internal:{port}"}
    compose = ["docker", "compose", "-p", PROJECT, "-f", str(ROOT / "docker-compose.yml")]
    subprocess.run([*compose, "up", "-d", "--build", "--wait"], check=True, env=env, timeout=1800)
    balancer = Balancer(fake, [8080])
    try:
        await fake.wait_until(lambda: len(fake.calls_of("setWebhook")) >= 2, timeout=300, what="two workers")
        alice, bob, carol = (fake.user(first_name=n) for n in ("Alice", "Bob", "Carol"))
        group = fake.group("Cards", members=[alice, bob, carol], creator=alice)
        for user in (alice, bob, carol):
            await user.start_bot()
        await alice.send(group, "/new carnival quarters=1")  # by hand: the bot runs in its containers
        lobby = await fake.wait_for_message(group, lambda m: "Join" in " ".join(m.button_texts), timeout=120)
        for user in (bob, carol):
            await user.press(lobby, "✋ Join")
            await fake.wait_until(lambda u=user: u.first_name in group.messages()[-1].content or
                                  any(u.first_name in m.content for m in group.messages()), timeout=60)
        await alice.press(lobby, "▶️ Start")
        rng = random.Random(3)
        for _ in range(6):
            user, message = await fake.wait_until(lambda: live_hand([alice, bob, carol]), timeout=120)
            button = rng.choice(play_buttons(message))
            record = await user.press(message, lambda b, d=button["callback_data"]: b.get("callback_data") == d)
            await fake.wait_until(lambda r=record: r.answered, timeout=60, what="the answer")
        assert fake.limiter.served_429 == 0 and not fake.unanswered_callbacks()
    finally:
        await balancer.stop()
        subprocess.run([*compose, "down", "-v"], env=env, timeout=600)
