"""Thin aiogram routers: parse the update, ask a service, answer. No rules and no SQL here."""

from aiogram import Router

from bot.handlers import clocks, help, hint, lobby, membership, play, settings


def routers() -> list[Router]:
    return [lobby.router(), play.router(), clocks.router(), settings.router(), membership.router(), hint.router(),
            help.router()]
