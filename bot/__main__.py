"""``python -m bot``: run Kozyr with the settings from the environment or .env."""

from __future__ import annotations

import asyncio
import logging
import sys

from bot.app import run
from bot.config import Settings


def main() -> int:
    settings = Settings()
    logging.basicConfig(level=settings.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not settings.bot_token:
        print("BOT_TOKEN is not set: get one from @BotFather and put it in .env (see .env.example)", file=sys.stderr)
        return 2
    try:
        asyncio.run(run(settings))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
