"""The application layer for tables: lobby, moves, AI seats, what everyone is told.

Every change is one SQLite transaction: the action log, the version bump, the engine
snapshot and the outgoing messages commit together. The engine decides every rule; this
module only checks who may press what (seat, turn, version) and asks the engine.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from bot.services import outbox as out
from bot.services.outbox import Outbox
from bot.services.pictures import Pictures
from bot.store.sqlite import SeatRow, Store, TableRow, Tx
from bot.ui import words
from bot.ui.i18n import t
from bot.ui.keyboards import (
    join_link_keyboard,
    lobby_keyboard,
    options_keyboard,
    pick_keyboard,
    play_keyboard,
    selected_action,
    selection_candidates,
)
from engine.ai.random import RandomPlayer
from engine.core import GameError, OptionsError, State, get_game
from engine.record import dumps, make_record

log = logging.getLogger(__name__)

RULES_DIR = Path(__file__).resolve().parents[2] / "assets" / "rules"
AUTO_FORCED = frozenset({"pyanitsa", "svinya"})  # games whose forced moves play themselves
PAUSE_AFTER = frozenset({"trick", "round", "deal_end", "war"})
AI_NAMES = ("🤖 Ada", "🤖 Boris", "🤖 Chip", "🤖 Dora", "🤖 Emil", "🤖 Fira", "🤖 Gleb")


@dataclass
class Actor:
    """Who pressed or typed: a Telegram user as the bot knows them."""

    user_id: int
    name: str
    lang: str
    started: bool = True


@dataclass
class Where:
    """A group chat (and forum topic) where a table lives."""

    chat_id: int
    thread_id: int = 0
    title: str = ""
    lang: str = "en"


@dataclass
class Answer:
    """What a button press answers at once (answerCallbackQuery)."""

    text: str = ""
    alert: bool = False
    url: str | None = None


@dataclass
class Loaded:
    row: TableRow
    seats: list[SeatRow]
    state: State | None = None
    names: list[str] = field(default_factory=list)


def parse_option_args(args: Sequence[str]) -> dict[str, str]:
    """``quarters=1 joker_trump=no_trump`` → a dict; a word without ``=`` is an error."""
    options: dict[str, str] = {}
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep or not key:
            raise OptionsError(f"{arg!r}: write house rules as name=value")
        options[key.strip()] = value.strip()
    return options


def option_choices(game_id: str) -> dict[str, list[Any]]:
    """Options with a short list of values, which the lobby can cycle through with a button."""
    model = get_game(game_id).options
    choices: dict[str, list[Any]] = {}
    for key, info in model.model_fields.items():
        annotation = info.annotation
        values: list[Any] = []
        if annotation is bool:
            values = [False, True]
        elif args := get_args(annotation):
            if all(isinstance(a, str | int) for a in args):
                values = list(args)
        elif annotation is int:
            low = next((m.ge for m in info.metadata if hasattr(m, "ge")), None)
            high = next((m.le for m in info.metadata if hasattr(m, "le")), None)
            if low is not None and high is not None and high - low <= 10:
                values = list(range(low, high + 1))
        if values:
            choices[key] = values
    return choices


class Tables:
    """Lobby and play for every table; one lock per table serializes its moves."""

    def __init__(self, store: Store, outbox: Outbox, bot_username: str, ai_delay: float = 1.0,
                 pictures: Pictures | None = None) -> None:
        self.store = store
        self.outbox = outbox
        self.bot_username = bot_username
        self.ai_delay = ai_delay
        self.pictures = pictures
        self._locks: dict[int, asyncio.Lock] = {}
        self._cache: dict[int, tuple[int, State]] = {}
        self._ai_tasks: dict[int, asyncio.Task[None]] = {}
        self.moves = 0

    # -- helpers ------------------------------------------------------------------
    def lock(self, table_id: int) -> asyncio.Lock:
        return self._locks.setdefault(table_id, asyncio.Lock())

    def _state(self, row: TableRow) -> State:
        cached = self._cache.get(row.id)
        if cached is not None and cached[0] == row.version:
            return cached[1].clone()
        assert row.state is not None
        return State.from_json(row.state)

    async def say(self, where: Where, text: str, markup: Any = None) -> None:
        async with self.store.transaction() as tx:
            await out.send_text(tx, where.chat_id, text, markup, thread_id=where.thread_id)
        self.outbox.wake()

    async def _load(self, tx: Tx, table_id: int) -> Loaded | None:
        row = await tx.table(table_id)
        if row is None:
            return None
        seats = await tx.seats(table_id)
        return Loaded(row, seats, names=[s.name for s in seats])

    # -- the lobby -------------------------------------------------------------------
    def lobby_text(self, row: TableRow, seats: list[SeatRow], lang: str) -> str:
        game = get_game(row.game)
        opts = game.parse_options(row.options).model_dump(mode="json")
        lines = [f"🃏 <b>{words.title(row.game, lang)}</b> — " + t(lang, "new table")]
        if opts:
            lines.append(t(lang, "House rules: {rules}", rules=", ".join(f"{k}={v}" for k, v in opts.items())))
        players = ", ".join(words.name(s.name) for s in seats) or "—"
        lines.append(t(lang, "Players ({n}, {low}–{high}): {names}", n=len(seats), low=game.min_players,
                       high=game.max_players, names=players))
        if row.status == "lobby":
            lines.append(t(lang, "Press Join to sit down; the creator or an admin presses Start."))
        elif row.status == "cancelled":
            lines.append(t(lang, "This table was cancelled."))
        elif row.status == "playing":
            lines.append(t(lang, "The game is on."))
        return "\n".join(lines)

    async def _show_lobby(self, tx: Tx, row: TableRow, seats: list[SeatRow], lang: str, send: bool = False) -> None:
        slot = f"lobby:{row.id}"
        text = self.lobby_text(row, seats, lang)
        markup = None
        if row.status == "lobby":
            if row.ui.get("lobby_mode") == "opts":
                current = get_game(row.game).parse_options(row.options).model_dump(mode="json")
                markup = options_keyboard(row.id, lang, [(k, str(current[k])) for k in option_choices(row.game)])
            else:
                markup = lobby_keyboard(row.id, lang, bool(option_choices(row.game)))
        if send:
            await out.send_text(tx, row.chat_id, text, markup, slot=slot, thread_id=row.thread_id)
        else:
            await out.edit_text(tx, row.chat_id, slot, text, markup, thread_id=row.thread_id)

    async def new_table(self, where: Where, actor: Actor, game_id: str, args: Sequence[str]) -> None:
        lang = where.lang
        try:
            game = get_game(game_id.lower())
            options = game.parse_options(parse_option_args(args)).model_dump(mode="json")
        except GameError:
            known = ", ".join(g.id for g in _games())
            await self.say(where, t(lang, "I don't know the game {game}. Games: {known}",
                                    game=words.name(game_id), known=known))
            return
        except OptionsError as exc:
            await self.say(where, t(lang, "Those house rules don't work: {error}", error=words.name(str(exc))))
            return
        async with self.store.transaction() as tx:
            if await tx.open_table(where.chat_id, where.thread_id):
                await out.send_text(tx, where.chat_id, t(lang, "There is already a table here. Use /cancel first."),
                                    thread_id=where.thread_id)
                self.outbox.wake()
                return
            table_id = await tx.create_table(where.chat_id, where.thread_id, game.id, actor.user_id, options,
                                             secrets.randbelow(2**53))
            seats = [SeatRow(0, actor.user_id, actor.name)] if actor.started else []
            await tx.set_seats(table_id, seats)
            row = await tx.table(table_id)
            assert row is not None
            await self._show_lobby(tx, row, seats, lang, send=True)
            if not actor.started:
                await out.send_text(tx, where.chat_id, t(lang, "{who}, open the bot once so I can send you your cards.",
                                                         who=words.name(actor.name)),
                                    join_link_keyboard(self.bot_username, f"j{table_id}", lang),
                                    thread_id=where.thread_id)
        self.outbox.wake()

    async def open_table_id(self, where: Where) -> int | None:
        async with self.store.read() as tx:
            row = await tx.open_table(where.chat_id, where.thread_id)
        return row.id if row else None

    async def join(self, table_id: int, actor: Actor, lang: str) -> Answer:
        if not actor.started:
            return Answer(t(lang, "Open the bot first, then you are seated."),
                          url=f"https://t.me/{self.bot_username}?start=j{table_id}")
        async with self.lock(table_id), self.store.transaction() as tx:
            loaded = await self._load(tx, table_id)
            if loaded is None or loaded.row.status != "lobby":
                return Answer(t(lang, "This table is not taking players."), alert=True)
            row, seats = loaded.row, loaded.seats
            if any(s.user_id == actor.user_id for s in seats):
                return Answer(t(lang, "You are already at this table."), alert=True)
            game = get_game(row.game)
            if len(seats) >= game.max_players:
                return Answer(t(lang, "The table is full."), alert=True)
            seats.append(SeatRow(len(seats), actor.user_id, actor.name))
            await tx.set_seats(row.id, seats)
            row.version += 1
            await tx.save_table(row)
            await self._show_lobby(tx, row, seats, await tx.chat_lang(row.chat_id))
        self.outbox.wake()
        return Answer(t(lang, "You are in."))

    async def leave(self, table_id: int, actor: Actor, lang: str) -> Answer:
        async with self.lock(table_id), self.store.transaction() as tx:
            loaded = await self._load(tx, table_id)
            if loaded is None or loaded.row.status != "lobby":
                return Answer(t(lang, "You can only leave a table before it starts."), alert=True)
            row, seats = loaded.row, loaded.seats
            if not any(s.user_id == actor.user_id for s in seats):
                return Answer(t(lang, "You are not at this table."), alert=True)
            seats = [s for s in seats if s.user_id != actor.user_id]
            await tx.set_seats(row.id, seats)
            row.version += 1
            await tx.save_table(row)
            await self._show_lobby(tx, row, seats, await tx.chat_lang(row.chat_id))
        self.outbox.wake()
        return Answer(t(lang, "You left the table."))

    async def add_ai(self, table_id: int, actor: Actor, lang: str) -> Answer:
        async with self.lock(table_id), self.store.transaction() as tx:
            loaded = await self._load(tx, table_id)
            if loaded is None or loaded.row.status != "lobby":
                return Answer(t(lang, "This table is not taking players."), alert=True)
            row, seats = loaded.row, loaded.seats
            if len(seats) >= get_game(row.game).max_players:
                return Answer(t(lang, "The table is full."), alert=True)
            used = {s.name for s in seats}
            name = next(n for n in AI_NAMES + tuple(f"🤖 AI {i}" for i in range(9)) if n not in used)
            seats.append(SeatRow(len(seats), None, name))
            await tx.set_seats(row.id, seats)
            row.version += 1
            await tx.save_table(row)
            await self._show_lobby(tx, row, seats, await tx.chat_lang(row.chat_id))
        self.outbox.wake()
        return Answer(t(lang, "An AI player sat down."))

    async def lobby_options(self, table_id: int, actor: Actor, lang: str, mode: str, key: str = "",
                            is_admin: bool = False) -> Answer:
        """Show the house-rules keyboard, step one option to its next value, or go back."""
        async with self.lock(table_id), self.store.transaction() as tx:
            loaded = await self._load(tx, table_id)
            if loaded is None or loaded.row.status != "lobby":
                return Answer(t(lang, "This table has already started."), alert=True)
            row = loaded.row
            if mode == "opt":
                if actor.user_id != row.creator_id and not is_admin:
                    return Answer(t(lang, "Only the table's creator or an admin can change house rules."), alert=True)
                choices = option_choices(row.game).get(key)
                if not choices:
                    return Answer(t(lang, "This rule cannot be changed here."), alert=True)
                current = get_game(row.game).parse_options(row.options).model_dump(mode="json")
                values = [v if not isinstance(v, bool) else v for v in choices]
                position = values.index(current[key]) if current[key] in values else -1
                row.options = {**current, key: values[(position + 1) % len(values)]}
            row.ui["lobby_mode"] = "opts" if mode in ("opts", "opt") else "main"
            row.version += 1
            await tx.save_table(row)
            await self._show_lobby(tx, row, loaded.seats, await tx.chat_lang(row.chat_id))
        self.outbox.wake()
        return Answer()

    async def cancel(self, table_id: int, actor: Actor, lang: str, is_admin: bool) -> Answer:
        async with self.lock(table_id), self.store.transaction() as tx:
            loaded = await self._load(tx, table_id)
            if loaded is None or loaded.row.status not in ("lobby", "playing"):
                return Answer(t(lang, "There is no table to cancel."), alert=True)
            row = loaded.row
            if actor.user_id != row.creator_id and not is_admin:
                return Answer(t(lang, "Only the table's creator or an admin can cancel it."), alert=True)
            was_playing = row.status == "playing"
            row.status = "cancelled"
            row.version += 1
            await tx.save_table(row)
            chat_lang = await tx.chat_lang(row.chat_id)
            await self._show_lobby(tx, row, loaded.seats, chat_lang)
            if was_playing:
                await out.log_line(tx, row.chat_id, t(chat_lang, "The table was cancelled."), row.thread_id)
        self._cache.pop(table_id, None)
        self.outbox.wake()
        return Answer(t(lang, "Cancelled."))

    async def start(self, table_id: int, actor: Actor, lang: str, is_admin: bool) -> Answer:
        async with self.lock(table_id), self.store.transaction() as tx:
            loaded = await self._load(tx, table_id)
            if loaded is None:  # a forged or long gone button
                return Answer(t(lang, "This button is not valid any more."), alert=True)
            if loaded.row.status != "lobby":
                return Answer(t(lang, "This table has already started."), alert=True)
            row, seats = loaded.row, loaded.seats
            if actor.user_id != row.creator_id and not is_admin:
                return Answer(t(lang, "Only the table's creator or an admin can start the game."), alert=True)
            game = get_game(row.game)
            if len(seats) < game.min_players:
                return Answer(t(lang, "{game} needs at least {n} players; {have} seated. Add AI players?",
                                game=words.title(row.game, lang), n=game.min_players, have=len(seats)), alert=True)
            state = game.new(len(seats), seed=row.seed, options=row.options)
            row.status = "playing"
            row.version += 1
            row.state = state.to_json()
            row.ui = {"deal": None, "table_key": None, "hands": {}}
            await tx.save_table(row)
            chat_lang = await tx.chat_lang(row.chat_id)
            await self._show_lobby(tx, row, seats, chat_lang)
            await self._publish(tx, row, seats, state, [], mover=None, chat_lang=chat_lang)
            await tx.save_table(row)
        self._cache[table_id] = (row.version, state)
        self.outbox.wake()
        self._schedule_ai(table_id)
        return Answer(t(lang, "Let's play!"))

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
        if version != row.version:
            return Answer(t(lang, "That button is out of date; use the latest message."), alert=True)
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
                    await self._apply(tx, row, seats, state, seat, action)
        self.outbox.wake()
        if action is None:
            return Answer()
        self._schedule_ai(table_id)
        return Answer(words.action_label(row.game, action, lang))

    async def _apply(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: State, seat: int,
                     action: str) -> list[dict[str, Any]]:
        """One move: act, log it, bump the version, store the snapshot, enqueue the news."""
        idx = await tx.action_count(row.id)
        events = state.act(seat, action)
        await tx.append_action(row.id, idx, seat, action)
        row.version += 1
        row.state = state.to_json()
        chat_lang = await tx.chat_lang(row.chat_id)
        await self._publish(tx, row, seats, state, events, mover=seat, chat_lang=chat_lang)
        if state.over:
            row.status = "finished"
            totals = state.scores()
            await tx.add_results(row, seats, totals, words.places(totals))
        await tx.save_table(row)
        self._cache[row.id] = (row.version, state)
        self.moves += 1
        return events

    # -- what people see -------------------------------------------------------------
    async def _publish(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: State,
                       events: list[dict[str, Any]], mover: int | None, chat_lang: str) -> None:
        names = [s.name for s in seats]
        view = state.view(None)
        await self._table_message(tx, row, view, names, chat_lang)
        for event in events:
            line = words.event_line(row.game, event, names, chat_lang)
            if line:
                await out.log_line(tx, row.chat_id, line, row.thread_id)
        if any(e.get("type") == "deal_end" for e in events):
            await self._grid(tx, row, state, names, chat_lang)
        deal = view.get("deal_no", 0)
        old_deal = row.ui.get("hand_deal")
        new_deal = old_deal != deal
        to_act = state.to_act
        if new_deal and mover is not None and not seats[mover].is_ai:
            # The mover's message of the finished deal still shows the keyboard they pressed: close it.
            await self._hand_message(tx, row, seats[mover], state, names, live=False, deal=old_deal)
        row.ui["hand_deal"] = deal
        for s in seats:
            if s.is_ai:
                continue
            if new_deal or state.over or s.seat in (mover, to_act):
                await self._hand_message(tx, row, s, state, names, live=s.seat == to_act, new=new_deal)
        if state.over:
            totals = state.scores()
            await self._final(tx, row, state, names, totals, chat_lang)

    async def _table_message(self, tx: Tx, row: TableRow, view: dict[str, Any], names: list[str],
                             lang: str) -> None:
        """One group message per trick (per deal for other games), edited as cards fall."""
        deal = view.get("deal_no", 0)
        trick = view.get("trick")
        chapter = words.hook(row.game, "table_chapter")  # games without tricks: when to post a fresh table
        if chapter is not None:
            key = f"{deal}:{chapter(view)}"
        elif trick and trick.get("plays"):
            key = f"{deal}:{sum(view.get('tricks') or [0])}"
        elif row.ui.get("table_deal") != deal:
            key = f"{deal}:start"
        else:
            key = row.ui.get("table_key") or f"{deal}:start"
        slot = f"t{row.id}:{key}"
        fresh = key != row.ui.get("table_key")
        row.ui["table_key"] = key
        row.ui["table_deal"] = deal
        if self.pictures is not None and self.pictures.has_table(row.game):
            caption = self.pictures.table_caption(view, names, lang)
            picture = {"kind": "table", "view": view, "names": names, "lang": lang}
            if fresh:
                await out.send_picture(tx, row.chat_id, picture, caption, slot=slot, thread_id=row.thread_id)
            else:
                await out.edit_picture(tx, row.chat_id, slot, picture, caption, thread_id=row.thread_id)
            return
        text = "\n".join(words.table_lines(view, names, lang))
        if fresh:
            await out.send_text(tx, row.chat_id, text, slot=slot, thread_id=row.thread_id)
        else:
            await out.edit_text(tx, row.chat_id, slot, text, thread_id=row.thread_id)

    async def _grid(self, tx: Tx, row: TableRow, state: State, names: list[str], lang: str,
                    chat_id: int | None = None, thread_id: int | None = None) -> bool:
        """Post the score grid picture (games that have one); False when there is none to post."""
        if self.pictures is None or not self.pictures.has_grid(row.game):
            return False
        sheet = state.sheet()
        picture = {"kind": "grid", "sheet": sheet, "names": names, "lang": lang,
                   "current": None if state.over else state.view(None).get("deal_no")}
        await out.send_picture(tx, row.chat_id if chat_id is None else chat_id, picture,
                               self.pictures.grid_caption(sheet, names, lang),
                               thread_id=row.thread_id if thread_id is None else thread_id)
        return True

    async def _hand_message(self, tx: Tx, row: TableRow, seat: SeatRow, state: State, names: list[str],
                            live: bool, new: bool = False, group: int | None = None, deal: Any = None,
                            pick: tuple[str, int] | None = None) -> None:
        assert seat.user_id is not None
        lang = await tx.user_lang(seat.user_id)
        view = state.view(seat.seat)
        text = words.hand_text(view, names, lang, await tx.chat_title(row.chat_id), live)
        markup = None
        if live:
            legal = state.legal_actions(seat.seat)
            if pick is not None:
                markup = pick_keyboard(row.game, row.id, row.version, legal, pick[0], pick[1], lang)
            else:
                markup = play_keyboard(row.game, row.id, row.version, legal, lang, group)
        slot = f"h{row.id}:{seat.seat}:{row.ui.get('hand_deal') if deal is None else deal}"
        if new:
            await out.send_text(tx, seat.user_id, text, markup, slot=slot)
        else:
            await out.edit_text(tx, seat.user_id, slot, text, markup)

    async def _final(self, tx: Tx, row: TableRow, state: State, names: list[str], totals: list[int],
                     lang: str) -> None:
        text = words.standings_text(row.game, names, totals, lang)
        if self.pictures is not None:
            picture = {"kind": "standings", "names": names, "totals": totals, "lang": lang}
            await out.send_picture(tx, row.chat_id, picture, text[:1024], thread_id=row.thread_id)
        else:
            await out.send_text(tx, row.chat_id, text, thread_id=row.thread_id)

    # -- AI seats ----------------------------------------------------------------------
    def _schedule_ai(self, table_id: int) -> None:
        task = self._ai_tasks.get(table_id)
        if task is None or task.done():
            self._ai_tasks[table_id] = asyncio.create_task(self._ai_loop(table_id))

    def _autoplay(self, game: str, seat: SeatRow, legal: list[str]) -> bool:
        """AI seats always play themselves; so do forced moves in games where most moves are forced."""
        return seat.is_ai or (game in AUTO_FORCED and len(legal) == 1)

    async def _ai_loop(self, table_id: int) -> None:
        """Play for AI seats (and forced moves) until a human has a choice; each move its own transaction."""
        delay = self.ai_delay
        while True:
            if delay:
                await asyncio.sleep(delay)
            async with self.lock(table_id):
                async with self.store.transaction() as tx:
                    loaded = await self._load(tx, table_id)
                    if loaded is None or loaded.row.status != "playing":
                        return
                    row, seats = loaded.row, loaded.seats
                    state = self._state(row)
                    seat = state.to_act
                    if seat is None:
                        return
                    legal = state.legal_actions(seat)
                    if not self._autoplay(row.game, seats[seat], legal):
                        return
                    action = RandomPlayer(row.seed ^ row.version).choose(state, seat)
                    events = await self._apply(tx, row, seats, state, seat, action)
            self.outbox.wake()
            # A forced move waits only where something happened the group should see.
            pause = seats[seat].is_ai or any(e.get("type") in PAUSE_AFTER for e in events)
            delay = self.ai_delay if pause else 0.0

    # -- turn timers (bot/services/timers.py decides when) -------------------------------
    async def waiting_humans(self) -> list[tuple[int, int, float, int | None]]:
        """(table, version, seconds since the last change, version last reminded) for every table
        where a human is to act."""
        async with self.store.read() as tx:
            rows = await tx.playing_tables()
            seats = {row.id: await tx.seats(row.id) for row in rows}
        now = time.time()
        waiting = []
        for row in rows:
            to_act = self._state(row).to_act
            if to_act is not None and not seats[row.id][to_act].is_ai:
                waiting.append((row.id, row.version, now - row.updated_at, row.ui.get("reminded")))
        return waiting

    async def remind(self, table_id: int, version: int) -> None:
        """A fresh DM to the player to act (an edit would not notify them), once per turn."""
        async with self.lock(table_id), self.store.transaction() as tx:
            loaded = await self._load(tx, table_id)
            if loaded is None or loaded.row.status != "playing" or loaded.row.version != version:
                return
            row, seats = loaded.row, loaded.seats
            seat = seats[self._state(row).to_act or 0]
            if seat.user_id is None:
                return
            lang = await tx.user_lang(seat.user_id)
            chat = await tx.chat_title(row.chat_id)
            await out.send_text(tx, seat.user_id, "⏰ " + t(lang, "Your move is waiting at {table} in {chat}.",
                                                           table=words.title(row.game, lang),
                                                           chat=words.name(chat or "?")))
            row.ui["reminded"] = version
            await tx.save_table(row, touch=False)
        self.outbox.wake()

    async def play_for_absent(self, table_id: int, version: int) -> None:
        """The player to act has been away too long: the table plays a move for them and says so."""
        async with self.lock(table_id):
            async with self.store.transaction() as tx:
                loaded = await self._load(tx, table_id)
                if loaded is None or loaded.row.status != "playing" or loaded.row.version != version:
                    return
                row, seats = loaded.row, loaded.seats
                state = self._state(row)
                seat = state.to_act
                if seat is None or seats[seat].is_ai:
                    return
                chat_lang = await tx.chat_lang(row.chat_id)
                await out.log_line(tx, row.chat_id, "⏰ " + t(chat_lang, "{who} is away; a move was played for them.",
                                                             who=words.name(seats[seat].name)), row.thread_id)
                action = RandomPlayer(row.seed ^ row.version).choose(state, seat)
                await self._apply(tx, row, seats, state, seat, action)
        self.outbox.wake()
        self._schedule_ai(table_id)

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

    # -- reading -----------------------------------------------------------------------
    async def score(self, where: Where) -> None:
        async with self.store.read() as tx:
            row = await tx.open_table(where.chat_id, where.thread_id) or await tx.last_table(where.chat_id,
                                                                                                where.thread_id)
            seats = await tx.seats(row.id) if row else []
        if row is None or row.state is None:
            await self.say(where, t(where.lang, "No game has been played here yet."))
            return
        state = State.from_json(row.state)
        names = [s.name for s in seats]
        async with self.store.transaction() as tx:
            if not await self._grid(tx, row, state, names, where.lang, where.chat_id, where.thread_id):
                text = words.sheet_text(row.game, state.sheet(), names, state.scores(), where.lang)
                await out.send_text(tx, where.chat_id, text[:4000], thread_id=where.thread_id)
        self.outbox.wake()

    async def record(self, where: Where) -> None:
        async with self.store.read() as tx:
            row = await tx.open_table(where.chat_id, where.thread_id) or await tx.last_table(where.chat_id,
                                                                                                where.thread_id)
            seats = await tx.seats(row.id) if row else []
            actions = await tx.actions(row.id) if row else []
        if row is None or row.state is None:
            await self.say(where, t(where.lang, "No game has been played here yet."))
            return
        state = State.from_json(row.state)
        record = make_record(state, actions, [s.name for s in seats])
        data = dumps(record).encode()
        async with self.store.transaction() as tx:
            await out.send_document(tx, where.chat_id, data, f"kozyr-{row.game}-{row.id}.json",
                                    t(where.lang, "Replay it with: python -m engine replay FILE"),
                                    thread_id=where.thread_id)
        self.outbox.wake()

    async def top(self, where: Where, game: str | None) -> None:
        async with self.store.read() as tx:
            rows = await tx.league(where.chat_id, game)
        lang = where.lang
        if not rows:
            await self.say(where, t(lang, "No finished games in this chat yet."))
            return
        head = t(lang, "League table") + (f" — {words.title(game, lang)}" if game else "")
        lines = [f"🏆 <b>{head}</b>"]
        for i, r in enumerate(rows, 1):
            lines.append(t(lang, "{i}. {name}: rating {rating}, {games} games, {wins} wins, {points} points",
                           i=i, name=words.name(r["name"]), rating=r["rating"], games=r["games"], wins=r["wins"],
                           points=r["points"]))
        await self.say(where, "\n".join(lines))

    async def deep_start(self, actor: Actor, payload: str) -> None:
        """``/start j<table>`` from the Join link: the DM is open now, so complete the join."""
        lang = actor.lang
        async with self.store.transaction() as tx:
            await tx.set_user_started(actor.user_id)
        actor.started = True  # read before this /start was recorded
        if payload.startswith("j") and payload[1:].isdigit():
            answer = await self.join(int(payload[1:]), actor, lang)
            text = answer.text
        else:
            text = t(lang, "Hello! Add me to a group and type /new carnival to open a table. /help lists commands.")
        async with self.store.transaction() as tx:
            await out.send_text(tx, actor.user_id, text)
        self.outbox.wake()
        await self.resend_hands(actor.user_id)

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


def _games() -> list[Any]:
    from engine.core import all_games

    return all_games()


def rules_text(game_id: str, lang: str) -> str | None:
    for candidate in (RULES_DIR / f"{game_id}.{lang}.txt", RULES_DIR / f"{game_id}.en.txt"):
        if candidate.exists():
            return candidate.read_text(encoding="utf-8").strip()
    return None


def record_json(state: State, actions: list[list[Any]], names: list[str]) -> str:
    return json.dumps(make_record(state, actions, names), ensure_ascii=False)
