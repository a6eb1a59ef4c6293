"""/tournament in a group, and the buttons of a tournament's registration message."""

from __future__ import annotations

import logging

from aiogram import F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot.handlers.context import is_admin
from bot.handlers.league import players_named
from bot.handlers.lobby import _answer_press
from bot.services.ports import Replies
from bot.services.types import Actor, Answer, Where
from bot.tournaments.naming import Named
from bot.tournaments.service import Tournaments
from bot.ui.callbacks import Tour, TourOut
from bot.ui.i18n import t

GROUPS = F.chat.type.in_({"group", "supergroup"})
VERBS = ("join", "leave", "start", "cancel", "withdraw")
log = logging.getLogger(__name__)


async def tournament(message: Message, command: CommandObject, tournaments: Tournaments, replies: Replies,
                     actor: Actor, where: Where) -> None:
    """``/tournament`` shows the one here; ``/tournament GAME ...`` opens one (admins); ``join``,
    ``leave``, ``start`` (admins: close registration now), ``cancel`` (admins) act on it, and ``withdraw``
    (its organizer or admins, as a reply to the player's message or naming them) takes a player out."""
    args = (command.args or "").split()
    if not args:
        await tournaments.status(where)
        return
    verb = args[0].lower()
    if verb in VERBS:
        row = await tournaments.here(where)
        if row is None:
            await replies.say(where, t(where.lang, "There is no tournament here. An admin opens one: "
                                                   "/tournament carnival rounds=3"))
            return
        if verb == "withdraw":  # as for cancel: the organizer, else a chat admin (asked only then)
            admin = actor.user_id != row.creator_id and await is_admin(message, actor.user_id)
            await tournaments.ask_withdraw_player(where, actor, admin, _named(message, args[1:]))
            return
        admin = verb in ("start", "cancel") and await is_admin(message, actor.user_id)
        answer = await _act(tournaments, row.id, verb, actor, where.lang, admin)
        if answer.text and (answer.alert or verb == "cancel"):
            await replies.say(where, answer.text)
        return
    if not await is_admin(message, actor.user_id):
        await replies.say(where, t(where.lang, "Only the chat's admins can open a tournament."))
        return
    if any(a.lower() in ("topic=on", "topic=yes", "topic=true", "topic=1") for a in args) and message.chat.is_forum:
        where = await _own_topic(message, where, args[0])
    await tournaments.open(where, actor, args)


def _named(message: Message, rest: list[str]) -> Named:
    """The player ``/tournament withdraw`` names: the replied-to message's author or a mention (the first),
    else the words after the verb (an @username or the name the standings show)."""
    refs = players_named(message)
    if refs:
        return Named(refs[0].user_id, refs[0].text, refs[0].name)
    return Named(text=" ".join(rest))


async def _own_topic(message: Message, where: Where, game: str) -> Where:
    """In a forum, a topic of the tournament's own (the bot needs the right to manage topics; without it
    the tournament stays in the topic where it was opened)."""
    assert message.bot is not None
    try:
        topic = await message.bot.create_forum_topic(message.chat.id, f"🏆 {game}"[:128])
    except TelegramAPIError as exc:
        log.info("tournament topic not created in %s: %s", message.chat.id, exc)
        return where
    return Where(where.chat_id, topic.message_thread_id, where.title, where.lang)


async def _act(tournaments: Tournaments, tid: int, op: str, actor: Actor, lang: str, admin: bool) -> Answer:
    if op == "join":
        return await tournaments.join(tid, actor, lang)
    if op == "leave":
        return await tournaments.leave(tid, actor, lang)
    if op == "start":
        return await tournaments.begin(tid, actor, lang, admin)
    if op == "cancel":
        return await tournaments.cancel(tid, actor, lang, admin)
    return Answer(t(lang, "This button is not valid."), alert=True)


async def button(query: CallbackQuery, callback_data: Tour, tournaments: Tournaments, actor: Actor,
                 where: Where | None) -> None:
    lang = actor.lang
    row = None if where is None else await tournaments.belongs(callback_data.t, where)
    if row is None:  # forged data naming another chat's tournament: act only where the button was pressed
        answer = Answer(t(lang, "This button is not valid."), alert=True)
    elif callback_data.op in ("wd", "stay"):
        message = query.message
        if message is None or not await tournaments.is_prompt(row.id, actor.user_id, message.message_id):
            answer = Answer(t(lang, "This button is not for you."), alert=True)  # someone else's prompt
        elif callback_data.op == "stay":
            await tournaments.close_prompt(message.chat.id, message.message_id)
            answer = Answer()
        else:
            answer = await tournaments.withdraw(row.id, actor, lang, message.message_id)
    else:
        op = callback_data.op
        admin = op in ("start", "cancel") and actor.user_id != row.creator_id and await is_admin(query, actor.user_id)
        answer = await _act(tournaments, row.id, op, actor, lang, admin)
    await _answer_press(query, answer)


async def withdraw_button(query: CallbackQuery, callback_data: TourOut, tournaments: Tournaments, actor: Actor,
                          where: Where | None) -> None:
    """The organizer's prompt to withdraw a player: only its asker's press counts, only on that prompt and
    only for the player it names; rights are checked again (the prompt may be old)."""
    lang = actor.lang
    row = None if where is None else await tournaments.belongs(callback_data.t, where)
    message = query.message
    if row is None or callback_data.op not in ("wd", "stay"):  # forged: another chat's tournament, no such op
        answer = Answer(t(lang, "This button is not valid."), alert=True)
    elif message is None or not await tournaments.is_player_prompt(row.id, actor.user_id, callback_data.u,
                                                                   message.message_id):
        answer = Answer(t(lang, "This button is not for you."), alert=True)
    elif callback_data.op == "stay":
        await tournaments.close_prompt(message.chat.id, message.message_id)
        answer = Answer()
    else:
        admin = actor.user_id != row.creator_id and await is_admin(query, actor.user_id)
        answer = await tournaments.withdraw_player(row.id, actor, callback_data.u, lang, admin, message.message_id)
    await _answer_press(query, answer)


async def group_only(message: Message, replies: Replies, actor: Actor) -> None:
    await replies.say(Where(message.chat.id, 0, "", actor.lang),
                      t(actor.lang, "Tournaments live in group chats: use /tournament there."))


def router() -> Router:
    router = Router(name="tournament")
    router.message.register(tournament, Command("tournament"), GROUPS)
    router.message.register(group_only, Command("tournament"), F.chat.type == "private")
    router.callback_query.register(button, Tour.filter())
    router.callback_query.register(withdraw_button, TourOut.filter())
    return router
