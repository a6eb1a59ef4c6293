"""/start, /help, /games, /rules, /score, /record, and the answers to everything else (the league: league.py)."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import CallbackQuery, ChatMemberUpdated, Message

from bot.handlers import clocks as clock_handlers
from bot.handlers.context import is_member
from bot.handlers.here import pick_or_ask
from bot.handlers.lobby import _answer_press
from bot.league.service import league_note, league_rules
from bot.services.catalog import table_games
from bot.services.clocks import ClockService
from bot.services.here import TablesHere
from bot.services.people import People
from bot.services.ports import Replies
from bot.services.reports import Reports, rules_text
from bot.services.types import Actor, Answer, Where
from bot.ui import words
from bot.ui.i18n import t
from bot.ui.keyboards import DM_LINKS, HAND_LINK
from engine.core import GameError, all_games, get_game
from games import REGISTERED

COMMANDS = (
    ("new", "open a table: /new carnival quarters=1"),
    ("join", "sit down at the table"),
    ("leave", "stand up before the start; during a game, hand your seat to an AI or to someone from the group"),
    ("begin", "start the game"),
    ("cancel", "cancel the table"),
    ("games", "the games I run"),
    ("rules", "the rules of a game: /rules carnival"),
    ("score", "the score sheet"),
    ("record", "the game record (JSON); a tournament's table: /record 2"),
    ("top", "the league table: /top [game] [season]"),
    ("stats", "a player's league record: /stats [@user]"),
    ("h2h", "head to head: /h2h @a @b"),
    ("league", "league seasons and admin tools"),
    ("tournament", "a tournament: /tournament carnival rounds=3 (admins open it); the organizer withdraws a "
                   "player: /tournament withdraw, replying to them"),
    ("settings", "language (in a group also where hands are shown); in the DM also time zone and quiet hours"),
    ("mytables", "my tables in every chat, whose turn, time left"),
    ("hand", "send my hand again"),
    ("pause", "vote to pause the table's clock"),
    ("resume", "vote to run the table's clock again"),
    ("extend", "the creator gives this move more time, once"),
    ("vacation", "days away: your clocks stop (in our private chat): /vacation 3"),
    ("hint", "a move suggestion for your turn (in our private chat)"),
    ("help", "this list"),
)


def help_text(lang: str) -> str:
    lines = ["<b>Kozyr</b> — " + t(lang, "card games for group chats"), ""]
    lines += [f"/{cmd} — {t(lang, desc)}" for cmd, desc in COMMANDS]
    lines += ["", league_note(lang)]
    return "\n".join(lines)


async def start_deep(message: Message, command: CommandObject, reports: Reports, replies: Replies,
                     clocks: ClockService | None, actor: Actor) -> None:
    payload = command.args or ""
    if payload in DM_LINKS and clocks is not None and message.chat.type == "private":
        # The button under the group's answer to /hand or /mytables: the DM opens, and that command answers.
        await reports.opened(actor)
        if payload == HAND_LINK:
            await clock_handlers.hand(message, clocks, replies, actor)
        else:
            await clock_handlers.my_tables(message, clocks, replies, actor)
        return

    async def member(chat_id: int) -> bool:
        return await is_member(message.bot, chat_id, actor.user_id)

    await reports.deep_start(actor, payload, member)


async def start(message: Message, reports: Reports, actor: Actor) -> None:
    await reports.deep_start(actor, "")


async def help_(message: Message, replies: Replies, actor: Actor, where: Where | None) -> None:
    lang = where.lang if where else actor.lang
    await _say(replies, message, actor, where, help_text(lang))


async def games(message: Message, replies: Replies, actor: Actor, where: Where | None) -> None:
    lang = where.lang if where else actor.lang
    lines = ["<b>" + t(lang, "Games") + "</b>"]
    for game in table_games():
        players = f"{game.min_players}–{game.max_players}" if game.min_players != game.max_players \
            else str(game.min_players)
        lines.append(f"• <code>{game.id}</code> — {words.title(game.id, lang)} ({players})")
    lines.append(t(lang, "Open a table with /new GAME; rules: /rules GAME."))
    await _say(replies, message, actor, where, "\n".join(lines))


async def rules(message: Message, command: CommandObject, replies: Replies, actor: Actor, where: Where | None) -> None:
    lang = where.lang if where else actor.lang
    game_id = (command.args or "").strip().lower() or REGISTERED[0]  # the house game
    if game_id == "league":
        await _say(replies, message, actor, where, league_rules(lang))
        return
    try:
        get_game(game_id)
    except GameError:
        await _say(replies, message, actor, where, t(lang, "I don't know the game {game}. Games: {known}",
                                                     game=words.typed(game_id),
                                                     known=", ".join(g.id for g in all_games())))
        return
    text = rules_text(game_id, lang) or t(lang, "The rules of this game are not written yet.")
    await _say(replies, message, actor, where, text)


async def score(message: Message, command: CommandObject, reports: Reports, here: TablesHere, replies: Replies,
                where: Where) -> None:
    """The score sheet of the table here; ``/score 2`` of a tournament's table 2 (``3.2``: round 3, ``#41``:
    the table's id); with several running and none named, the choice."""
    picked = await pick_or_ask(here, replies, where, command.args or "", "sc")
    if picked is not None:
        await reports.score(where, picked.table.table.id if picked.table is not None else None)


async def record(message: Message, command: CommandObject, reports: Reports, here: TablesHere, replies: Replies,
                 where: Where) -> None:
    """The game record of the table here; a tournament's table named or chosen as for /score."""
    picked = await pick_or_ask(here, replies, where, command.args or "", "rc")
    if picked is not None:
        await reports.record(where, picked.table.table.id if picked.table is not None else None)


async def group_only(message: Message, replies: Replies, actor: Actor) -> None:
    await _say(replies, message, actor, None, t(actor.lang, "This works in the group where the table is."))


async def migrated(message: Message, people: People) -> None:
    """The group became a supergroup: tables, queues and the league move to the new id."""
    await people.chat_migrated(message.chat.id, message.migrate_to_chat_id)  # type: ignore[arg-type]


async def unknown_button(query: CallbackQuery, actor: Actor) -> None:
    """Garbage or forged callback data: answer politely, change nothing."""
    await _answer_press(query, Answer(t(actor.lang, "This button is not valid any more."), alert=True))


async def dm_status(update: ChatMemberUpdated, people: People) -> None:
    """A user blocked the bot (the groups where they play are told) or unblocked it (their hands come back)."""
    user_id = update.chat.id
    if update.new_chat_member.status in ("kicked", "left"):
        await people.dm_blocked(user_id)
    elif update.new_chat_member.status == "member":
        await people.dm_unblocked(user_id)


async def _say(replies: Replies, message: Message, actor: Actor, where: Where | None, text: str) -> None:
    """An informational reply (help, games, rules): chatter, behind game messages, dropped when stale."""
    if where is not None:
        await replies.say(where, text, chatter=True)
    else:
        await replies.say(Where(message.chat.id, 0, "", actor.lang), text, chatter=True)


def router() -> Router:
    """A fresh router with this module's handlers (one per Dispatcher: a router attaches once)."""
    router = Router(name="help")
    router.message.register(start_deep, CommandStart(deep_link=True))
    router.message.register(start, CommandStart(), F.chat.type == "private")
    router.message.register(help_, Command("help", "start"))
    router.message.register(games, Command("games"))
    router.message.register(rules, Command("rules"))
    router.message.register(score, Command("score"), F.chat.type.in_({"group", "supergroup"}))
    router.message.register(record, Command("record"), F.chat.type.in_({"group", "supergroup"}))
    router.message.register(group_only, Command("score", "record"), F.chat.type == "private")
    router.message.register(migrated, F.migrate_to_chat_id)
    router.callback_query.register(unknown_button)
    router.my_chat_member.register(dm_status, F.chat.type == "private")
    return router
