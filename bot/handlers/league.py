"""/top, /stats, /h2h and /league (settings and admin actions): parse, check rights, ask the league service."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.handlers.context import is_admin
from bot.league.seasons import is_key
from bot.league.service import League, PlayerRef
from bot.services.types import Actor, Where
from bot.ui.bounds import parse_id
from bot.ui.i18n import t
from engine.core import all_games

GROUPS = F.chat.type.in_({"group", "supergroup"})
USAGE = {"season": "/league season month|quarter|none|DAYS", "topics": "/league topics on|off",
         "remove": "/league remove MATCH REASON"}


def players_named(message: Message) -> list[PlayerRef]:
    """The players a command names, in order: text mentions (users without a username), @usernames,
    then the author of the replied-to message."""
    refs: list[PlayerRef] = []
    text = message.text or ""
    for entity in message.entities or []:
        end = len(text.encode("utf-16-le")[:2 * (entity.offset + entity.length)].decode("utf-16-le"))
        if entity.type == "text_mention" and entity.user is not None:
            refs.append(PlayerRef(user_id=entity.user.id, name=entity.user.full_name,
                                  text=entity.extract_from(text), end=end))
        elif entity.type == "mention":
            refs.append(PlayerRef(text=entity.extract_from(text), end=end))
    reply = message.reply_to_message
    if reply is not None and reply.forum_topic_created is not None:
        reply = None  # in a forum topic every message "replies" to the topic's first one: no one is named
    if reply is not None and reply.from_user is not None and not reply.from_user.is_bot:
        refs.append(PlayerRef(user_id=reply.from_user.id, name=reply.from_user.full_name))
    return refs


def _args(command: CommandObject) -> list[str]:
    return (command.args or "").split()


async def top(message: Message, command: CommandObject, league: League, where: Where) -> None:
    """``/top [game] [season]``, in any order."""
    games = {g.id for g in all_games()}
    game = season = None
    for arg in _args(command):
        low = arg.lower()
        if low in games:
            game = low
        elif is_key(low.upper() if "q" in low else low):
            season = low.upper() if "q" in low else low
        else:
            await league.say(where, t(where.lang, "Use /top [game] [season], e.g. /top carnival 2026-11. "
                                                   "Games: {known}", known=", ".join(sorted(games))))
            return
    await league.top(where, game, season)


async def stats(message: Message, command: CommandObject, league: League, actor: Actor, where: Where) -> None:
    """``/stats`` (yourself), ``/stats @user``, a reply with /stats, or ``/stats NAME`` as played in this league."""
    refs = players_named(message)
    if not refs and (command.args or "").strip():
        refs = [PlayerRef(text=(command.args or "").strip())]
    await league.stats(where, refs[0] if refs else PlayerRef(user_id=actor.user_id, name=actor.name))


async def h2h(message: Message, league: League, actor: Actor, where: Where) -> None:
    refs = players_named(message)
    if len(refs) == 1:
        refs.insert(0, PlayerRef(user_id=actor.user_id, name=actor.name))
    if len(refs) != 2:
        await league.say(where, t(where.lang, "Name two players: /h2h @a @b (or one, to compare with yourself)."))
        return
    await league.h2h(where, refs[0], refs[1])


async def settings(message: Message, command: CommandObject, league: League, actor: Actor, where: Where) -> None:
    """``/league``: the settings for everyone; changing them and the admin actions for chat admins only."""
    args = _args(command)
    if not args:
        await league.say(where, await league.settings_text(where))
        return
    verb = args[0].lower()
    lang = where.lang
    if verb not in ("season", "topics", "exclude", "include", "remove", "matches", "export", "recompute"):
        await league.say(where, await league.settings_text(where))
        return
    if verb != "matches" and not await is_admin(message, actor.user_id):
        await league.say(where, t(lang, "Only a chat admin can do that."))
        return
    rest = args[1:]
    if verb == "season" and len(rest) == 1:
        answer = await league.set_season(where, actor.user_id, rest[0])
    elif verb == "topics" and len(rest) == 1 and rest[0].lower() in ("on", "off"):
        answer = await league.set_topics(where, actor.user_id, rest[0].lower() == "on")
    elif verb in ("exclude", "include"):
        refs = players_named(message)
        if not refs:
            answer = t(lang, "Name the player: /league {verb} @user REASON", verb=verb)
        else:
            reason = (message.text or "")[refs[0].end:].strip() if refs[0].end else " ".join(rest)
            answer = await league.exclude(where, actor.user_id, refs[0], reason, verb == "exclude")
    elif verb == "remove" and rest and parse_id(rest[0].lstrip("#")) is not None:
        match_id = parse_id(rest[0].lstrip("#"))
        assert match_id is not None
        answer = await league.remove(where, actor.user_id, match_id, " ".join(rest[1:]).strip())
    elif verb == "matches":
        answer = await league.matches_text(where)
    elif verb == "export":
        answer = await league.export(where, actor.user_id, actor.started)
    elif verb == "recompute":
        answer = await league.recompute(where, actor.user_id)
    else:  # a known verb with arguments that do not fit it: say how it is used, in one line
        answer = t(lang, "Use: {usage}", usage=USAGE[verb])
    await league.say(where, answer)


async def group_only(message: Message, league: League, actor: Actor) -> None:
    await league.say(Where(message.chat.id, 0, "", actor.lang),
                     t(actor.lang, "This works in the group where the table is."))


def router() -> Router:
    """A fresh router with the league's commands (one per Dispatcher: a router attaches once)."""
    r = Router(name="league")
    r.message.register(top, Command("top"), GROUPS)
    r.message.register(stats, Command("stats"), GROUPS)
    r.message.register(h2h, Command("h2h"), GROUPS)
    r.message.register(settings, Command("league"), GROUPS)
    r.message.register(group_only, Command("top", "stats", "h2h", "league"), F.chat.type == "private")
    return r


