"""Leaving a game that has started: the seat goes to an AI player, so nobody is stuck waiting.

``/leave`` mid-game asks the player to confirm (a button in the group); the table's creator or a chat
admin may hand an absent player's seat over the same way (``/leave 2``: the seat number, or a name).
The group is told, the leaver's hand message loses its keyboard, and the AI moves if it is its turn.
"""

from __future__ import annotations

from bot.services import outbox as out
from bot.services.core import TableCore
from bot.services.handover import drop_vote
from bot.services.hands import in_group
from bot.services.lobby import AI_NAMES
from bot.services.ports import AiScheduler, HandPublisher
from bot.services.slots import hand_slot, leave_prompt_slot
from bot.services.types import Actor, Answer, Where
from bot.store.contract import StoreTx as Tx
from bot.store.rows import SeatRow, TableRow
from bot.ui import words
from bot.ui.bounds import parse_id
from bot.ui.i18n import t
from bot.ui.keyboards import leave_keyboard, take_seat_keyboard


def ai_name(taken: set[str]) -> str:
    return next(n for n in AI_NAMES + tuple(f"🤖 AI {i}" for i in range(99)) if n not in taken)


def find_seat(seats: list[SeatRow], arg: str) -> int | None:
    """A seat named by its number (1-based) or by a player's name (case-insensitive, exact)."""
    arg = arg.strip()
    if arg.isdigit():  # "²" is a digit too, but no number: parse_id refuses it (and 20-digit ones)
        number = parse_id(arg)
        seat = -1 if number is None else number - 1
        return seat if 0 <= seat < len(seats) else None
    folded = arg.casefold().lstrip("@")
    return next((s.seat for s in seats if s.name.casefold() == folded), None)


class SeatService:
    """Handing a seat in play to an AI player, and someone from the group taking it back."""

    def __init__(self, core: TableCore, publisher: HandPublisher, play: AiScheduler, bot_username: str) -> None:
        self.core = core
        self.publisher = publisher
        self.play = play
        self.bot_username = bot_username

    async def ask_leave(self, where: Where, actor: Actor, arg: str, is_admin: bool) -> bool:
        """Ask to confirm handing a seat to an AI; False when no game is running here (the lobby's
        /leave applies then)."""
        lang = where.lang
        async with self.core.store.read() as tx:
            row = await tx.open_table(where.chat_id, where.thread_id)
            seats = await tx.seats(row.id) if row is not None else []
        if row is None or row.status != "playing":
            return False
        if arg:
            seat = find_seat(seats, arg)
            if seat is None or seats[seat].is_ai:
                await self.core.say(where, t(lang, "There is no such player at this table: {who}.",
                                        who=words.name(arg[:64])))
                return True
            if seats[seat].user_id != actor.user_id and actor.user_id != row.creator_id and not is_admin:
                await self.core.say(where, t(lang, "Only the table's creator or an admin can hand another player's "
                                              "seat to an AI."))
                return True
        else:
            seat = next((s.seat for s in seats if s.user_id == actor.user_id), None)
            if seat is None:
                await self.core.say(where, t(lang, "You are not at this table."))
                return True
        who = words.name(seats[seat].name)
        async with self.core.store.transaction() as tx:  # the prompt's slot: whose it is (``is_prompt``)
            await out.send_text(tx, where.chat_id, t(lang, "{who}: leave the game? An AI player takes the seat and "
                                                           "plays on.", who=who),
                                leave_keyboard(row.id, seat, lang), slot=leave_prompt_slot(row.id, seat, actor.user_id),
                                thread_id=where.thread_id, priority=out.REPLY)
        self.core.outbox.wake()
        return True

    async def is_prompt(self, table_id: int, seat: int, user_id: int, message_id: int) -> bool:
        """Whether ``message_id`` is the leave prompt ``user_id`` asked for about this seat (its buttons are
        theirs alone: a press on another message, or by someone else, changes nothing)."""
        async with self.core.store.read() as tx:
            return await tx.slot_message(leave_prompt_slot(table_id, seat, user_id)) == message_id

    async def confirm_leave(self, table_id: int, seat: int, actor: Actor, lang: str, is_admin: bool,
                            chat_id: int, prompt_id: int | None, offer: bool = False) -> Answer:
        """The confirmation press: checked against the chat it came from, the seat and the presser's rights."""
        async with self.core.lock(table_id), self.core.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None or loaded.row.chat_id != chat_id:
                return Answer(t(lang, "This button is not valid any more."), alert=True)
            row, seats = loaded.row, loaded.seats
            if row.status != "playing" or not 0 <= seat < len(seats) or seats[seat].is_ai:
                return Answer(t(lang, "This button is not valid any more."), alert=True)
            leaver = seats[seat]
            if leaver.user_id != actor.user_id and actor.user_id != row.creator_id and not is_admin:
                return Answer(t(lang, "Only the player, the table's creator or an admin can do this."), alert=True)
            if prompt_id is not None:  # the question is answered: its buttons go
                await tx.enqueue(chat_id, "clear_markup", {"message_id": prompt_id}, priority=out.REPLY)
            await self._hand_over(tx, row, seats, seat, offer)
        self.core.outbox.wake()
        self.play.schedule_ai(table_id)
        return Answer(t(lang, "Done: an AI player took the seat."))

    async def quit_seat(self, table_id: int, user_id: int) -> bool:
        """Hand ``user_id``'s seat at this table to an AI for good: a tournament's withdrawal decided it (the
        player's own, the organizer's, or the no-move rule), so no rights are checked here. False when they do
        not play there."""
        async with self.core.lock(table_id), self.core.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None or loaded.row.status != "playing":
                return False
            seat = next((s.seat for s in loaded.seats if s.user_id == user_id), None)
            if seat is None:
                return False
            await self._hand_over(tx, loaded.row, loaded.seats, seat, False)
        self.core.outbox.wake()
        self.play.schedule_ai(table_id)
        return True

    async def _hand_over(self, tx: Tx, row: TableRow, seats: list[SeatRow], seat: int, offer: bool) -> None:
        """An AI takes the seat (in the caller's transaction): the leaver's hand message says so, the group
        is told, and with ``offer`` someone from the group may take the seat later."""
        leaver = seats[seat]
        name = ai_name({s.name for s in seats})
        chat_lang = await tx.chat_lang(row.chat_id)
        assert leaver.user_id is not None
        user_lang = await tx.user_lang(leaver.user_id)
        await out.edit_text(tx, leaver.user_id, hand_slot(row, seat),
                            t(user_lang, "You left the game at {chat}; {ai} plays your seat.",
                              chat=words.name(await tx.chat_title(row.chat_id)), ai=words.name(name)),
                            None, priority=out.REPLY)
        seats[seat] = SeatRow(seat, None, name)
        await tx.set_seats(row.id, seats)
        await in_group.seat_changed(tx, row, seat, leaver.user_id, self.core.outbox.ephemeral)
        await drop_vote(tx, row.id, leaver.user_id)
        row.version += 1  # every keyboard of the old version is stale now
        await tx.save_table(row)
        await out.log_line(tx, row.chat_id, "🚪 " + t(chat_lang, "{who} left the game; {ai} plays the seat.",
                                                     who=words.name(leaver.name), ai=words.name(name)),
                           row.thread_id)
        if offer:  # the AI plays the seat until someone from the group takes it
            row.ui.offered.append(seat)
            await out.send_text(tx, row.chat_id, t(chat_lang, "{ai} plays the seat of {who} until someone takes "
                                                             "it: press the button to play on from here.",
                                                   ai=words.name(name), who=words.name(leaver.name)),
                                take_seat_keyboard(row.id, seat, chat_lang), slot=f"offer:{row.id}:{seat}",
                                thread_id=row.thread_id)
            await tx.save_table(row, touch=False)
        await self._after_seat_change(tx, row, seats)

    async def take_seat(self, table_id: int, seat: int, actor: Actor, lang: str, chat_id: int) -> Answer:
        """Someone from the group takes a seat that was offered: they play it on from now."""
        async with self.core.lock(table_id), self.core.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None or loaded.row.chat_id != chat_id or loaded.row.status != "playing":
                return Answer(t(lang, "This button is not valid any more."), alert=True)
            row, seats = loaded.row, loaded.seats
            offered = row.ui.offered
            if seat not in offered or not 0 <= seat < len(seats) or not seats[seat].is_ai:
                return Answer(t(lang, "This seat is taken."), alert=True)
            if any(s.user_id == actor.user_id for s in seats):
                return Answer(t(lang, "You are already at this table."), alert=True)
            if not actor.started:
                return Answer(t(lang, "Open the bot first, then you are seated."),
                              url=f"https://t.me/{self.bot_username}?start=x")
            ai = seats[seat].name
            seats[seat] = SeatRow(seat, actor.user_id, actor.name)
            await tx.set_seats(row.id, seats)
            await in_group.seat_changed(tx, row, seat, None, self.core.outbox.ephemeral)  # the AI's: none on screen
            offered.remove(seat)
            row.version += 1
            chat_lang = await tx.chat_lang(row.chat_id)
            await out.edit_text(tx, row.chat_id, f"offer:{row.id}:{seat}",
                                "✋ " + t(chat_lang, "{who} takes the seat of {ai}.", who=words.name(actor.name),
                                         ai=words.name(ai)), None, thread_id=row.thread_id, priority=out.GAME)
            state = self.core.state(row)
            numbers = row.ui.hand_n
            numbers[str(seat)] = numbers.get(str(seat), -1) + 1  # a fresh hand message for the new player
            await self.publisher.hand_message(tx, row, seats[seat], state, [s.name for s in seats],
                                     live=state.to_act == seat, new=True)
            await tx.save_table(row)
            await self._after_seat_change(tx, row, seats, skip=seat)
        self.core.outbox.wake()
        return Answer(t(lang, "You are in."))

    async def _after_seat_change(self, tx: Tx, row: TableRow, seats: list[SeatRow], skip: int | None = None) -> None:
        """The version moved on: the player to act needs a keyboard of the new version."""
        state = self.core.state(row)
        to_act = state.to_act
        if to_act is not None and to_act != skip and not seats[to_act].is_ai:
            await self.publisher.hand_message(tx, row, seats[to_act], state, [s.name for s in seats], live=True)
        self.core.remember(row, state)

    async def close_prompt(self, chat_id: int, message_id: int) -> None:
        """The question is answered ('No, stay', a language chosen): its buttons go away."""
        async with self.core.store.transaction() as tx:
            await tx.enqueue(chat_id, "clear_markup", {"message_id": message_id}, priority=out.REPLY)
        self.core.outbox.wake()
