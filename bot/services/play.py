"""Moves at tables in play: the players' buttons, and the AI seats (and forced moves) in between.

Every change is one transaction: the action log, the version bump, the engine snapshot and the
outgoing messages commit together. The engine decides every rule; this module only checks who may
press what (seat, turn, version) and asks the engine.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from bot import codec
from bot.presentation.registry import presentation
from bot.services import events as game_log
from bot.services.ai_seats import AiSeats
from bot.services.autoplay import table_plays
from bot.services.core import TableCore
from bot.services.handover import on_autopilot
from bot.services.hands.buttons import selected_action, selection_candidates
from bot.services.ports import ForcedRule, Plug, TableFinished, TablePublisher, TurnClock
from bot.services.presence import is_paused
from bot.services.publish import mark_pressed
from bot.services.slots import hand_slot
from bot.services.types import Actor, Answer
from bot.store.contract import StoreTx as Tx
from bot.store.rows import SeatRow, TableRow
from bot.ui import words
from bot.ui.i18n import t
from engine.core import State
from engine.events import json_events

log = logging.getLogger(__name__)

PAUSE_AFTER = frozenset({"trick", "round", "deal_end", "war"})
AI_RETRY_MAX = 30.0  # seconds between retries of a failed AI move, at most


class Play:
    """Moves at tables in play: the players' buttons, and the AI seats (and forced moves) in between.

    ``clock`` keeps the turn's deadline (empty: no clocks); ``forced`` are the hand kinds' rules for
    moves the table plays by itself; ``finished`` are told, in the final move's transaction, that a
    game reached its end (the league records the match)."""

    def __init__(self, core: TableCore, publisher: TablePublisher, ai: AiSeats, clock: Plug[TurnClock],
                 ai_delay: float = 1.0, forced: Sequence[ForcedRule] = (),
                 finished: Sequence[TableFinished] = ()) -> None:
        self.core = core
        self.publisher = publisher
        self.ai = ai
        self.clock = clock
        self.ai_delay = ai_delay
        self.forced = tuple(forced)
        self.finished = tuple(finished)
        self._ai_tasks: dict[int, asyncio.Task[None]] = {}  # only tables whose AI loop runs (a done task goes)
        self.moves = 0

    # -- play ------------------------------------------------------------------------
    async def turn(self, tx: Tx, table_id: int, version: int, actor: Actor, lang: str,
                   once: int | None = None) -> tuple[TableRow, list[SeatRow], State, int] | Answer:
        """Checks every play button passes: the game runs, the presser owns a seat, the button's
        version is current and it is the presser's turn. An Answer says which check failed. ``once``: the
        update id of a press that acts, marked handled first (delivered again, it is "Already done")."""
        if once is not None and not await tx.mark_update(once):
            return Answer(t(lang, "Already done."))
        loaded = await self.core.load(tx, table_id)
        if loaded is None or loaded.row.status != "playing":
            return Answer(t(lang, "This game is not running."), alert=True)
        row, seats = loaded.row, loaded.seats
        if actor.in_chat is not None and actor.in_chat != row.chat_id:  # a hand in a group plays only there
            return Answer(t(lang, "This button is not valid any more."), alert=True)
        seat = next((s.seat for s in seats if s.user_id == actor.user_id), None)
        if seat is None:
            return Answer(t(lang, "You are not playing at this table."), alert=True)
        if is_paused(row):
            return Answer(t(lang, "The game is paused: I am not in the group. It goes on when I am added back."),
                          alert=True)
        if on_autopilot(row, seat):  # handed to the AI after missed deadlines
            return Answer(t(lang, "The AI plays your seat now: you missed too many moves."), alert=True)
        if version != row.version:
            return Answer(t(lang, "That button is out of date; use the latest message."), alert=True, stale=True)
        state = self.core.state(row)
        if state.to_act != seat:
            return Answer(t(lang, "It is not your turn."), alert=True)
        return row, seats, state, seat

    async def press(self, table_id: int, version: int, index: int, actor: Actor, lang: str,
                    update_id: int | None = None) -> Answer:
        """A player's button: checked against seat, turn, version and the legal list, then applied."""
        async with self.core.lock(table_id):
            async with self.core.store.transaction() as tx:
                checked = await self.turn(tx, table_id, version, actor, lang, once=update_id)
                if isinstance(checked, Answer):
                    return checked
                row, seats, state, seat = checked
                legal = state.legal_actions(seat)
                if not 0 <= index < len(legal):
                    return Answer(t(lang, "That move is not available."), alert=True)
                action = legal[index]
                mark_pressed(row, seat)
                await self.apply(tx, row, seats, state, seat, action)
        self.core.outbox.wake()
        if self.ai_due(row, seats, state):
            self.schedule_ai(table_id)
        return Answer(presentation(row.game).action_label(action, lang))

    async def menu(self, table_id: int, version: int, group: int, actor: Actor, lang: str) -> Answer:
        """The second step of a choice (joker over or under ...): swap the hand keyboard."""
        async with self.core.lock(table_id), self.core.store.transaction() as tx:
            checked = await self.turn(tx, table_id, version, actor, lang)
            if isinstance(checked, Answer):
                return checked
            row, seats, state, seat = checked
            names = [s.name for s in seats]
            await self.publisher.hand_message(tx, row, seats[seat], state, names, live=True,
                                              group=None if group < 0 else group)
        self.core.outbox.wake()
        return Answer()

    async def pick(self, table_id: int, version: int, verb: str, mask: int, submit: bool, actor: Actor,
                   lang: str, update_id: int | None = None) -> Answer:
        """Choosing several cards (a discard): toggle a card, or submit the selection as one action."""
        action: str | None
        async with self.core.lock(table_id):
            async with self.core.store.transaction() as tx:
                checked = await self.turn(tx, table_id, version, actor, lang, once=update_id if submit else None)
                if isinstance(checked, Answer):
                    return checked
                row, seats, state, seat = checked
                legal = state.legal_actions(seat)
                if not 0 <= mask < 1 << len(selection_candidates(legal, verb)):
                    return Answer(t(lang, "That move is not available."), alert=True)
                if not submit:
                    names = [s.name for s in seats]
                    await self.publisher.hand_message(tx, row, seats[seat], state, names, live=True, pick=(verb, mask))
                    action = None
                else:
                    index = selected_action(legal, verb, mask)
                    if index is None:
                        return Answer(t(lang, "Those cards are not a legal choice."), alert=True)
                    action = legal[index]
                    mark_pressed(row, seat)
                    await self.apply(tx, row, seats, state, seat, action)
        self.core.outbox.wake()
        if action is None:
            return Answer()
        if self.ai_due(row, seats, state):
            self.schedule_ai(table_id)
        return Answer(presentation(row.game).action_label(action, lang))

    async def pressed_keyboard(self, update_id: int) -> list[list[Any]]:
        """The rows of buttons of the message a press came from, as Telegram sent them with the press (the
        update as stored in the inbox, bot/intake.py); none if the update is not there."""
        async with self.core.store.read() as tx:
            payload = await tx.inbox_payload(update_id)
        try:
            update = codec.loads(payload) if payload else {}
            rows = update["callback_query"]["message"]["reply_markup"]["inline_keyboard"]
        except (ValueError, KeyError, TypeError):
            return []
        return [row for row in rows if isinstance(row, list)] if isinstance(rows, list) else []

    async def clear_stale_keyboard(self, table_id: int, user_id: int, chat_id: int, message_id: int) -> None:
        """Take the keyboard off a message whose buttons are out of date, so nobody presses them again.

        Such a message is usually a copy: a send repeated after a crash (delivery is at least once)
        leaves the first copy's keyboard behind. The seat's current hand message is left alone:
        a fresh keyboard for it may be on its way.
        """
        async with self.core.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None:
                return
            seat = next((s.seat for s in loaded.seats if s.user_id == user_id), None)
            if seat is None or chat_id != user_id:  # only a hand message in the seated player's own DM
                return
            current = hand_slot(loaded.row, seat)
            if loaded.row.status == "playing" and await tx.slot_message(current) == message_id:
                return
            await tx.enqueue(chat_id, "clear_markup", {"message_id": message_id})
        self.core.outbox.wake()

    async def apply(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: State, seat: int,
                    action: str) -> list[dict[str, Any]]:
        """One move: act, log it, bump the version, store the snapshot, enqueue the news."""
        events = json_events(state.act(seat, action))
        idx = await tx.log_action(row.id, seat, action)
        row.version += 1
        row.state = state.to_json()
        if (clock := self.clock.service) is not None:  # the next turn's deadline, in this transaction
            await clock.moved(tx, row, seats, state)
        chat_lang = await tx.chat_lang(row.chat_id)
        await self.publisher.publish(tx, row, seats, state, events, mover=seat, chat_lang=chat_lang)
        if state.over:
            row.status = "finished"
            totals = state.scores()
            await tx.add_results(row, seats, totals, words.places(totals))
            game_log.finished(row.id, row.game, idx + 1)
            for subscriber in self.finished:  # the league: every finished table is a match
                await subscriber(tx, row, seats, state)
        await tx.save_table(row)
        self.core.remember(row, state)  # a finished table is forgotten
        self.moves += 1
        return events

    # -- AI seats ----------------------------------------------------------------------
    def schedule_ai(self, table_id: int) -> None:
        """Start the table's AI loop unless it runs; the task is kept until it ends, and a crash is logged."""
        task = self._ai_tasks.get(table_id)
        if task is None or task.done():
            task = asyncio.create_task(self._ai_loop(table_id), name=f"ai-{table_id}")
            self._ai_tasks[table_id] = task
            task.add_done_callback(lambda done: self._ai_done(table_id, done))

    def ai_due(self, row: TableRow, seats: list[SeatRow], state: State) -> bool:
        """Whether the AI loop's first step would play, on the state just committed: after a press that
        gives the turn to a person with a choice, no loop is started only to read the table and end."""
        seat = state.to_act
        if row.status != "playing" or is_paused(row) or seat is None:
            return False
        return self._autoplay(row, seats[seat], state.legal_actions(seat), state)

    def _ai_done(self, table_id: int, task: asyncio.Task[None]) -> None:
        if self._ai_tasks.get(table_id) is task:
            del self._ai_tasks[table_id]
        if not task.cancelled() and task.exception() is not None:
            log.error("the AI loop of table %s crashed", table_id, exc_info=task.exception())

    def _autoplay(self, row: TableRow, seat: SeatRow, legal: list[str], state: State | None = None) -> bool:
        """AI seats always play themselves; so do forced moves (``table_plays``)."""
        return table_plays(row, seat, legal, state, self.forced)

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

        The AI thinks with no transaction open (in a worker process); the table's lock keeps its moves in
        order, and a version check drops a decision that a newer state replaced."""
        async with self.core.lock(table_id):
            async with self.core.store.read() as tx:
                loaded = await self.core.load(tx, table_id)
            if loaded is None or loaded.row.status != "playing" or is_paused(loaded.row):
                return None
            row, seats = loaded.row, loaded.seats
            state = self.core.state(row)
            seat = state.to_act
            if seat is None:
                return None
            legal = state.legal_actions(seat)
            if not self._autoplay(row, seats[seat], legal, state):
                return None
            level = row.ui.ai_levels.get(seats[seat].name) if seats[seat].is_ai else None
            action = await self.ai.choose(state.clone(), seat, row.seed ^ row.version, level)
            async with self.core.store.transaction() as tx:
                loaded = await self.core.load(tx, table_id)
                if loaded is None or loaded.row.status != "playing" or loaded.row.version != row.version \
                        or is_paused(loaded.row):
                    return 0.0  # the table moved on meanwhile: look again
                row, seats = loaded.row, loaded.seats
                events = await self.apply(tx, row, seats, state, seat, action)
        self.core.outbox.wake()
        # A forced move waits a full beat where something happened the group should see, and a
        # quarter beat otherwise, so the group can follow (not 70 moves in 5 seconds).
        pause = seats[seat].is_ai or any(e.get("type") in PAUSE_AFTER for e in events)
        return self.ai_delay if pause else self.ai_delay / 4

    def ai_busy(self) -> bool:
        return any(not task.done() for task in self._ai_tasks.values())

    def ai_running(self, table_id: int) -> bool:
        return table_id in self._ai_tasks

    async def resume(self) -> int:
        """After a restart: AI seats to act get moving again. Returns how many tables are in play."""
        async with self.core.store.read() as tx:
            rows = await tx.playing_tables()
        for row in rows:
            self.schedule_ai(row.id)
        return len(rows)

    async def stop(self) -> None:
        """Cancel every AI loop and wait for it to end."""
        tasks = list(self._ai_tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)  # an error is logged by _ai_done
        self._ai_tasks.clear()
        self.ai.close()
