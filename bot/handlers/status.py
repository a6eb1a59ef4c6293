"""/status: for the bot's owner (BOT_OWNER_ID) only, in the DM: version, uptime, tables, queues, last error.

Anyone else (or anywhere else) gets no answer at all, as for a command the bot does not have.
"""

from __future__ import annotations

import html
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import F, Router
from aiogram.filters import Command
from aiogram.types import Message

from bot.services.ports import Replies
from bot.services.types import Actor, Where
from bot.ui.i18n import t


def uptime(seconds: float) -> str:
    minutes = int(seconds) // 60
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    return (f"{days}d " if days else "") + f"{hours}h {minutes:02d}m"


def status_text(report: dict[str, Any], lang: str) -> str:
    tables = ", ".join(f"{k} {v}" for k, v in sorted(report["tables"].items())) or "—"
    outbox = report["outbox"]
    lines = [
        f"<b>Kozyr {html.escape(str(report['version']))}</b>",
        t(lang, "Up for {time}", time=uptime(report["uptime"])),
        t(lang, "Tables: {tables}", tables=tables),
        t(lang, "Outbox: {pending} pending, {failed} failed", pending=outbox.get("pending", 0),
          failed=outbox.get("failed", 0)),
        t(lang, "Updates being handled: {n}", n=report["inbox"]),
    ]
    if report.get("last_error"):
        ago = uptime(time.time() - (report.get("last_error_at") or time.time()))
        lines.append(t(lang, "Last error ({ago} ago): {error}", ago=ago, error=html.escape(report["last_error"])))
    else:
        lines.append(t(lang, "No errors since the start."))
    return "\n".join(lines)


async def is_owner(message: Message, owner_id: int | None = None) -> bool:
    return owner_id is not None and message.from_user is not None and message.from_user.id == owner_id


async def status(message: Message, replies: Replies, actor: Actor,
                 status_report: Callable[[], Awaitable[dict[str, Any]]]) -> None:
    await replies.say(Where(message.chat.id, 0, "", actor.lang), status_text(await status_report(), actor.lang))


def router() -> Router:
    """A fresh router with /status (one per Dispatcher: a router attaches once)."""
    router = Router(name="status")
    router.message.register(status, Command("status"), F.chat.type == "private", is_owner)
    return router
