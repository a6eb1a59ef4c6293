"""The application layer for tables: moves, AI seats and turn timers (with the lobby, publishing
and reports mixed in from their own modules).

Every change is one SQLite transaction: the action log, the version bump, the engine
snapshot and the outgoing messages commit together. The engine decides every rule; this
module only checks who may press what (seat, turn, version) and asks the engine.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import games
from bot.league.matches import record_finished
from bot.services import events as game_log
from bot.services import outbox as out
from bot.services.ai_seats import AiSeats
from bot.services.capture import CaptureBuilder
from bot.services.handover import on_autopilot
from bot.services.hints import Hints
from bot.services.lobby import LobbyService
from bot.services.outbox import Outbox
from bot.services.pictures import Pictures
from bot.services.presence import PresenceService, is_paused
from bot.services.publish import Publisher, hand_slot, mark_pressed
from bot.services.reports import Reports, rules_text
from bot.services.rummy_turns import RummyTurns, rummy_forced
from bot.services.seats import SeatService
from bot.services.types import Actor, Answer, Loaded, Where
from bot.store.sqlite import SeatRow, Store, TableRow, Tx
from bot.ui import words
from bot.ui.i18n import t
from bot.ui.keyboards import selected_action, selection_candidates
from engine.core import State

if TYPE_CHECKING:
    from bot.services.clocks import ClockService

__all__ = ["Actor", "Answer", "Tables", "Where", "rules_text"]

log = logging.getLogger(__name__)

PAUSE_AFTER = frozenset({"trick", "round", "deal_end", "war"})
AI_RETRY_MAX = 30.0  # seconds between retries of a failed AI move, at most


class Tables(LobbyService, Publisher, Reports, CaptureBuilder, PresenceService, SeatService, Hints, RummyTurns):
    """Lobby and play for every table; one lock per table serializes its moves."""

    def __init__(self, store: Store, outbox: Outbox, bot_username: str, ai_delay: float = 1.0,
                 pictures: Pictures | None = None, ai: AiSeats | None = None) -> None:
        self.ai = ai or AiSeats()
        self.store = store
        self.outbox = outbox
        self.bot_username = bot_username
        self.ai_delay = ai_delay
        self.pictures = pictures
        self._locks: dict[int, asyncio.Lock] = {}
        self._cache: dict[int, tuple[int, State]] = {}
        self._ai_tasks: dict[int, asyncio.Task[None]] = {}
        self.moves = 0
        self.clocks: ClockService | None = None  # issue 18: set by ClockService; keeps deadlines current

    # -- helpers ------------------------------------------------------------------
    def lock(self, table_id: int) -> asyncio.Lock:
        return self._locks.setdefault(table_id, asyncio.Lock())

    def _state(self, row: TableRow) -> State:
        cached = self._cache.get(row.id)
        if cached is not None and cached[0] == row.version:
            return cached[1].clone()
        assert row.state is not None
        return State.from_json(row.state)

    async def say(self, where: Where, text: str, markup: Any = None, chatter: bool = False) -> None:
        """A reply: ahead of table edits; ``chatter`` (/games, /help ...) goes last and expires unsent."""
        async with self.store.transaction() as tx:
            await out.send_text(tx, where.chat_id, text, markup, thread_id=where.thread_id,
                                priority=out.CHATTER if chatter else out.REPLY,
                                ttl=out.CHATTER_TTL if chatter else None)
        self.outbox.wake()

    async def _load(self, tx: Tx, table_id: int) -> Loaded | None:
        row = await tx.table(table_id)
        if row is None:
            return None
        seats = await tx.seats(table_id)
        return Loaded(row, seats, names=[s.name for s in seats])
    # -- play ------------------------------------------------------------------------
    async def _turn(self, tx: Tx, table_id: int, version: int, actor: Actor,
                    lang: str) -> tuple[TableRow, list[SeatRow], State, int] | Answer:
        """Checks every play button passes: the game runs, the presser owns a seat, the button's
        version is current and it is the presser's turn. An Answer says which check failed."""
        loaded = await self._load(tx, table_id)
        if loaded is None or loaded.row.status != "playing":
            return Answer(t(lang, "This game is not running."), alert=True)
        row, seats = loaded.row, loaded.seats
        seat = next((s.seat for s in seats if s.user_id == actor.user_id), None)
        if seat is None:
            return Answer(t(lang, "You are not playing at this table."), alert=True)
        if is_paused(row):
            return Answer(t(lang, "The game is paused: I am not in the group. It goes on when I am added back."),
                          alert=True)
        if on_autopilot(row, seat):  # issue 18: handed to the AI after missed deadlines
            return Answer(t(lang, "The AI plays your seat now: you missed too many moves."), alert=True)
        if version != row.version:
            return Answer(t(lang, "That button is out of date; use the latest message."), alert=True, stale=True)
        state = self._state(row)
        if state.to_act != seat:
            return Answer(t(lang, "It is not your turn."), alert=True)
        return row, seats, state, seat

    async def press(self, table_id: int, version: int, index: int, actor: Actor, lang: str,
                    update_id: int | None = None) -> Answer:
        """A player's button: checked against seat, turn, version and the legal list, then applied."""
        async with self.lock(table_id):
            async with self.store.transaction() as tx:
                if update_id is not None and not await tx.mark_update(update_id):
                    return Answer(t(lang, "Already done."))
                checked = await self._turn(tx, table_id, version, actor, lang)
                if isinstance(checked, Answer):
                    return checked
                row, seats, state, seat = checked
                legal = state.legal_actions(seat)
                if not 0 <= index < len(legal):
                    return Answer(t(lang, "That move is not available."), alert=True)
                action = legal[index]
                mark_pressed(row, seat)
                await self._apply(tx, row, seats, state, seat, action)
        self.outbox.wake()
        self._schedule_ai(table_id)
        return Answer(words.action_label(row.game, action, lang))

    async def menu(self, table_id: int, version: int, group: int, actor: Actor, lang: str) -> Answer:
        """The second step of a choice (joker over or under ...): swap the hand keyboard."""
        async with self.lock(table_id), self.store.transaction() as tx:
            checked = await self._turn(tx, table_id, version, actor, lang)
            if isinstance(checked, Answer):
                return checked
            row, seats, state, seat = checked
            names = [s.name for s in seats]
            await self._hand_message(tx, row, seats[seat], state, names, live=True, group=None if group < 0 else group)
        self.outbox.wake()
        return Answer()

    async def pick(self, table_id: int, version: int, verb: str, mask: int, submit: bool, actor: Actor,
                   lang: str, update_id: int | None = None) -> Answer:
        """Choosing several cards (a discard): toggle a card, or submit the selection as one action."""
        async with self.lock(table_id):
            async with self.store.transaction() as tx:
                if submit and update_id is not None and not await tx.mark_update(update_id):
                    return Answer(t(lang, "Already done."))
                checked = await self._turn(tx, table_id, version, actor, lang)
                if isinstance(checked, Answer):
                    return checked
                row, seats, state, seat = checked
                legal = state.legal_actions(seat)
                if not 0 <= mask < 1 << len(selection_candidates(legal, verb)):
                    return Answer(t(lang, "That move is not available."), alert=True)
                if not submit:
                    names = [s.name for s in seats]
                    await self._hand_message(tx, row, seats[seat], state, names, live=True, pick=(verb, mask))
                    action = None
                else:
                    index = selected_action(legal, verb, mask)
                    if index is None:
                        return Answer(t(lang, "Those cards are not a legal choice."), alert=True)
                    action = legal[index]
                    mark_pressed(row, seat)
                    await self._apply(tx, row, seats, state, seat, action)
        self.outbox.wake()
        if action is None:
            return Answer()
        self._schedule_ai(table_id)
        return Answer(words.action_label(row.game, action, lang))

    async def clear_stale_keyboard(self, table_id: int, user_id: int, chat_id: int, message_id: int) -> None:
        """Take the keyboard off a message whose buttons are out of date, so nobody presses them again.

        Such a message is usually a copy: a send repeated after a crash (delivery is at least once)
        leaves the first copy's keyboard behind. The seat's current hand message is left alone:
        a fresh keyboard for it may be on its way.
        """
        async with self.store.transaction() as tx:
            loaded = await self._load(tx, table_id)
            if loaded is None:
                return
            seat = next((s.seat for s in loaded.seats if s.user_id == user_id), None)
            if seat is None or chat_id != user_id:  # only a hand message in the seated player's own DM
                return
            current = hand_slot(loaded.row, seat)
            if loaded.row.status == "playing" and await tx.slot_message(current) == message_id:
                return
            await tx.enqueue(chat_id, "clear_markup", {"message_id": message_id})
        self.outbox.wake()

    async def _apply(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: State, seat: int,
                     action: str) -> list[dict[str, Any]]:
        """One move: act, log it, bump the version, store the snapshot, enqueue the news."""
        idx = await tx.action_count(row.id)
        events = state.act(seat, action)
        await tx.append_action(row.id, idx, seat, action)
        row.version += 1
        row.state = state.to_json()
        if self.clocks is not None:  # issue 18: the next turn's deadline, in this transaction
            await self.clocks.moved(tx, row, seats, state)
        chat_lang = await tx.chat_lang(row.chat_id)
        await self._publish(tx, row, seats, state, events, mover=seat, chat_lang=chat_lang)
        if state.over:
            row.status = "finished"
            totals = state.scores()
            await tx.add_results(row, seats, totals, words.places(totals))
            game_log.finished(row.id, row.game, idx + 1)
            await record_finished(tx, row, seats, state)  # the league: every finished table is a match
        await tx.save_table(row)
        self._cache[row.id] = (row.version, state)
        self.moves += 1
        return events

    # -- AI seats ----------------------------------------------------------------------
    def _schedule_ai(self, table_id: int) -> None:
        task = self._ai_tasks.get(table_id)
        if task is None or task.done():
            self._ai_tasks[table_id] = asyncio.create_task(self._ai_loop(table_id))

    def _autoplay(self, row: TableRow, seat: SeatRow, legal: list[str], state: State | None = None) -> bool:
        """AI seats always play themselves; so do forced moves in games where most moves are forced
        (unless the table chose buttons, as Pyanitsa's ``flip=button``) and a rummy's forced draw or pass."""
        if seat.is_ai or on_autopilot(row, seat.seat):  # issue 18: a seat handed to the AI after N strikes
            return True
        if state is not None and rummy_forced(row.game, state):  # issue 16
            return True
        declared = games.declaration(row.game)
        if not declared.forced_moves_play or len(legal) != 1:
            return False
        return not declared.forced_option or row.options.get(declared.forced_option) != declared.forced_off

    async def _ai_loop(self, table_id: int) -> None:
        """Play for AI seats (and forced moves) until a human has a choice; each move its own transaction.

        A failed move (the database locked by another process for longer than the store waits, a full
        disk) is retried with backoff: the AI seat to act always gets its move eventually."""
        delay = self.ai_delay
        failures = 0
        while True:
            if delay:
                await asyncio.sleep(delay)
            try:
                step = await self._ai_step(table_id)
            except Exception:
                failures += 1
                log.warning("AI move at table %s failed (%d in a row); retrying", table_id, failures, exc_info=True)
                delay = min(AI_RETRY_MAX, 0.05 * 2 ** min(failures, 10))
                continue
            failures = 0
            if step is None:
                return
            delay = step

    async def _ai_step(self, table_id: int) -> float | None:
        """One AI (or forced) move; the pause before the next, or None when no such move is due.

        The AI thinks with no transaction open (in a worker thread); the table's lock keeps its moves in
        order, and a version check drops a decision that a newer state replaced."""
        async with self.lock(table_id):
            async with self.store.read() as tx:
                loaded = await self._load(tx, table_id)
            if loaded is None or loaded.row.status != "playing" or is_paused(loaded.row):
                return None
            row, seats = loaded.row, loaded.seats
            state = self._state(row)
            seat = state.to_act
            if seat is None:
                return None
            legal = state.legal_actions(seat)
            if not self._autoplay(row, seats[seat], legal, state):
                return None
            level = row.ui.get("ai_levels", {}).get(seats[seat].name) if seats[seat].is_ai else None
            action = await self.ai.choose(state.clone(), seat, row.seed ^ row.version, level)
            async with self.store.transaction() as tx:
                loaded = await self._load(tx, table_id)
                if loaded is None or loaded.row.status != "playing" or loaded.row.version != row.version \
                        or is_paused(loaded.row):
                    return 0.0  # the table moved on meanwhile: look again
                row, seats = loaded.row, loaded.seats
                events = await self._apply(tx, row, seats, state, seat, action)
        self.outbox.wake()
        # A forced move waits a full beat where something happened the group should see, and a
        # quarter beat otherwise, so the group can follow (not 70 moves in 5 seconds).
        pause = seats[seat].is_ai or any(e.get("type") in PAUSE_AFTER for e in events)
        return self.ai_delay if pause else self.ai_delay / 4

    def ai_busy(self) -> bool:
        return any(not task.done() for task in self._ai_tasks.values())

    async def resume(self) -> int:
        """After a restart: AI seats to act get moving again. Returns how many tables are in play."""
        async with self.store.read() as tx:
            rows = await tx.playing_tables()
        for row in rows:
            self._schedule_ai(row.id)
        return len(rows)

    async def stop(self) -> None:
        for task in self._ai_tasks.values():
            task.cancel()
        for task in self._ai_tasks.values():
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        self._ai_tasks.clear()
        self.ai.close()

    # -- chats and people ---------------------------------------------------------------
    async def chat_migrated(self, old_id: int, new_id: int) -> None:
        """The group became a supergroup: tables, queues and the league move to the new id."""
        async with self.store.transaction() as tx:
            await tx.migrate_chat(old_id, new_id)
        self.outbox.wake()

    async def set_language(self, scope: str, owner_id: int, lang: str) -> None:
        """A user's DM language (scope "u") or a chat's (scope "c")."""
        async with self.store.transaction() as tx:
            if scope == "c":
                await tx.set_chat_lang(owner_id, lang)
            else:
                await tx.set_user_lang(owner_id, lang)

    async def dm_blocked(self, user_id: int) -> None:
        async with self.store.transaction() as tx:
            await self.user_unreachable(tx, user_id, blocked=True)
        self.outbox.wake()

    async def dm_unblocked(self, user_id: int) -> None:
        async with self.store.transaction() as tx:
            await tx.set_user_started(user_id)
        await self.resend_hands(user_id)

    # -- players the bot cannot write to ------------------------------------------------
    async def user_unreachable(self, tx: Tx, user_id: int, blocked: bool) -> None:
        """A DM got 403 (or the user blocked the bot): remember it and, once, tell every group where
        they play, so the table does not wait for them in silence. Runs in the caller's transaction."""
        user = await tx.user(user_id)
        was_reachable = user is None or (bool(user["started"]) and not user["blocked"])
        if blocked:
            await tx.set_user_blocked(user_id)
        else:
            await tx.set_user_started(user_id, False)
        if not was_reachable:
            return
        for table in await tx.tables_of_user(user_id):
            seat = next((s for s in await tx.seats(table.id) if s.user_id == user_id), None)
            if seat is not None:
                lang = await tx.chat_lang(table.chat_id)
                await out.log_line(tx, table.chat_id, t(
                    lang, "{who}, I cannot send you your cards: open the bot and press Start "
                          "(unblock it if you blocked it). The game waits for you.",
                    who=words.name(seat.name)), table.thread_id)

    async def resend_hands(self, user_id: int) -> None:
        """The user can be written to again (/start, unblocked): show their hand at every game they play."""
        async with self.store.read() as tx:
            table_ids = [row.id for row in await tx.tables_of_user(user_id)]
        for table_id in table_ids:
            async with self.lock(table_id), self.store.transaction() as tx:
                loaded = await self._load(tx, table_id)
                if loaded is None or loaded.row.status != "playing":
                    continue
                row, seats = loaded.row, loaded.seats
                state = self._state(row)
                for seat in seats:
                    if seat.user_id == user_id:
                        await self._hand_message(tx, row, seat, state, loaded.names, live=state.to_act == seat.seat)
        if table_ids:
            self.outbox.wake()
