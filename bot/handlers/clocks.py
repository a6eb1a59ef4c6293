"""Clock commands and buttons: /mytables, /hand and /vacation in the DM, /pause /resume /extend in
the group, the lobby's clock keyboard, taking over a lost seat, and time zone / quiet hours."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiogram import F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message

from bot.handlers.context import is_admin
from bot.handlers.here import pick_or_ask
from bot.handlers.lobby import _answer_press
from bot.services.clocks import ClockService
from bot.services.here import TablesHere
from bot.services.lobby import LobbyService
from bot.services.ports import Replies
from bot.services.quiet import parse_hours, prefs_line, zone
from bot.services.types import Actor, Answer, Where
from bot.services.vacation import Vacations
from bot.ui.callbacks import Clk, Hand, TakeSeat
from bot.ui.i18n import t
from bot.ui.keyboards import HAND_LINK, TABLES_LINK, dm_link_keyboard
from bot.ui.words import name

GROUPS = F.chat.type.in_({"group", "supergroup"})
PRIVATE = F.chat.type == "private"


def _dm(message: Message, actor: Actor) -> Where:
    return Where(message.chat.id, 0, "", actor.lang)


async def my_tables(message: Message, clocks: ClockService, replies: Replies, actor: Actor) -> None:
    text, buttons = await clocks.my_tables(actor.user_id, actor.lang)
    markup = InlineKeyboardMarkup(inline_keyboard=[
        [InlineKeyboardButton(text="🃏 " + label, callback_data=Hand(t=table_id).pack())]
        for table_id, label in buttons[:20]]) if buttons else None
    await replies.say(_dm(message, actor), text, markup)


async def hand(message: Message, clocks: ClockService, replies: Replies, actor: Actor) -> None:
    if not await clocks.resend_hand(actor.user_id, None):
        await replies.say(_dm(message, actor), t(actor.lang, "You are not playing at any table now."))


async def in_the_dm(message: Message, command: CommandObject, lobby: LobbyService, replies: Replies, actor: Actor,
                    where: Where) -> None:
    """/hand or /mytables typed in the group: they answer in the DM (only there are one's cards private);
    the button opens the DM and answers there (a deep link: ``/start hand``, ``/start mytables``)."""
    if command.command.lower() == "hand":
        text = t(where.lang, "{who}, your hand is in my DM, where only you see it: /hand works there. "
                             "The button opens it.", who=name(actor.name))
        payload = HAND_LINK
    else:
        text = t(where.lang, "{who}, your tables are listed in my DM: /mytables works there. The button opens it.",
                 who=name(actor.name))
        payload = TABLES_LINK
    await replies.say(where, text, dm_link_keyboard(lobby.bot_username, payload, where.lang))


async def hand_button(query: CallbackQuery, callback_data: Hand, clocks: ClockService, actor: Actor) -> None:
    message = query.message
    if message is None or message.chat.type != "private" or message.chat.id != actor.user_id:
        await _answer_press(query, Answer(t(actor.lang, "This button is not valid."), alert=True))
        return
    sent = await clocks.resend_hand(actor.user_id, callback_data.t)
    await _answer_press(query, Answer() if sent else Answer(t(actor.lang, "You are not playing at this table."),
                                                            alert=True))


async def _group_table(here: TablesHere, replies: Replies, where: Where, arg: str, op: str) -> int | None:
    """The table the command names (``/pause 2``: a tournament's table 2), or the only one here; None when
    answered already (the choice among several, or no table)."""
    picked = await pick_or_ask(here, replies, where, arg, op)
    if picked is None:
        return None
    if picked.table is None:
        await replies.say(where, t(where.lang, "There is no table here. Open one with /new carnival."))
        return None
    return picked.table.table.id


async def pause(message: Message, command: CommandObject, clocks: ClockService, here: TablesHere, replies: Replies,
                actor: Actor, where: Where) -> None:
    await _vote(command, clocks, here, replies, actor, where, True)


async def resume(message: Message, command: CommandObject, clocks: ClockService, here: TablesHere, replies: Replies,
                 actor: Actor, where: Where) -> None:
    await _vote(command, clocks, here, replies, actor, where, False)


async def _vote(command: CommandObject, clocks: ClockService, here: TablesHere, replies: Replies, actor: Actor,
                where: Where, pausing: bool) -> None:
    """A seated player's vote (a majority of the table's seated humans pauses or resumes its clock)."""
    table_id = await _group_table(here, replies, where, command.args or "", "pa" if pausing else "re")
    if table_id is not None:
        answer = await clocks.vote(table_id, actor, pausing, where.lang)
        if answer.alert:
            await replies.say(where, f"{name(actor.name)}: {answer.text}")


async def extend(message: Message, command: CommandObject, clocks: ClockService, here: TablesHere,
                 replies: Replies, actor: Actor, where: Where) -> None:
    """The table's creator (a tournament's table: the organizer) gives the move one more period, once."""
    table_id = await _group_table(here, replies, where, command.args or "", "ex")
    if table_id is not None:
        answer = await clocks.extend(table_id, actor, where.lang)
        if answer.alert:
            await replies.say(where, f"{name(actor.name)}: {answer.text}")


async def clock_button(query: CallbackQuery, callback_data: Clk, clocks: ClockService, lobby: LobbyService,
                       actor: Actor,
                       where: Where | None) -> None:
    async def act() -> Answer:  # Telegram is asked about rights only for a table of this chat
        admin = callback_data.k in ("pm", "bk", "st", "ab") and await is_admin(query, actor.user_id)
        return await clocks.lobby_clock(callback_data.t, actor, actor.lang, callback_data.k, admin)

    await _here_press(query, callback_data.t, lobby, actor, where, act)


async def take_seat(query: CallbackQuery, callback_data: TakeSeat, clocks: ClockService, lobby: LobbyService,
                    actor: Actor,
                    where: Where | None) -> None:
    await _here_press(query, callback_data.t, lobby, actor, where,
                      lambda: clocks.take_seat(callback_data.t, callback_data.s, actor, actor.lang))


async def _here_press(query: CallbackQuery, table_id: int, lobby: LobbyService, actor: Actor, where: Where | None,
                      act: Callable[[], Awaitable[Answer]]) -> None:
    """A group button of a table: ``act`` only when the table lives in the chat (and topic) it was pressed in
    (forged data naming another chat's table is refused); the press answered."""
    if where is None or not await lobby.table_is_here(table_id, where):
        answer = Answer(t(actor.lang, "This button is not valid."), alert=True)
    else:
        answer = await act()
    await _answer_press(query, answer)


async def time_settings(message: Message, command: CommandObject, clocks: ClockService, replies: Replies,
                        actor: Actor) -> None:
    """``/settings tz Europe/Moscow``, ``/settings quiet 23-8`` or ``/settings quiet off`` in the DM."""
    lang = actor.lang
    words = (command.args or "").split()
    prefs = await clocks.prefs(actor.user_id)
    if len(words) == 2 and words[0].lower() == "tz":
        if zone(words[1]) is None:
            text = t(lang, "I don't know that time zone. Write it like Europe/Moscow or +03:00.")
        else:
            prefs.tz = words[1]
            await clocks.save_prefs(actor.user_id, prefs)
            text = t(lang, "Time zone set: {tz}", tz=name(words[1]))
    elif len(words) == 2 and words[0].lower() == "quiet":
        hours = None if words[1].lower() == "off" else parse_hours(words[1])
        if hours is None and words[1].lower() != "off":
            text = t(lang, "Write quiet hours like 23-8 or 22:30-07:00, or off.")
        else:
            prefs.quiet_from, prefs.quiet_to = hours if hours else (None, None)
            await clocks.save_prefs(actor.user_id, prefs)
            text = t(lang, "Quiet hours set.") if hours else t(lang, "Quiet hours off.")
    else:
        text = t(lang, "Use /settings tz Europe/Moscow and /settings quiet 23-8 (or off).")
    await replies.say(_dm(message, actor), text + "\n" + prefs_line(prefs, lang))


async def vacation(message: Message, command: CommandObject, vacations: Vacations | None, replies: Replies,
                   actor: Actor) -> None:
    """``/vacation`` (days left), ``/vacation 3`` (go away: the clocks stop), ``/vacation off`` (back)."""
    lang = actor.lang
    arg = (command.args or "").strip().lower()
    if vacations is None:
        text = t(lang, "This bot runs without clocks.")
    elif not arg:
        text = await vacations.status(actor.user_id, lang)
    elif arg == "off":
        text = await vacations.end(actor.user_id, lang)
    elif arg.isascii() and arg.isdigit() and len(arg) <= 3:
        text = await vacations.start(actor.user_id, int(arg), lang)
    else:
        text = t(lang, "Write the number of days, like /vacation 3.")
    await replies.say(_dm(message, actor), text)


async def vacation_in_group(message: Message, replies: Replies, actor: Actor, where: Where) -> None:
    await replies.say(where, t(where.lang, "Vacations are set in our private chat: send me /vacation there."))


def router() -> Router:
    """A fresh router with this module's handlers (one per Dispatcher: a router attaches once)."""
    router = Router(name="clocks")
    router.message.register(my_tables, Command("mytables"), PRIVATE)
    router.message.register(hand, Command("hand"), PRIVATE)
    router.message.register(vacation, Command("vacation"), PRIVATE)
    router.message.register(vacation_in_group, Command("vacation"), GROUPS)
    router.message.register(in_the_dm, Command("hand", "mytables"), GROUPS)
    router.message.register(time_settings, Command("settings"), PRIVATE, F.text.regexp(r"^/settings(@\w+)?\s+\S"))
    router.message.register(pause, Command("pause"), GROUPS)
    router.message.register(resume, Command("resume"), GROUPS)
    router.message.register(extend, Command("extend"), GROUPS)
    router.callback_query.register(hand_button, Hand.filter())
    router.callback_query.register(clock_button, Clk.filter())
    router.callback_query.register(take_seat, TakeSeat.filter())
    return router
