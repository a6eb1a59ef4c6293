"""Builds the bot: Bot, Dispatcher, routers, middlewares, store, outbox, tables; runs polling or a webhook."""

from __future__ import annotations

import asyncio
import logging

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.types import BotCommand

from bot.config import Settings
from bot.handlers import routers
from bot.handlers.context import Context, Dedup
from bot.handlers.help import COMMANDS
from bot.services.ai_seats import AiSeats
from bot.services.outbox import Outbox, RateLimiter
from bot.services.pictures import Pictures
from bot.services.tables import Tables
from bot.services.timers import Timers
from bot.store.sqlite import Store

log = logging.getLogger(__name__)


class App:
    """Everything one bot process runs; ``start`` / ``stop`` so tests can run it in-process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.store = Store(settings.database_path, settings.sqlite_driver)
        session = None
        if settings.telegram_api_url:
            session = AiohttpSession(api=TelegramAPIServer.from_base(settings.telegram_api_url.rstrip("/")))
        self.bot = Bot(settings.bot_token, session=session,
                       default=DefaultBotProperties(parse_mode=ParseMode.HTML, link_preview_is_disabled=True))
        limiter = RateLimiter(settings.per_chat_interval, settings.group_per_minute, settings.global_per_second)
        self.pictures = Pictures() if settings.pictures else None
        self.outbox = Outbox(self.store, self.bot, limiter, Pictures.render)
        self.dispatcher = Dispatcher()
        self.tables: Tables | None = None
        self.dedup: Dedup | None = None
        self.timers: Timers | None = None
        self._polling: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Open the store, learn the bot's name, wire the dispatcher, start the outbox and AI seats."""
        await self.store.open()
        me = await self.bot.get_me()
        if self.pictures is not None:
            await asyncio.to_thread(self.pictures.warm_up)
        self.tables = Tables(self.store, self.outbox, me.username or "kozyr_bot", self.settings.ai_delay,
                             self.pictures, AiSeats(self.settings.ai_level, self.settings.ai_think_ms))
        self.outbox.on_unreachable = self.tables.user_unreachable
        dp = self.dispatcher
        self.dedup = Dedup(self.store)
        dp.update.outer_middleware(self.dedup)
        context = Context(self.store, self.tables)
        dp.message.outer_middleware(context)
        dp.callback_query.outer_middleware(context)
        dp.my_chat_member.outer_middleware(context)
        dp.include_routers(*routers())
        self.outbox.start()
        self.timers = Timers(self.tables, self.settings.remind_after, self.settings.autoplay_after)
        self.timers.start()
        resumed = await self.tables.resume()
        log.info("started as @%s; %d tables in play", me.username, resumed)
        try:
            await self.bot.set_my_commands([BotCommand(command=c, description=d) for c, d in COMMANDS])
        except Exception:  # the menu is a nicety; never fail to start over it
            log.warning("could not set the commands menu", exc_info=True)

    def start_polling(self) -> None:
        self._polling = asyncio.create_task(self.dispatcher.start_polling(
            self.bot, handle_signals=False, close_bot_session=False,
            polling_timeout=self.settings.polling_timeout,
            allowed_updates=["message", "callback_query", "my_chat_member"]))

    def busy(self) -> bool:
        """Whether an update is being handled or an AI seat is thinking (tests wait for quiet)."""
        return bool((self.dedup and self.dedup.in_flight) or (self.tables and self.tables.ai_busy()))

    async def stop(self) -> None:
        if self._polling is not None:
            try:
                await self.dispatcher.stop_polling()
            except RuntimeError:
                pass
            await self._polling
            self._polling = None
        while self.dedup is not None and self.dedup.in_flight:
            await asyncio.sleep(0.01)
        if self.timers is not None:
            await self.timers.stop()
        if self.tables is not None:
            await self.tables.stop()
        await self.outbox.stop()
        await self.store.close()
        await self.bot.session.close()


async def run(settings: Settings) -> None:
    """Run until interrupted: long polling, or a webhook server when WEBHOOK_URL is set."""
    app = App(settings)
    await app.start()
    try:
        if settings.webhook_url:
            from aiogram.webhook.aiohttp_server import SimpleRequestHandler, setup_application
            from aiohttp import web

            web_app = web.Application()
            SimpleRequestHandler(dispatcher=app.dispatcher, bot=app.bot).register(web_app, path="/webhook")
            setup_application(web_app, app.dispatcher, bot=app.bot)
            await app.bot.set_webhook(settings.webhook_url.rstrip("/") + "/webhook")
            runner = web.AppRunner(web_app)
            await runner.setup()
            await web.TCPSite(runner, "0.0.0.0", settings.webhook_port).start()
            await asyncio.Event().wait()
        else:
            await app.bot.delete_webhook()
            app.start_polling()
            assert app._polling is not None
            await app._polling
    finally:
        await app.stop()
