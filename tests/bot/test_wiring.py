"""The composition root's wiring: every handler gets its services by aiogram's dependency injection, so
a parameter a handler (or its filter) names must be something the dispatcher provides. A misspelt
name would fail only when that command is first used; here it fails at once, for every handler."""

from __future__ import annotations

import inspect
from pathlib import Path

from bot.app import build_services
from bot.handlers import routers
from bot.services.outbox import Outbox, RateLimiter
from bot.services.ports import Plug
from bot.store.sqlite import Store

# What aiogram itself passes (bot/handlers/context.py adds actor, where and update_id; bot/app.py adds
# status_report and owner_id next to the services).
AIOGRAM = {"bot", "event_from_user", "event_chat", "event_update", "event_router", "handler", "command",
           "callback_data", "event_context", "event_thread_id", "event_business_connection_id"}
MIDDLEWARES = {"actor", "where", "update_id"}
ROOT = {"status_report", "owner_id"}


async def test_every_handler_and_filter_parameter_is_provided(tmp_path: Path) -> None:
    store = await Store(tmp_path / "k.sqlite3").open()
    try:
        services = build_services(store, Outbox(store, None, RateLimiter(0, 1, 1)), "kozyr_test_bot",  # type: ignore[arg-type]
                                  ai_delay=0.0)
        provided = AIOGRAM | MIDDLEWARES | ROOT | set(services.workflow_data())
        assert services.clocks is not None and services.clock.service is services.clocks  # plugged by the root
        missing = []
        count = 0
        for router in routers():
            for observer in router.observers.values():
                for handler in observer.handlers:
                    callables = [handler.callback] + [f.callback for f in handler.filters or []
                                                      if inspect.isfunction(f.callback)]
                    for function in callables:
                        count += 1
                        names = list(inspect.signature(function).parameters)[1:]  # the first is the event
                        missing += [f"{function.__module__}.{function.__name__}({name})" for name in names
                                    if name not in provided]
        assert count > 40, "too few handlers found: is routers() complete?"
        assert not missing, missing
        await services.stop()
    finally:
        await store.close()


async def test_a_finished_table_reaches_the_league_and_tournaments_through_play_s_subscribers(tmp_path: Path) -> None:
    store = await Store(tmp_path / "k.sqlite3").open()
    try:
        services = build_services(store, Outbox(store, None, RateLimiter(0, 1, 1)), "kozyr_test_bot",  # type: ignore[arg-type]
                                  ai_delay=0.0, timed=False)
        assert services.play.finished == (services.league.table_finished, services.tournaments.table_finished)
        assert services.clocks is None and services.clock.service is None  # no clocks: an empty plug
        assert isinstance(services.clock, Plug)
        await services.stop()
    finally:
        await store.close()
