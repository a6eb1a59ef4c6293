"""``python -m bot``: run Kozyr with the settings from the environment or .env.

Also ``python -m bot --help`` (the settings), ``python -m bot backup PATH`` (an online copy of the
database) and ``python -m bot health`` (exit 0 while a running bot's heartbeat is fresh; Docker's
HEALTHCHECK). Settings are checked before aiogram, Pillow and the engine are imported, so a
mistake is reported in a fraction of a second, one line per problem, and secrets are never printed.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

USAGE = """usage: python -m bot [COMMAND]

Runs the Kozyr Telegram bot (long polling, or a webhook when WEBHOOK_URL is set).
Stop it with SIGTERM or Ctrl-C: queued messages get KOZYR_STOP_GRACE seconds, then it exits 0.

commands:
  (none)        run the bot
  backup PATH   copy the database to PATH (a file or a folder), safe while the bot runs
  health        exit 0 if a bot on this database is alive (its heartbeat is under {fresh} s old)
  --help        this text;  --version  the version

settings (environment variables, or a .env file in the current folder):
{settings}
"""
HEALTHY_WITHIN = 60.0


def fail(lines: list[str], code: int = 2) -> int:
    for line in lines:
        print(f"kozyr: {line}", file=sys.stderr)
    return code


def load_settings(need_token: bool = True):  # -> Settings | list[str]
    from pydantic import ValidationError

    from bot.config import Settings, problems_of

    try:
        settings = Settings()
    except ValidationError as exc:
        return problems_of(exc)
    if need_token and not settings.bot_token:
        return ["BOT_TOKEN is not set: get one from @BotFather and put it in the environment or in .env "
                "(see .env.example)"]
    return settings


def database_problems(path: Path) -> list[str]:
    """Whether the database's folder exists (or can be made) and the bot may write there."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return [f"DATABASE_URL: cannot create the folder {folder}: {exc.strerror}"]
    if not os.access(folder, os.W_OK | os.X_OK):
        return [f"DATABASE_URL: the folder {folder} is not writable by this user (uid {os.getuid()})"]
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        return [f"DATABASE_URL: the file {path} is not readable and writable by this user (uid {os.getuid()})"]
    return []


def backup_command(args: list[str]) -> int:
    if len(args) != 1:
        return fail(["usage: python -m bot backup PATH"])
    settings = load_settings(need_token=False)
    if isinstance(settings, list):
        return fail(settings)
    from bot.store.backup import BackupError, backup

    if settings.is_postgres:
        return fail(["backup: the database is PostgreSQL; use pg_dump (python -m bot backup copies SQLite files)"])
    source, target = settings.database_path, Path(args[0])
    try:
        size = backup(source, target)
    except (BackupError, OSError) as exc:
        return fail([f"backup failed: {exc}"], 1)
    print(f"backed up {source} to {target} ({size} bytes)")
    return 0


def health_command() -> int:
    settings = load_settings(need_token=False)
    if isinstance(settings, list):
        return fail(settings)
    beat = settings.database_path.with_name(settings.database_path.name + ".alive")
    try:
        age = time.time() - beat.stat().st_mtime
    except FileNotFoundError:
        return fail([f"no heartbeat at {beat}: the bot has not started"], 1)
    if age > HEALTHY_WITHIN:
        return fail([f"the heartbeat is {age:.0f} s old: the bot is stuck or stopped"], 1)
    print(f"ok: heartbeat {age:.0f} s ago")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help", "help"):
        from bot.config import describe

        print(USAGE.format(settings=describe(), fresh=int(HEALTHY_WITHIN)))
        return 0
    if args and args[0] == "--version":
        from importlib import metadata

        try:
            print(f"kozyr {metadata.version('kozyr')}")
        except metadata.PackageNotFoundError:
            print("kozyr (not installed)")
        return 0
    if args and args[0] == "backup":
        return backup_command(args[1:])
    if args and args[0] == "health":
        return health_command()
    if args:
        return fail([f"unknown command {args[0]!r}; see python -m bot --help"])

    # SIGTERM during the slow imports below: leave at once, cleanly (nothing is open yet).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    settings = load_settings()
    if isinstance(settings, list):
        return fail(["cannot start:"] + settings)
    from bot.config import shared_secret_problem

    secret = shared_secret_problem(settings)
    if secret is not None:
        return fail([f"cannot start: {secret}"])
    problems = database_problems(settings.database_path)
    if problems:
        return fail(["cannot start:"] + problems)
    if not settings.is_postgres:  # PostgreSQL workers are checked by bot/store/backend.py at start
        from bot.store.lock import AlreadyRunning, ProcessLock

        try:
            ProcessLock(settings.database_path).probe()
        except AlreadyRunning as exc:
            return fail([f"cannot start: {exc}"])
    from bot import logs

    logs.setup(settings.log_level, settings.log_format)
    try:
        import asyncio

        from bot.app import run

        return asyncio.run(run(settings))
    except KeyboardInterrupt:  # Ctrl-C before the loop's own handler was installed
        return 0


if __name__ == "__main__":
    sys.exit(main())
