"""Webhook mode: an aiohttp server for Telegram's POSTs (checked against the secret token) and /healthz.

Why: without a secret anyone who finds the URL can post forged updates (a "press" by any user).
Telegram sends the ``secret_token`` given to setWebhook in ``X-Telegram-Bot-Api-Secret-Token``;
a request without it is refused before its body is read. The server listens on WEBHOOK_HOST
(loopback by default: put a TLS reverse proxy in front). An update is answered 200 only once
it is in the inbox (bot/intake.py), so a crash never loses one Telegram considers delivered.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import Bot
from aiohttp import web
from pydantic import ValidationError

from bot import codec
from bot.intake import ALLOWED_UPDATES, Intake

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
PATH = "/webhook"


def new_secret() -> str:
    return secrets.token_urlsafe(32)


class WebhookServer:
    def __init__(self, bot: Bot, intake: Intake, secret: str, health: Callable[[], Awaitable[dict[str, Any]]],
                 mount: Callable[[web.Application], None] | None = None) -> None:
        self.bot = bot
        self.mount = mount  # the table app's routes, beside the webhook (bot/webapp/server.py)
        self.intake = intake
        self.secret = secret
        self.health = health
        self.accepting = True
        self.refused = 0
        self._runner: web.AppRunner | None = None

    def application(self) -> web.Application:
        app = web.Application(client_max_size=1 << 20)
        app.router.add_post(PATH, self._update)
        app.router.add_get("/healthz", self._healthz)
        if self.mount is not None:
            self.mount(app)
        return app

    async def start(self, host: str, port: int, public_url: str) -> None:
        self._runner = web.AppRunner(self.application(), access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        await self.bot.set_webhook(public_url.rstrip("/") + PATH, secret_token=self.secret,
                                   allowed_updates=ALLOWED_UPDATES)
        log.info("webhook server listening on %s:%d (public URL %s%s)", host, port, public_url.rstrip("/"), PATH)

    async def stop(self) -> None:
        self.accepting = False
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _update(self, request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), self.secret.encode()):
            self.refused += 1
            if self.refused == 1 or self.refused % 100 == 0:
                log.warning("refused %d webhook requests without the secret token (last from %s)",
                            self.refused, request.remote)
            return web.Response(status=401, text="unauthorized")
        if not self.accepting:
            return web.Response(status=503, text="stopping")  # Telegram retries later
        try:
            update = self.intake.parse(codec.loads(await request.read()))
        except (ValueError, ValidationError):
            return web.Response(status=400, text="not an update")
        await self.intake.accept(update)
        return web.Response(text="ok")

    async def _healthz(self, request: web.Request) -> web.Response:
        try:
            report = await self.health()
        except Exception as exc:  # the database cannot be read: unhealthy
            return web.json_response({"status": "error", "error": type(exc).__name__}, status=503)
        return web.json_response(report, status=200 if report.get("status") == "ok" else 503)
