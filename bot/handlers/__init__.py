"""Thin aiogram routers: parse the update, ask a service, answer. No rules and no SQL here.

Every module has ``router()``: a fresh Router (a router attaches to one Dispatcher only, and tests run
many). Services reach the handlers by aiogram's dependency injection: the composition root
(bot/app.py) puts them in the Dispatcher's workflow data, and a handler names the ones it uses as
parameters (``lobby: LobbyService``, ``replies: Replies``...)."""

from aiogram import Router

from bot.handlers import (
    chosen,
    clocks,
    group_hands,
    help,
    hint,
    league,
    lobby,
    membership,
    play,
    settings,
    status,
    tournament,
)


def routers() -> list[Router]:
    """Every router, in the order the dispatcher tries them (/status first: the owner's, in the DM)."""
    return [status.router(), lobby.router(), play.router(), group_hands.router(), clocks.router(), settings.router(),
            membership.router(), tournament.router(), chosen.router(), hint.router(), help.router(), league.router()]
