"""Clock effects on tables: the turn's deadline after every move, reminders (respecting quiet hours),
the move at the deadline, the N-strikes hand-over, the pause/resume vote and the creator's one
extension. ``Deadlines`` (bot/services/deadlines.py) decides when; this module decides what.

Every effect runs in one transaction with the clock row it consumes (so an event never fires twice),
under the table's lock (so it never races a move)."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from bot.services import handover
from bot.services import outbox as out
from bot.services.ai_move import deadline_move
from bot.services.clock_lines import clock_ui
from bot.services.core import TableCore
from bot.services.deadlines import Clock, Deadlines
from bot.services.hands import in_group
from bot.services.hands.resend import resend_hand
from bot.services.ports import HandPublisher, LobbyShow, Mover
from bot.services.presence import is_paused
from bot.services.quiet import quiet_until
from bot.services.timecontrol import (
    ABSENT,
    BANKS,
    PER_MOVE,
    STRIKES,
    begin_turn,
    cycle,
    end_turn,
    next_due,
    reminder_times,
)
from bot.services.types import Actor, Answer
from bot.store.contract import StoreTx as Tx
from bot.store.rows import ClockRow, Prefs, SeatRow, TableRow
from bot.ui import words
from bot.ui.clock_words import span
from bot.ui.i18n import t
from bot.ui.names import plain_name
from engine.core import State

log = logging.getLogger(__name__)
LATE = 120.0  # the default of KOZYR_PAUSED_AFTER: seconds a deadline may be handled late before the bot
# counts as having been paused
SELF_MOVED = "self_moved"  # TableUi.extra: the seats that made a move themselves (not at a deadline)


def mention(user_id: int | None, raw_name: str) -> str:
    """An HTML mention by user id (it notifies without a username); the name escaped and neutralised."""
    shown = words.name(raw_name)
    if user_id is None:
        return shown
    return f'<a href="tg://user?id={int(user_id)}">{shown}</a>'


def _copy(c: ClockRow) -> ClockRow:
    """A copy whose dicts and lists (of numbers) are its own: ``copy.deepcopy`` at a tenth of its CPU, every move."""
    own: dict[str, Any] = {f.name: type(v)(v) for f in dataclasses.fields(c)
                           if isinstance(v := getattr(c, f.name), (dict, list))}
    return dataclasses.replace(c, **own)


class ClockService:
    """Clocks of every table. Moves call ``moved`` (through the root's plug, bot/app.py); the clocks
    play a move at a deadline (``play``), redraw the lobby (``lobby``) and send hands (``publisher``)."""

    def __init__(self, core: TableCore, play: Mover, lobby: LobbyShow, publisher: HandPublisher,
                 clock: Clock | None = None, default_per_move: float = 86400.0, paused_after: float = LATE) -> None:
        self.core = core
        self.play = play
        self.lobby = lobby
        self.publisher = publisher
        self.store = core.store
        self.clock = clock or Clock()
        self.default_per_move = default_per_move
        self.paused_after = paused_after  # a deadline handled later than this fell while the bot was stopped
        self.scheduler = Deadlines(self.store, self.clock, self.fire)
        self._by_deadline: set[int] = set()

    def now(self) -> float:
        return self.clock.now()

    async def start(self) -> None:
        """Give tables in play from before clocks existed their first deadline, then start the scheduler."""
        async with self.store.read() as tx:
            missing = await tx.playing_without_clock()
        for table_id in missing:
            async with self.core.lock(table_id), self.store.transaction() as tx:
                loaded = await self.core.load(tx, table_id)
                if loaded is not None and loaded.row.status == "playing":
                    await self.moved(tx, loaded.row, loaded.seats, self.core.state(loaded.row))
                    await tx.save_table(loaded.row, touch=False)
        self.scheduler.start()

    async def stop(self) -> None:
        await self.scheduler.stop()

    # -- the clock row -----------------------------------------------------------------
    async def row(self, tx: Tx, table_id: int) -> ClockRow:
        return await tx.clock(table_id) or ClockRow(table_id, self.default_per_move)

    async def moved(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: State) -> None:
        """After a move (or the start), in its transaction: close the turn that ran, open the next one
        if a human is to act, and store the deadline."""
        stored = await tx.clock(row.id)
        c = _copy(stored) if stored is not None else ClockRow(row.id, self.default_per_move)
        now = self.clock.now()
        mover = c.turn_seat
        end_turn(c, now)
        if mover is not None and row.id not in self._by_deadline:
            c.missed.pop(str(mover), None)  # N strikes count deadlines missed in a row
            moved = row.ui.extra.setdefault(SELF_MOVED, [])
            if mover not in moved:  # a tournament withdraws who never moved at a whole table
                moved.append(mover)
        to_act = state.to_act
        if row.status == "playing" and not state.over and to_act is not None and not seats[to_act].is_ai \
                and not handover.on_autopilot(row, to_act):
            # A player on vacation: the turn's clock starts when they are back (bot/services/vacation.py).
            user = seats[to_act].user_id
            away = await tx.away(user) if user is not None else None
            begin_turn(c, to_act, row.version, max(now, away[1]) if away else now)
        row.ui.clock = clock_ui(c)
        if c != stored:  # an AI move between two AI moves changes nothing: no write
            await tx.save_clock(c)
        if c.due is not None:
            self.scheduler.nudge(c.due)

    # -- the lobby ------------------------------------------------------------------------
    async def lobby_cycle(self, tx: Tx, row: TableRow, key: str) -> bool:
        """Step one clock setting of a lobby table to its next value; False for an unknown key."""
        c = await self.row(tx, row.id)
        if key == "pm":
            c.per_move = float(cycle(PER_MOVE, c.per_move))  # type: ignore[arg-type]
        elif key == "bk":
            c.bank = float(cycle(BANKS, c.bank))  # type: ignore[arg-type]
        elif key == "st":
            c.strikes = int(cycle(STRIKES, c.strikes))  # type: ignore[call-overload]
        elif key == "ab":
            c.absent = str(cycle(ABSENT, c.absent))
        else:
            return False
        row.ui.clock = clock_ui(c)
        await tx.save_clock(c)
        return True

    async def lobby_clock(self, table_id: int, actor: Actor, lang: str, key: str, is_admin: bool) -> Answer:
        """The lobby's clock keyboard: open it, step a setting (the creator or an admin), or go back."""
        async with self.core.lock(table_id), self.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None or loaded.row.status != "lobby":
                return Answer(t(lang, "This table has already started."), alert=True)
            row = loaded.row
            if key in ("pm", "bk", "st", "ab"):
                if actor.user_id != row.creator_id and not is_admin:
                    return Answer(t(lang, "Only the table's creator or an admin can change the clock."), alert=True)
                await self.lobby_cycle(tx, row, key)
            elif key not in ("open", "back"):
                return Answer(t(lang, "This button is not valid."), alert=True)
            if row.ui.clock is None:
                row.ui.clock = clock_ui(await self.row(tx, table_id))
            row.ui.lobby_mode = "main" if key == "back" else "clock"
            row.version += 1
            await tx.save_table(row)
            await self.lobby.show(tx, row, loaded.seats, await tx.chat_lang(row.chat_id))
        self.core.outbox.wake()
        return Answer()

    # -- the scheduler's callback -----------------------------------------------------------
    async def fire(self, table_id: int) -> None:
        """The table's next clock event has come: a reminder, or the deadline."""
        async with self.core.lock(table_id):
            async with self.store.transaction() as tx:
                c = await tx.clock(table_id)
                now = self.clock.now()
                if c is None or c.due is None or c.due > now:
                    return  # handled already (the event was marked in its own transaction)
                loaded = await self.core.load(tx, table_id)
                if loaded is None or loaded.row.status != "playing":
                    end_turn(c, now)
                    await tx.save_clock(c)
                    return
                row, seats = loaded.row, loaded.seats
                state = self.core.state(row)
                turn_seat = c.turn_seat
                if c.turn_version != row.version or turn_seat is None or turn_seat != state.to_act \
                        or c.deadline is None:
                    await self.moved(tx, row, seats, state)  # out of step (should not happen): plan afresh
                    await tx.save_table(row, touch=False)
                    return
                if is_paused(row):  # the bot is not in the group: nobody can be blamed; the turn starts over
                    begin_turn(c, turn_seat, row.version, now)
                    await tx.save_clock(c)
                    return
                if now >= c.deadline:
                    await self._deadline(tx, c, row, seats, state, now)
                    played = True
                else:
                    await self._remind(tx, c, row, seats[turn_seat], now)
                    played = False
        self.core.outbox.wake()
        if played:
            self.play.schedule_ai(table_id)

    async def _remind(self, tx: Tx, c: ClockRow, row: TableRow, seat: SeatRow, now: float) -> None:
        """Half time or 10% left: a NEW DM (edits do not notify), unless the player's quiet hours say
        wait; a reminder that would come after the next one is skipped."""
        half, near = reminder_times(c)
        assert c.deadline is not None
        target = 2 if now >= near else 1
        limit = c.deadline if target == 2 else near
        if seat.user_id is not None:
            prefs = await tx.prefs(seat.user_id)
            allowed = quiet_until(now, prefs.tz, prefs.quiet_from, prefs.quiet_to)
            if allowed > now:
                if allowed < limit:
                    c.due = allowed  # after the quiet hours
                else:
                    c.stage = target
                    c.due = next_due(c)
                await tx.save_clock(c)
                return
            lang = await tx.user_lang(seat.user_id)
            chat = await tx.chat_title(row.chat_id)
            await out.send_text(tx, seat.user_id, "⏰ " + t(
                lang, "Your move is waiting at {table} in {chat}: {left} left.",
                table=words.title(row.game, lang), chat=words.name(chat or "?"),
                left=span(c.deadline - now, lang)))
        c.stage = target
        c.due = next_due(c)
        await tx.save_clock(c)

    async def _deadline(self, tx: Tx, c: ClockRow, row: TableRow, seats: list[SeatRow], state: State,
                        now: float) -> None:
        """Time is up: the AI moves for the player (said in the group, with a mention); the N-th
        deadline missed in a row hands the seat over."""
        seat_no = c.turn_seat
        assert seat_no is not None and c.deadline is not None
        seat = seats[seat_no]
        lang = await tx.chat_lang(row.chat_id)
        catch_up = c.deadline < self.clock.started
        # Nobody is to blame for a deadline that fell while the bot was down (before this process
        # started) or paused (the scheduler woke long after it: a stopped process, a suspended host).
        forgiven = catch_up or now - c.deadline > self.paused_after
        action, by_ai = deadline_move(state, seat_no, row.seed ^ row.version)
        who = mention(seat.user_id, seat.name)
        if by_ai:
            line = t(lang, "{who} ran out of time: the AI played for them.", who=who)
        else:
            line = t(lang, "{who} ran out of time: a random move was played for them (no AI yet).", who=who)
        if forgiven:
            line += " " + t(lang, "(The time ran out while I was down: one move is played now; it is no strike.)")
        await out.send_text(tx, row.chat_id, "⏰ " + line, thread_id=row.thread_id)
        missed = int(c.missed.get(str(seat_no), 0)) + (0 if forgiven else 1)
        self._by_deadline.add(row.id)
        try:
            await self.play.apply(tx, row, seats, state, seat_no, action)
        finally:
            self._by_deadline.discard(row.id)
        fresh = await self.row(tx, row.id)
        fresh.missed[str(seat_no)] = missed
        if c.strikes and missed >= c.strikes and row.status == "playing":
            await handover.hand_to_ai(tx, row, seats, seat_no, c.absent, lang)
            fresh.votes = [v for v in fresh.votes if v != seats[seat_no].user_id]  # the vote was the seat's
            if fresh.turn_seat == seat_no:
                end_turn(fresh, now)
            row.ui.clock = clock_ui(fresh)
            await tx.save_table(row, touch=False)
        await tx.save_clock(fresh)

    # -- pause, resume, extend ------------------------------------------------------------------
    async def vote(self, table_id: int, actor: Actor, pause: bool, lang: str) -> Answer:
        """A seated human's vote to pause (or resume) the table's clock; a majority of the seated
        humans decides."""
        async with self.core.lock(table_id), self.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None or loaded.row.status != "playing":
                return Answer(t(lang, "This game is not running."), alert=True)
            row, seats = loaded.row, loaded.seats
            voters = [s.user_id for s in seats if s.user_id is not None and not handover.on_autopilot(row, s.seat)]
            if actor.user_id not in voters:
                return Answer(t(lang, "You are not playing at this table."), alert=True)
            c = await self.row(tx, table_id)
            if c.paused == pause:
                return Answer(t(lang, "The clock is already paused.") if pause else
                              t(lang, "The clock is already running."), alert=True)
            c.votes = [v for v in c.votes if v in voters]  # only the players seated now count
            if actor.user_id not in c.votes:
                c.votes.append(actor.user_id)
            need = len(voters) // 2 + 1
            chat_lang = await tx.chat_lang(row.chat_id)
            now = self.clock.now()
            if len(c.votes) >= need:
                c.votes = []
                if pause:
                    c.paused = True
                    if c.deadline is not None:
                        c.time_left, c.deadline, c.due = max(0.0, c.deadline - now), None, None
                    line = t(chat_lang, "⏸ The clock is paused by vote. /resume to vote it running again.")
                else:
                    c.paused = False
                    if c.time_left is not None and c.turn_start is not None and c.turn_seat is not None:
                        total = c.per_move + float(c.banks.get(str(c.turn_seat), c.bank))
                        c.deadline = now + c.time_left
                        c.turn_start = c.deadline - total
                        c.time_left = None
                        c.due = next_due(c)
                    line = t(chat_lang, "▶️ The clock runs again.")
            else:
                line = (t(chat_lang, "{who} votes to pause the clock ({n} of {need}).", who=words.name(actor.name),
                          n=len(c.votes), need=need) if pause else
                        t(chat_lang, "{who} votes to resume the clock ({n} of {need}).", who=words.name(actor.name),
                          n=len(c.votes), need=need))
            row.ui.clock = clock_ui(c)
            await tx.save_table(row, touch=False)
            await tx.save_clock(c)
            await out.send_text(tx, row.chat_id, line, thread_id=row.thread_id)
        if c.due is not None:
            self.scheduler.nudge(c.due)
        self.core.outbox.wake()
        return Answer(t(lang, "Vote counted."))

    async def extend(self, table_id: int, actor: Actor, lang: str) -> Answer:
        """The creator gives the player to act one more period, once per turn."""
        async with self.core.lock(table_id), self.store.transaction() as tx:
            row = await tx.table(table_id)
            if row is None or row.status != "playing":
                return Answer(t(lang, "This game is not running."), alert=True)
            if actor.user_id != row.creator_id:
                return Answer(t(lang, "Only the table's creator can extend the time."), alert=True)
            c = await self.row(tx, table_id)
            if c.turn_seat is None or c.per_move <= 0:
                return Answer(t(lang, "No clock is running now."), alert=True)
            if c.extended == c.turn_version:
                return Answer(t(lang, "This move was already extended once."), alert=True)
            c.extended = c.turn_version
            if c.paused and c.time_left is not None:
                c.time_left += c.per_move
            elif c.deadline is not None:
                c.deadline += c.per_move
                c.due = next_due(c)
            row.ui.clock = clock_ui(c)
            await tx.save_table(row, touch=False)
            await tx.save_clock(c)
            chat_lang = await tx.chat_lang(row.chat_id)
            await out.send_text(tx, row.chat_id, "⏳ " + t(chat_lang, "The creator gave this move {time} more.",
                                                          time=span(c.per_move, chat_lang)), thread_id=row.thread_id)
        if c.due is not None:
            self.scheduler.nudge(c.due)
        self.core.outbox.wake()
        return Answer(t(lang, "Extended."))

    async def take_seat(self, table_id: int, seat_no: int, actor: Actor, lang: str) -> Answer:
        """Someone not seated takes over a seat its player lost (``absent=replace``)."""
        if not actor.started:
            return Answer(t(lang, "Open the bot first, then you are seated."), alert=True)
        async with self.core.lock(table_id), self.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None or loaded.row.status != "playing":
                return Answer(t(lang, "This game is not running."), alert=True)
            row, seats = loaded.row, loaded.seats
            c = await self.row(tx, table_id)
            if c.absent != "replace" or not handover.on_autopilot(row, seat_no) or not 0 <= seat_no < len(seats):
                return Answer(t(lang, "This seat is not free."), alert=True)
            if any(s.user_id == actor.user_id for s in seats):
                return Answer(t(lang, "You are already at this table."), alert=True)
            old = seats[seat_no].name
            gone = seats[seat_no].user_id
            if gone is not None:  # the lost player's hand messages must never show the new one's cards
                await handover.retire_hands(tx, row, seat_no, gone)
            seats[seat_no] = SeatRow(seat_no, actor.user_id, actor.name)
            await tx.set_seats(row.id, seats)
            await in_group.seat_changed(tx, row, seat_no, gone, self.core.outbox.ephemeral)
            row.ui.autopilot = [s for s in row.ui.autopilot if s != seat_no]
            c.missed.pop(str(seat_no), None)
            c.votes = [v for v in c.votes if v != gone]  # the lost player's vote went with the seat
            await tx.save_clock(c)
            row.version += 1  # every keyboard of the old version is stale now
            state = self.core.state(row)
            await self.moved(tx, row, seats, state)
            chat_lang = await tx.chat_lang(row.chat_id)
            await out.send_text(tx, row.chat_id, "🙋 " + t(chat_lang, "{who} takes the seat of {old}.",
                                                          who=words.name(actor.name), old=words.name(old)),
                                thread_id=row.thread_id)
            names = [s.name for s in seats]
            await self.publisher.hand_message(tx, row, seats[seat_no], state, names, live=state.to_act == seat_no,
                                              new=True)
            to_act = state.to_act
            if to_act is not None and to_act != seat_no and not seats[to_act].is_ai:  # a keyboard of the new version
                await self.publisher.hand_message(tx, row, seats[to_act], state, names, live=True)
            await tx.save_table(row)  # after the hand messages: they note what they showed in the row
            self.core.remember(row, state)
        self.core.outbox.wake()
        return Answer(t(lang, "You are in."))

    # -- time zone and quiet hours (/settings) ---------------------------------------------------
    async def prefs(self, user_id: int) -> Prefs:
        async with self.store.read() as tx:
            return await tx.prefs(user_id)

    async def save_prefs(self, user_id: int, prefs: Prefs) -> None:
        async with self.store.transaction() as tx:
            await tx.save_prefs(user_id, prefs)

    # -- the player's DM: /mytables and /hand -------------------------------------------------
    async def my_tables(self, user_id: int, lang: str) -> tuple[str, list[tuple[int, str]]]:
        """The text of /mytables and one (table id, button label) per table; the tables where it is
        the player's turn first, then by the nearest deadline."""
        now = self.clock.now()
        async with self.store.read() as tx:
            rows = await tx.tables_of_user(user_id)
            found = []
            for row in rows:
                seats = await tx.seats(row.id)
                chat = await tx.chat_title(row.chat_id)
                state = self.core.state(row)
                found.append((row, seats, chat, state.to_act))
            clocks = await tx.clocks_of( [r.id for r, *_ in found])
        if not found:
            return t(lang, "You are not playing at any table now."), []
        entries = []
        for row, seats, chat, to_act in found:
            mine = to_act is not None and seats[to_act].user_id == user_id
            c = clocks.get(row.id)
            deadline = c.deadline if c else None
            who = t(lang, "your turn") if mine else (
                words.name(seats[to_act].name) if to_act is not None else "—")
            if c is not None and c.paused:
                left = t(lang, "paused")
            elif deadline is not None:
                left = t(lang, "{time} left", time=span(deadline - now, lang))
            else:
                left = t(lang, "no clock")
            place = f"<b>{words.title(row.game, lang)}</b> — {words.name(chat or '?')}"
            line = f"{'👉' if mine else '•'} {place}: {who}, {left}"
            label = f"{'👉 ' if mine else ''}{words.title(row.game, lang)} · {plain_name(chat or '?')}"[:60]
            entries.append((not mine, deadline if deadline is not None else float("inf"), row.id, line, label))
        entries.sort(key=lambda e: (e[0], e[1], e[2]))
        text = "\n".join([t(lang, "Your tables:")] + [e[3] for e in entries])
        return text, [(e[2], e[4]) for e in entries]

    async def resend_hand(self, user_id: int, table_id: int | None) -> int:
        """Send the player's hand again as a new message (at one table, or at each table where it is
        their turn, or every table); the old message's keyboard is taken off. Returns how many."""
        async with self.store.read() as tx:
            rows = await tx.tables_of_user(user_id)
        ids = [r.id for r in rows if table_id is None or r.id == table_id]
        if table_id is None:
            mine = []
            for r in rows:
                to_act = self.core.state(r).to_act
                async with self.store.read() as tx:
                    seats = await tx.seats(r.id)
                if to_act is not None and seats[to_act].user_id == user_id:
                    mine.append(r.id)
            ids = mine or ids
        sent = 0
        for tid in ids:
            async with self.core.lock(tid), self.store.transaction() as tx:
                loaded = await self.core.load(tx, tid)
                if loaded is None or loaded.row.status != "playing":
                    continue
                seat = next((s for s in loaded.seats if s.user_id == user_id), None)
                if seat is None:
                    continue
                await resend_hand(tx, self.core, self.publisher, loaded, seat)
                sent += 1
        if sent:
            self.core.outbox.wake()
        return sent
