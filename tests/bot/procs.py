"""``python -m bot`` as a real separate process against the in-test fake Bot API server.

Shared by the restart, stop, crash and second-process tests. The bot's own output goes to a
log file in tmp_path (read it in an assertion message); the environment carries only the
settings these tests choose, so a developer's .env or shell cannot leak in.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
from pathlib import Path

from tests.fakebot.server import FakeTelegram

ROOT = Path(__file__).resolve().parents[2]
# A standby process imports aiogram (slow on a busy machine) while the current one plays, then
# runs exactly what ``python -m bot`` runs once the test writes a line to its stdin.
STANDBY = "import sys; import bot.__main__ as m; import bot.app; sys.stdin.readline(); sys.exit(m.main())"
START_TIMEOUT = 120.0


class BotProcess:
    """One ``python -m bot`` process (or a warm standby for the next restart)."""

    def __init__(self, proc: asyncio.subprocess.Process, log: Path) -> None:
        self.proc = proc
        self.log = log

    @classmethod
    async def spawn(cls, env: dict[str, str], log: Path, standby: bool = False, args: tuple[str, ...] = (),
                    cwd: Path = ROOT, prefix: tuple[str, ...] = ()) -> BotProcess:
        argv = ["-c", STANDBY] if standby else ["-m", "bot", *args]
        with log.open("wb") as fh:
            # A session (process group) of its own: kill() also ends what the bot started (its AI worker
            # processes), which a SIGKILL to the bot alone leaves running after the test.
            proc = await asyncio.create_subprocess_exec(
                *prefix, sys.executable, *argv, cwd=cwd, env=env, stdin=asyncio.subprocess.PIPE, stdout=fh,
                stderr=fh, start_new_session=True)
        return cls(proc, log)

    def go(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"go\n")

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    async def kill(self) -> None:
        """SIGKILL to the bot and everything in its process group (a crash, and no process left behind)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:  # the bot and all it started have exited
            pass
        await self.proc.wait()

    async def wait(self, timeout: float) -> int:
        try:
            return await asyncio.wait_for(self.proc.wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"the bot did not exit in {timeout} s:\n{self.output()[-3000:]}") from None


def bot_env(fake: FakeTelegram, db: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("KOZYR_", "BOT_", "TELEGRAM_", "DATABASE_", "WEBHOOK_", "LOG_"))}
    env.update({
        "BOT_TOKEN": fake.token, "TELEGRAM_API_URL": fake.base_url, "DATABASE_URL": f"sqlite:///{db}",
        "KOZYR_AI_DELAY": "0", "KOZYR_PER_CHAT_INTERVAL": "0", "KOZYR_GROUP_PER_MINUTE": "100000",
        "KOZYR_GLOBAL_PER_SECOND": "100000", "KOZYR_POLLING_TIMEOUT": "1", "KOZYR_PICTURES": "0",
        "LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1",
    })
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


async def ready(fake: FakeTelegram, webhook_deletes: int, process: BotProcess) -> None:
    """The bot calls deleteWebhook right before it starts polling."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_TIMEOUT
    while len(fake.calls_of("deleteWebhook")) <= webhook_deletes:
        if process.proc.returncode is not None:
            raise AssertionError(f"the bot exited with {process.proc.returncode}:\n{process.output()[-3000:]}")
        assert loop.time() < deadline, f"the bot did not start:\n{process.output()[-3000:]}"
        await asyncio.sleep(0.05)


def db_value(db: Path, sql: str, *args: object) -> object:
    with sqlite3.connect(db, timeout=10) as conn:
        row = conn.execute(sql, args).fetchone()
    return row[0] if row else None


async def caught_up(fake: FakeTelegram, db: Path, timeout: float = 30) -> None:
    """Wait for the state "everything handled and delivered", not for a stretch of silence:
    Telegram has no unconfirmed update (the bot confirms one only once it is in its inbox), the
    inbox is empty (an update leaves it when handled) and the outbox has nothing pending."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        if not fake.updates.pending:
            if db_value(db, "SELECT COUNT(*) FROM inbox") == 0 and \
                    db_value(db, "SELECT COUNT(*) FROM outbox WHERE status = 'pending'") == 0:
                return
        if loop.time() > deadline:
            with sqlite3.connect(db) as conn:
                rows = conn.execute("SELECT id, chat_id, method, slot, status, attempts, error FROM outbox").fetchall()
                inbox = conn.execute("SELECT update_id FROM inbox").fetchall()
            calls = [(c.method, c.ok, c.description) for c in fake.calls[-10:]]
            raise AssertionError(f"the bot did not catch up: outbox {rows}; inbox {inbox}; "
                                 f"updates {fake.updates.pending}; last calls {calls}")
        await asyncio.sleep(0.02)
