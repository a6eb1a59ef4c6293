"""A short smoke run of an installed Kozyr: ``python -m bot`` (from site-packages, not this tree) against the
fake Bot API from tests/fakebot. Usage: PYTHON=/venv/bin/python python .ci/smoke.py [docker-image]

Checks: the bot starts, answers /games, opens a lobby for /new, and stops with exit code 0 on SIGTERM.
With an image name, the same runs in a container (host network) instead of a local process.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # after site-packages: only ``tests`` comes from the tree

from tests.fakebot.ratelimit import RateLimits  # noqa: E402
from tests.fakebot.server import FakeTelegram  # noqa: E402


async def main(image: str | None) -> int:
    python = os.environ.get("PYTHON", sys.executable)
    async with FakeTelegram(limits=RateLimits.loose()) as fake:
        with tempfile.TemporaryDirectory() as tmp:
            settings = {"BOT_TOKEN": fake.token, "TELEGRAM_API_URL": fake.base_url, "LOG_LEVEL": "INFO",
                        "KOZYR_AI_DELAY": "0", "KOZYR_PICTURES": "1", "KOZYR_POLLING_TIMEOUT": "1"}
            if image:
                name = f"kozyr-smoke-{os.getpid()}"
                argv = ["docker", "run", "--rm", "--name", name, "--network", "host",
                        *[a for k, v in settings.items() for a in ("-e", f"{k}={v}")], image]
            else:
                where = subprocess.run([python, "-c", "import bot; print(bot.__file__)"], cwd=tmp,
                                       capture_output=True, text=True, check=True).stdout.strip()
                assert str(ROOT) not in where, f"the bot was imported from the source tree: {where}"
                print("smoke: bot from", where)
                argv = [python, "-m", "bot"]
            env = {"PATH": os.environ["PATH"], **settings, "DATABASE_URL": f"sqlite:///{tmp}/k.sqlite3"}
            proc = await asyncio.create_subprocess_exec(*argv, cwd=tmp, env=env)
            try:
                ann = fake.user(first_name="Ann")
                bob = fake.user(first_name="Bob", language_code="ru")
                group = fake.group("Cards", members=[bob], creator=ann)
                await fake.wait_until(lambda: fake.calls_of("deleteWebhook"), timeout=300, what="the bot polling")
                await ann.start_bot()
                await ann.send(group, "/games")
                await fake.wait_for_message(group, lambda m: "carnival" in m.content, timeout=60)
                await ann.send(group, "/new carnival quarters=1")
                lobby = await fake.wait_for_message(group, lambda m: bool(m.buttons), timeout=60)
                await bob.start_bot()
                record = await bob.press(lobby, "✋ Join")
                await fake.wait_until(lambda: record.answered, timeout=60, what="the Join press answered")
                assert fake.commands, "no commands menu was set"
                if image:
                    subprocess.run(["docker", "stop", "-t", "30", name], check=True)
                else:
                    proc.terminate()
                code = await asyncio.wait_for(proc.wait(), 60)
            finally:
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
            bad = [c for c in fake.errors if "not modified" not in (c.description or "")]
            assert not bad, bad
            assert code == 0, f"exit code {code}"
    print("smoke: ok")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else None)))
