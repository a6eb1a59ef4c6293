"""The composition root: builds every service once (``build_services``), hands each the ports of what
it uses, wires the Dispatcher (services as workflow data, one router per handlers module), and runs
the bot's life: start (with retries while Telegram is unreachable), polling or a webhook, and a
graceful stop. Nothing else in bot/ builds a service or ties one to another."""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.exceptions import TelegramUnauthorizedError
from aiogram.types import BotCommand, User

from bot import heap
from bot.config import Settings, shared_secret_problem
from bot.handlers import routers
from bot.handlers.context import Context, Dedup
from bot.handlers.failsafe import PressFailsafe
from bot.handlers.help import COMMANDS
from bot.handlers.throttle import CommandThrottle
from bot.intake import Intake
from bot.json_session import JsonSession
from bot.league.service import League
from bot.logs import last_error
from bot.retry import Backoff, EveryMinute
from bot.services.ai_seats import AiSeats
from bot.services.app_moves import AppMoves
from bot.services.clocks import LATE, ClockService
from bot.services.core import TableCore
from bot.services.deadlines import Clock
from bot.services.hands.capture import CaptureBuilder
from bot.services.hands.in_group import GroupHands
from bot.services.hands.toggle import ToggleTurns, toggle_forced
from bot.services.here import TablesHere
from bot.services.hints import Hints
from bot.services.lobby import LobbyService
from bot.services.outbox import Outbox, RateLimiter
from bot.services.paid import store_budget
from bot.services.people import People
from bot.services.pictures import Pictures
from bot.services.play import Play
from bot.services.ports import Plug, SeatedTables, SeatLeaver, TurnClock
from bot.services.presence import PresenceService
from bot.services.publish import Publisher
from bot.services.reports import Reports
from bot.services.retention import Retention
from bot.services.seats import SeatService
from bot.services.vacation import Vacations
from bot.shared_limits import RedisLimiter, SharedLimitMiddleware
from bot.store.backend import Backend
from bot.store.contract import Store
from bot.store.lock import AlreadyRunning
from bot.store.migrate import SchemaTooNew
from bot.store.pg_workers import WorkerMismatch
from bot.tournaments.service import Tournaments
from bot.ui.app_links import AppLinks
from bot.ui.i18n import LANGS, t
from bot.webapp.auth import Gate, MemorySeen, SeenHashes
from bot.webapp.fanout import RedisFanout, RedisSeen
from bot.webapp.server import TableApp
from bot.webhook import WebhookServer, new_secret

log = logging.getLogger(__name__)

HEARTBEAT_EVERY = 15.0  # seconds; ``python -m bot health`` (Docker's HEALTHCHECK) reads the file's age
ORPHAN_SWEEP = 2.0  # seconds between looks for updates a dead worker left (PostgreSQL, several workers)


def version() -> str:
    try:
        return metadata.version("kozyr")
    except metadata.PackageNotFoundError:
        return "unknown"


class StartError(RuntimeError):
    """A problem the operator must fix before the bot can run; reported as one line, exit code 2."""


class TokenRefused(StartError):
    """Telegram answered 401: the token is wrong or revoked (retrying cannot help)."""


@dataclass(frozen=True)
class Services:
    """Every service of one bot, each built once by ``build_services``. Handlers get them by name from
    the Dispatcher's workflow data (``workflow_data``); nothing here forwards a call to another."""

    core: TableCore
    publisher: Publisher
    play: Play
    people: People
    lobby: LobbyService
    seats: SeatService
    here: TablesHere
    presence: PresenceService
    reports: Reports
    hints: Hints
    builder: CaptureBuilder
    toggles: ToggleTurns
    league: League
    group_hands: GroupHands
    tournaments: Tournaments
    moves: AppMoves  # the table app's moves, through the same checks as the buttons
    clock: Plug[TurnClock]  # the clocks as moves see them (empty: no clocks)
    clocks: ClockService | None
    vacations: Vacations | None = None

    def workflow_data(self) -> dict[str, Any]:
        """The names handlers ask for (aiogram injects a handler's parameters by name)."""
        return {"replies": self.core, "play": self.play, "people": self.people, "lobby": self.lobby,
                "seats": self.seats, "here": self.here, "presence": self.presence, "reports": self.reports,
                "hints": self.hints,
                "builder": self.builder, "toggles": self.toggles, "league": self.league, "clocks": self.clocks,
                "tournaments": self.tournaments, "vacations": self.vacations, "group_hands": self.group_hands}

    async def stop(self) -> None:
        """Stop what runs on its own: the clocks' scheduler, the league's season clock, the AI loops."""
        if self.clocks is not None:
            await self.clocks.stop()
        await self.tournaments.stop()
        await self.league.stop()
        await self.play.stop()


def build_services(store: Store, outbox: Outbox, bot_username: str, *, ai_delay: float = 1.0,
                   pictures: Pictures | None = None, ai: AiSeats | None = None, ping_after: float = 20.0,
                   timed: bool = True, clock: Clock | None = None, default_per_move: float = 86400.0,
                   vacation_days: int = 14, app: AppLinks | None = None, paused_after: float = LATE) -> Services:
    """Build the services once, each given the ports of exactly what it uses.

    Moves keep the clocks' deadlines and the clocks play a move at a deadline: that one loop is closed
    by a ``Plug`` made here, handed to the services that use the clocks, and plugged once the clocks
    exist. ``app`` is the table app's links (its buttons under hands and tables; None: no app).
    ``timed=False`` builds no clocks (moves then keep no deadlines). A finished table reaches
    the league through the play service's "finished" subscribers, never by an import."""
    core = TableCore(store, outbox)
    turn_clock: Plug[TurnClock] = Plug()
    league = League(store, outbox, pictures is not None)
    forced = (toggle_forced,)  # moves the table plays by itself: played by Play, not asked of anybody by Publisher
    publisher = Publisher(core, turn_clock, pictures, ping_after, app, forced)
    seated: Plug[SeatedTables] = Plug()  # the lobby opens a tournament's tables; it needs the play service
    leaver: Plug[SeatLeaver] = Plug()  # the seats service hands a withdrawn player's tables to the AI
    tournaments = Tournaments(core, seated, turn_clock, league.tournament_result, bot_username, pictures is not None,
                              default_per_move, leaver=leaver)
    play = Play(core, publisher, ai or AiSeats(), turn_clock, ai_delay, forced=forced,
                finished=(league.table_finished, tournaments.table_finished))
    people = People(core, publisher)
    lobby = LobbyService(core, publisher, play, turn_clock, bot_username)
    seated.plug(lobby)
    seats = SeatService(core, publisher, play, bot_username)
    leaver.plug(seats)
    clocks = ClockService(core, play, lobby, publisher, clock, default_per_move, paused_after) if timed else None
    turn_clock.plug(clocks)
    vacations = Vacations(core, clocks.clock, clocks.scheduler.nudge, vacation_days) if clocks is not None else None
    toggles = ToggleTurns(core, play, publisher)
    group_hands = GroupHands(core, publisher)
    outbox.on_ephemeral = group_hands.delivered  # the outcome of each hand shown in a group
    return Services(
        core=core, publisher=publisher, play=play, people=people, lobby=lobby,
        seats=seats, here=TablesHere(core),
        presence=PresenceService(core, play),
        reports=Reports(core, publisher, lobby, people),
        hints=Hints(core, play.ai),
        builder=CaptureBuilder(core, play),
        toggles=toggles, league=league, moves=AppMoves(core, play, toggles), tournaments=tournaments,
        group_hands=group_hands, clock=turn_clock, clocks=clocks, vacations=vacations)


class App:
    """Everything one bot process runs; ``start`` / ``stop`` so tests can run it in-process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.backend = Backend(settings)  # SQLite or PostgreSQL, and who may run on it (bot/store/backend.py)
        self.store = self.backend.store
        self.bot = self._make_bot(settings)
        # The outbox sends on its own HTTP connection pool: under load its sends would otherwise hold
        # every connection and a press's answerCallbackQuery would queue behind them until too old.
        self.outbox_bot = self._make_bot(settings)
        self.redis: Any = None
        paid = store_budget(self.store, settings.paid_broadcast_stars_per_hour)  # off at 0 (bot/services/paid.py)
        if settings.redis_url:  # several workers: Telegram's limits shared through Redis (bot/shared_limits.py)
            import redis.asyncio as aioredis

            self.redis = aioredis.from_url(settings.redis_url)
            self.bot.session.middleware(SharedLimitMiddleware(RedisLimiter(self.redis),
                                                              ephemeral_counts=settings.ephemeral_counts))
            # The outbox's sends may go paid when the workers' shared free rate is used up.
            self.outbox_bot.session.middleware(SharedLimitMiddleware(RedisLimiter(self.redis), paid,
                                                                     settings.ephemeral_counts))
        limiter = RateLimiter(settings.per_chat_interval, settings.group_per_minute, settings.global_per_second)
        self.pictures = Pictures() if settings.pictures else None
        self.outbox = Outbox(self.store, self.outbox_bot, limiter, Pictures.render, paid=paid)
        self.outbox.ephemeral.counts = settings.ephemeral_counts  # where a group's hands queue (in_group.hand_queue)
        # No handler keeps a conversation state: the FSM middleware would build a context for every update.
        self.dispatcher = Dispatcher(disable_fsm=True)
        self.services: Services | None = None
        self.dedup: Dedup | None = None
        self.intake: Intake | None = None
        self.webhook: WebhookServer | None = None
        self.table_app: TableApp | None = None  # the Mini App's server side (KOZYR_APP_URL)
        self.table_app_port: int | None = None  # polling mode: where it listens
        self.started_at = time.time()
        self._opened = False
        self._locked = False
        self.retention: Retention | None = None
        self._polling: asyncio.Task[None] | None = None
        self._heartbeat: asyncio.Task[None] | None = None
        self._sweep: asyncio.Task[None] | None = None
        self._stopping = False
        self._hurry = asyncio.Event()

    @staticmethod
    def _make_bot(settings: Settings) -> Bot:
        session = JsonSession()  # texts and keyboards as one JSON body (bot/json_session.py)
        if settings.telegram_api_url:
            session = JsonSession(api=TelegramAPIServer.from_base(settings.telegram_api_url.rstrip("/")))
        return Bot(settings.bot_token, session=session,
                   default=DefaultBotProperties(parse_mode=ParseMode.HTML, link_preview_is_disabled=True))

    async def start(self) -> None:
        """Lock the database, migrate it, learn the bot's name, wire the dispatcher, start the outbox and
        AI seats, and handle whatever a previous process received but did not finish."""
        await self.backend.acquire()
        self._locked = True
        try:
            await self.store.open()
        except self.backend.open_errors as exc:
            await self.store.close()
            raise StartError(f"cannot open the database {self.settings.database_path}: {exc}") from exc
        self._opened = True
        for name in self.store.migrated:
            log.info("database migrated: %s", name)
        me = await self._whoami()
        if self.pictures is not None:
            await asyncio.to_thread(self.pictures.warm_up)
        ai = AiSeats(self.settings.ai_level, self.settings.ai_think_ms, worker=self.settings.ai_worker)
        ai.warm_up()
        username = me.username or "kozyr_bot"
        links = None
        if self.settings.app_url:
            links = AppLinks.build(self.settings.app_url, self.settings.app_name, username, self.settings.bot_token)
        services = self.services = build_services(
            self.store, self.outbox, username, ai_delay=self.settings.ai_delay,
            pictures=self.pictures, ai=ai, ping_after=self.settings.ping_after,
            default_per_move=self.settings.autoplay_after, app=links, vacation_days=self.settings.vacation_days,
            paused_after=self.settings.paused_after)
        if self.settings.deal_seed is not None:
            services.lobby.seed_deals(self.settings.deal_seed)
        self.outbox.on_unreachable = services.people.user_unreachable
        dp = self.dispatcher
        dp.workflow_data.update(services.workflow_data())  # handlers take services by parameter name
        dp["status_report"] = self.report
        dp["owner_id"] = self.settings.bot_owner_id
        self.dedup = Dedup(services.people)
        dp.update.outer_middleware(self.dedup)
        self.throttle = CommandThrottle()
        dp.message.outer_middleware(self.throttle)
        context = Context(services.people, services.core)
        dp.message.outer_middleware(context)
        dp.callback_query.outer_middleware(context)
        dp.callback_query.outer_middleware(PressFailsafe())  # inside Context: answers in the presser's language
        dp.my_chat_member.outer_middleware(context)
        dp.include_routers(*routers())
        self.intake = Intake(self.store, dp, self.bot)
        self.outbox.start()
        await services.league.start()  # the season clock (the intake does not emit aiogram's startup event)
        if services.clocks is not None:  # stored deadlines, one scheduler (no per-tick scan of the tables)
            await services.clocks.start()
        await services.tournaments.start()  # registration windows, rounds completed while the bot was down
        # Retention: prune processed update ids, failed rows, finished games' slots, stale blobs.
        self.retention = Retention(self.store, latest_update=lambda: self.dedup.latest if self.dedup else None)
        self.retention.start()
        if links is not None:
            # Several workers share Redis: the app's replay memory and its push between workers use it too.
            seen: SeenHashes = RedisSeen(self.redis) if self.redis is not None else MemorySeen()
            fanout = RedisFanout(self.redis) if self.redis is not None else None
            gate = Gate(self.settings.bot_token, self.settings.app_max_age, seen)
            self.table_app = TableApp(services.core, services.moves, links, gate, services.publisher.now, fanout)
            await self.table_app.listen()
            if not self.settings.webhook_url:  # polling: its own server (webhook mode: beside the webhook)
                try:
                    self.table_app_port = await self.table_app.start(self.settings.app_host, self.settings.app_port)
                except OSError as exc:
                    raise StartError(f"cannot listen on {self.settings.app_host}:{self.settings.app_port} "
                                     f"(KOZYR_APP_HOST, KOZYR_APP_PORT): {exc.strerror or exc}") from exc
        resumed = await services.play.resume()
        again = await self.intake.resume()
        if self.settings.is_postgres:  # another worker may die with updates in hand: take them over
            self._sweep = asyncio.create_task(self.intake.sweep(ORPHAN_SWEEP), name="inbox-sweep")
        self._heartbeat = asyncio.create_task(self._beat(), name="heartbeat")
        log.info("started as @%s (Kozyr %s); %d tables in play, %d updates to finish", me.username, version(),
                 resumed, again)
        await self._set_commands()

    async def _whoami(self) -> User:
        """getMe, retried with backoff while Telegram cannot be reached (logged once a minute)."""
        backoff, trouble = Backoff(), EveryMinute(log)
        while True:
            try:
                me = await self.bot.get_me()
            except TelegramUnauthorizedError as exc:
                raise TokenRefused("Telegram refused BOT_TOKEN (401 Unauthorized): check it with @BotFather") from exc
            except Exception as exc:  # network down, DNS, 5xx: wait and try again
                trouble.failed("reaching Telegram (getMe)", exc)
                await asyncio.sleep(backoff.next())
                continue
            trouble.ok("reaching Telegram")
            return me

    async def _set_commands(self) -> None:
        """The commands menu, in English (the default) and in Russian for Russian-speaking clients."""
        for lang in LANGS:
            commands = [BotCommand(command=c, description=t(lang, d)) for c, d in COMMANDS]
            try:
                await self.bot.set_my_commands(commands, language_code=None if lang == "en" else lang)
            except Exception:  # the menu is a nicety; never fail to start over it
                log.warning("could not set the commands menu (%s)", lang, exc_info=True)

    async def _beat(self) -> None:
        path = self.settings.database_path.with_name(self.settings.database_path.name + ".alive")
        while True:
            try:
                path.write_text(f"{time.time():.0f}\n")
            except OSError as exc:
                log.warning("cannot write the heartbeat file %s: %s", path, exc)
            await asyncio.sleep(HEARTBEAT_EVERY)

    def start_polling(self) -> None:
        assert self.intake is not None, "start() first"
        self._polling = asyncio.create_task(self.intake.poll(self.settings.polling_timeout), name="polling")

    async def serve(self) -> None:
        """Start, then take updates until stopped (polling, or the webhook server)."""
        await self.start()
        heap.settle()  # start-up's objects out of every later full collection (bot/heap.py)
        assert self.intake is not None
        if self.settings.webhook_url:
            problem = shared_secret_problem(self.settings)
            if problem is not None:  # ``python -m bot`` stops before; an App built another way stops here
                raise RuntimeError(problem)
            secret = self.settings.webhook_secret or new_secret()
            self.webhook = WebhookServer(self.bot, self.intake, secret, self.report,
                                         mount=self.table_app.mount if self.table_app is not None else None)
            try:
                await self.webhook.start(self.settings.webhook_host, self.settings.webhook_port,
                                         self.settings.webhook_url)
            except OSError as exc:
                raise StartError(f"cannot listen on {self.settings.webhook_host}:{self.settings.webhook_port} "
                                 f"(WEBHOOK_HOST, WEBHOOK_PORT): {exc.strerror or exc}") from exc
            await asyncio.Event().wait()
        else:
            await self.bot.delete_webhook()
            self.start_polling()
            assert self._polling is not None
            await self._polling
            if self.intake.fatal is not None:
                raise TokenRefused("Telegram refused BOT_TOKEN (401 Unauthorized) while polling: was it revoked?")

    def busy(self) -> bool:
        """Whether an update is being handled or an AI seat is thinking (tests wait for quiet)."""
        return bool((self.dedup and self.dedup.in_flight) or (self.intake and self.intake.in_flight)
                    or (self.services and (self.services.play.ai_busy() or self.services.tournaments.busy())))

    async def report(self) -> dict[str, Any]:
        """What /status and /healthz show: version, uptime, tables by state, queue depths, last error."""
        async with self.store.read() as tx:
            tables = await tx.table_counts()
            outbox = await tx.outbox_counts()
            waiting = await tx.inbox_depth()
        return {"status": "stopping" if self._stopping else "ok", "version": version(),
                "uptime": round(time.time() - self.started_at), "tables": tables,
                "outbox": outbox, "inbox": waiting, "last_error": last_error.message,
                "last_error_at": last_error.at}

    def hurry(self) -> None:
        """Stop waiting for the outbox (a second SIGTERM / Ctrl-C)."""
        self._hurry.set()

    async def _drained(self, timeout: float) -> bool:
        """Wait until the outbox is empty, for at most ``timeout`` seconds or until ``hurry()``."""
        drain = asyncio.create_task(self.outbox.drain(timeout=timeout))
        hurry = asyncio.create_task(self._hurry.wait())
        await asyncio.wait({drain, hurry}, return_when=asyncio.FIRST_COMPLETED)
        hurry.cancel()
        drain.cancel()
        results = await asyncio.gather(drain, hurry, return_exceptions=True)
        return results[0] is None

    async def stop(self, grace: float | None = None) -> None:
        """Stop taking updates, finish the handlers in flight, deliver what is queued for up to ``grace``
        seconds (the rest is sent after the restart), checkpoint and close the database."""
        grace = self.settings.stop_grace if grace is None else grace
        self._stopping = True
        deadline = time.monotonic() + grace
        if self.table_app is not None:  # its open streams end first (they would hold the server's stop)
            await self.table_app.stop()
        if self.webhook is not None:
            await self.webhook.stop()
        if self._polling is not None:
            self._polling.cancel()
            await asyncio.gather(self._polling, return_exceptions=True)
            self._polling = None
        if self._sweep is not None:
            self._sweep.cancel()
            await asyncio.gather(self._sweep, return_exceptions=True)
        if self.intake is not None:
            await self.intake.drain(max(grace, 1.0))
        while self.dedup is not None and self.dedup.in_flight and time.monotonic() < deadline + 1:
            await asyncio.sleep(0.01)  # updates fed directly to the dispatcher (bench/bot.py)
        if self.retention is not None:
            await self.retention.stop()
        if self.services is not None:
            await self.services.stop()
        if self._opened and not await self._drained(max(0.0, deadline - time.monotonic())):
            async with self.store.read() as tx:
                left = (await tx.outbox_counts()).get("pending", 0)
            log.warning("stopping with %d messages still queued; they are sent after the restart", left)
        await self.outbox.stop()
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            await asyncio.gather(self._heartbeat, return_exceptions=True)
        if self._opened:
            await self.store.close()
            self._opened = False
        await self.bot.session.close()
        await self.outbox_bot.session.close()
        if self.redis is not None:
            await self.redis.aclose()
        if self._locked:
            await self.backend.release()
            self._locked = False


async def run(settings: Settings) -> int:
    """Run until SIGTERM or SIGINT (also as PID 1 in a container), then stop gracefully: exit code 0.
    A second signal skips the grace period."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    grace = [settings.stop_grace]

    app = App(settings)

    def on_signal(sig: signal.Signals) -> None:
        if stop.is_set():
            grace[0] = 0.0
            app.hurry()
            log.warning("%s again: stopping without waiting for the outbox", sig.name)
        else:
            log.info("%s received: stopping (up to %.0f s to deliver queued messages)", sig.name, grace[0])
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal, sig)
    serving = asyncio.create_task(app.serve(), name="serve")
    stopping = asyncio.create_task(stop.wait(), name="signals")
    code = 0
    try:
        await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if serving.done():
            exc = serving.exception()
            if isinstance(exc, (StartError, AlreadyRunning, SchemaTooNew, WorkerMismatch)):
                log.error("%s", exc)
                code = 2
            elif exc is not None:
                log.error("the bot stopped on an error", exc_info=exc)
                code = 1
        else:
            serving.cancel()
            await asyncio.gather(serving, return_exceptions=True)
    finally:
        stopping.cancel()
        await app.stop(grace[0])
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
    log.info("stopped")
    return code
