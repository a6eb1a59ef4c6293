"""The lobby: opening a table, seats (people and AI), house rules, start and cancel."""

from __future__ import annotations

import functools
import random
import secrets
from collections.abc import Callable, Sequence
from typing import Any

import games
from bot.services import events as game_log
from bot.services import outbox as out
from bot.services.catalog import not_seatable, table_game
from bot.services.clock_lines import lobby_clock_line
from bot.services.core import TableCore
from bot.services.hands import in_group
from bot.services.ports import AiScheduler, Plug, TablePublisher, TurnClock
from bot.services.slots import TOURNAMENT
from bot.services.types import Actor, Answer, Where
from bot.store.contract import StoreTx as Tx
from bot.store.rows import ClockRow, ClockUi, SeatRow, TableRow, TableUi
from bot.ui import words
from bot.ui.clip import clip_plain
from bot.ui.clock_keyboards import clock_keyboard
from bot.ui.i18n import t
from bot.ui.keyboards import (
    join_link_keyboard,
    lobby_keyboard,
    options_keyboard,
)
from bot.ui.option_words import options_error
from engine.core import Game, GameError, OptionProblem, OptionsError, State, get_game

JOIN_TOKEN_BYTES = 12  # 96 random bits: 16 URL-safe characters in the deep link (Telegram allows 64)
AI_LEVELS = ("", "easy", "normal", "strong")  # "" the bot's default (KOZYR_AI_LEVEL)
AI_NAMES = ("🤖 Ada", "🤖 Boris", "🤖 Chip", "🤖 Dora", "🤖 Emil", "🤖 Fira", "🤖 Gleb")


DEAL_SEEDS = 2**53  # a table's seed is below this (exact in JSON's doubles)


def parse_option_args(args: Sequence[str]) -> dict[str, str]:
    """``quarters=1 joker_trump=no_trump`` → a dict; a word without ``=`` is an error."""
    options: dict[str, str] = {}
    wrong = tuple(OptionProblem("form", arg) for arg in args if not arg.partition("=")[0] or "=" not in arg)
    if wrong:
        raise OptionsError("write house rules as name=value", wrong)
    for arg in args:
        key, _, value = arg.partition("=")
        options[key.strip()] = value.strip()
    return options


def option_choices(game_id: str) -> dict[str, list[Any]]:
    """Options with a short list of values, which the lobby can cycle through with a button (the game's
    declaration lists them)."""
    return {option.key: list(option.choices) for option in games.declaration(game_id).options if option.choices}


def house_rules_typed(game: Game, options: dict[str, Any]) -> str:
    """The rules a table differs from the game's defaults by, as a person would type them (lists
    comma-separated): what a refusal names."""
    defaults = game.parse_options({}).model_dump(mode="json")
    typed = [f"{key}={','.join(map(str, value)) if isinstance(value, list) else value}"
             for key, value in sorted(options.items()) if defaults.get(key) != value]
    return " ".join(typed) or "—"


class LobbyService:
    """Opening a table, seating people and AI players, house rules, start and cancel."""

    def __init__(self, core: TableCore, publisher: TablePublisher, play: AiScheduler, clock: Plug[TurnClock],
                 bot_username: str) -> None:
        self.core = core
        self.publisher = publisher
        self.play = play
        self.clock = clock  # empty: no clocks (the lobby then shows no clock line and no clock keyboard)
        self.bot_username = bot_username
        # Where a new table's deal seed comes from: the system's secure source (nobody may predict a deal),
        # or a seeded generator (``KOZYR_DEAL_SEED``) so that a test run plays the same deals every time.
        self.deal_seed: Callable[[], int] = lambda: secrets.randbelow(DEAL_SEEDS)

    def seed_deals(self, seed: int) -> None:
        """Reproducible deals: the tables opened from now on take their seeds from ``Random(seed)``."""
        self.deal_seed = functools.partial(random.Random(seed).randrange, DEAL_SEEDS)

    def lobby_text(self, row: TableRow, seats: list[SeatRow], lang: str) -> str:
        game = get_game(row.game)
        opts = game.parse_options(row.options).model_dump(mode="json")
        lines = [f"🃏 <b>{words.title(row.game, lang)}</b> — " + t(lang, "new table")]
        if opts:
            lines.append(t(lang, "House rules: {rules}", rules=", ".join(f"{k}={v}" for k, v in opts.items())))
        if (clock := self.clock.service) is not None:  # the table's time control
            lines.append(lobby_clock_line(row, lang, clock.default_per_move))
        marks = {"easy": " 🐣", "strong": " 🧠"}  # the AI seats' levels, as on the lobby's buttons
        levels = row.ui.ai_levels
        players = ", ".join(words.name(s.name) + marks.get(levels.get(s.name, ""), "") for s in seats) or "—"
        lines.append(t(lang, "Players ({n}, {low}–{high}): {names}", n=len(seats), low=game.min_players,
                       high=game.max_players, names=players))
        if row.status == "lobby":
            lines.append(t(lang, "Press Join to sit down; the creator or an admin presses Start."))
        elif row.status == "cancelled":
            lines.append(t(lang, "This table was cancelled."))
        elif row.status == "playing":
            lines.append(t(lang, "The game is on."))
        return "\n".join(lines)

    async def show(self, tx: Tx, row: TableRow, seats: list[SeatRow], lang: str, send: bool = False) -> None:
        slot = f"lobby:{row.id}"
        text = self.lobby_text(row, seats, lang)
        markup: out.Markup = None
        if row.status in ("lobby", "playing"):  # hands in the group, and whether the bot may bring them unasked
            text += "\n" + await in_group.rights_line(tx, row.chat_id, lang)
        if row.status == "playing":  # once the game runs, the lobby's keyboard is "My hand"
            markup = await in_group.table_keyboard(tx, row, lang)
        elif row.status == "lobby":
            if row.ui.lobby_mode == "clock":  # the clock's settings
                clock = self.clock.service
                shown = row.ui.clock or ClockUi(clock.default_per_move if clock is not None else 0.0)
                markup = clock_keyboard(row.id, lang, shown.per_move, shown.bank, shown.strikes, shown.absent)
            elif row.ui.lobby_mode == "opts":
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
            game = table_game(game_id.lower())
            options = game.parse_options(parse_option_args(args)).model_dump(mode="json")
        except GameError as exc:
            await self.core.say(where, not_seatable(exc, words.typed(game_id), lang))
            return
        except OptionsError as exc:
            # Each problem in the chat's words; "together" names the values as typed (the engine cannot).
            problems = tuple(OptionProblem(p.kind, p.key, " ".join(args)) if p.kind == "together" else p
                             for p in exc.problems) or (OptionProblem("together", "", " ".join(args)),)
            await self.core.say(where, options_error(game.id, problems, lang))
            return
        async with self.core.store.transaction() as tx:
            if await tx.open_table(where.chat_id, where.thread_id):
                await out.send_text(tx, where.chat_id, t(lang, "There is already a table here. Use /cancel first."),
                                    thread_id=where.thread_id)
                self.core.outbox.wake()
                return
            table_id = await tx.create_table(where.chat_id, where.thread_id, game.id, actor.user_id, options,
                                             self.deal_seed())
            token = secrets.token_urlsafe(JOIN_TOKEN_BYTES)
            await tx.set_join_token(table_id, token)
            seats = [SeatRow(0, actor.user_id, actor.name)] if actor.started else []
            await tx.set_seats(table_id, seats)
            row = await tx.table(table_id)
            assert row is not None
            await self.show(tx, row, seats, lang, send=True)
            if not actor.started:
                await out.send_text(tx, where.chat_id, t(lang, "{who}, open the bot once so I can send you your cards.",
                                                         who=words.name(actor.name)),
                                    join_link_keyboard(self.bot_username, f"j{token}", lang),
                                    thread_id=where.thread_id)
        self.core.outbox.wake()
        game_log.opened(table_id, where.chat_id, game.id)

    async def open_table_id(self, where: Where) -> int | None:
        async with self.core.store.read() as tx:
            row = await tx.open_table(where.chat_id, where.thread_id)
        return row.id if row else None

    async def table_is_here(self, table_id: int, where: Where) -> bool:
        """Whether the table lives in this chat and forum topic (a lobby press acts only there)."""
        return await self.creator_here(table_id, where) is not None

    async def creator_here(self, table_id: int, where: Where) -> int | None:
        """The table's creator if the table lives in this chat and topic (else None: forged data naming
        another chat's table). A press by the creator needs no admin check from Telegram."""
        async with self.core.store.read() as tx:
            row = await tx.table(table_id)
        if row is None or row.chat_id != where.chat_id or row.thread_id != where.thread_id:
            return None
        return row.creator_id

    async def join_payload(self, table_id: int) -> str:
        """The deep-link payload of the table's Join link: ``j`` and the table's secret token."""
        async with self.core.store.read() as tx:
            token = await tx.join_token(table_id)
        if token is None:  # a table opened before tokens existed gets one now
            token = secrets.token_urlsafe(JOIN_TOKEN_BYTES)
            async with self.core.store.transaction() as tx:
                await tx.set_join_token(table_id, token)
        return f"j{token}"

    async def _reseated(self, tx: Tx, row: TableRow, seats: list[SeatRow]) -> None:
        """The lobby's seats changed (a join, a leave, an AI): they are stored, the table takes a new version
        and the lobby message is redrawn in the chat's language."""
        await tx.set_seats(row.id, seats)
        row.version += 1
        await tx.save_table(row)
        await self.show(tx, row, seats, await tx.chat_lang(row.chat_id))

    async def join(self, table_id: int, actor: Actor, lang: str) -> Answer:
        if not actor.started:
            return Answer(t(lang, "Open the bot first, then you are seated."),
                          url=f"https://t.me/{self.bot_username}?start={await self.join_payload(table_id)}")
        async with self.core.lock(table_id), self.core.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None or loaded.row.status != "lobby":
                return Answer(t(lang, "This table is not taking players."), alert=True)
            row, seats = loaded.row, loaded.seats
            if any(s.user_id == actor.user_id for s in seats):
                return Answer(t(lang, "You are already at this table."), alert=True)
            game = get_game(row.game)
            if len(seats) >= game.max_players:
                return Answer(t(lang, "The table is full."), alert=True)
            seats.append(SeatRow(len(seats), actor.user_id, actor.name))
            await self._reseated(tx, row, seats)
        self.core.outbox.wake()
        return Answer(t(lang, "You are in."))

    async def leave(self, table_id: int, actor: Actor, lang: str) -> Answer:
        async with self.core.lock(table_id), self.core.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None or loaded.row.status != "lobby":
                return Answer(t(lang, "You can only leave a table before it starts."), alert=True)
            row, seats = loaded.row, loaded.seats
            if not any(s.user_id == actor.user_id for s in seats):
                return Answer(t(lang, "You are not at this table."), alert=True)
            seats = [s for s in seats if s.user_id != actor.user_id]
            await self._reseated(tx, row, seats)
        self.core.outbox.wake()
        return Answer(t(lang, "You left the table."))

    async def add_ai(self, table_id: int, actor: Actor, lang: str, level: str = "") -> Answer:
        """Seat an AI player; ``level`` (easy | strong; "" the bot's default) is kept per seat in the
        table's ``ui.ai_levels``, by the seat's name (names are unique at a table)."""
        if level not in AI_LEVELS:
            return Answer(t(lang, "This button is not valid."), alert=True)
        async with self.core.lock(table_id), self.core.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None or loaded.row.status != "lobby":
                return Answer(t(lang, "This table is not taking players."), alert=True)
            row, seats = loaded.row, loaded.seats
            if len(seats) >= get_game(row.game).max_players:
                return Answer(t(lang, "The table is full."), alert=True)
            used = {s.name for s in seats}
            name = next(n for n in AI_NAMES + tuple(f"🤖 AI {i}" for i in range(9)) if n not in used)
            seats.append(SeatRow(len(seats), None, name))
            if level:
                row.ui.ai_levels[name] = level
            await self._reseated(tx, row, seats)
        self.core.outbox.wake()
        return Answer(t(lang, "An AI player sat down."))

    async def lobby_options(self, table_id: int, actor: Actor, lang: str, mode: str, key: str = "",
                            is_admin: bool = False) -> Answer:
        """Show the house-rules keyboard, step one option to its next value, or go back."""
        async with self.core.lock(table_id), self.core.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
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
            row.ui.lobby_mode = "opts" if mode in ("opts", "opt") else "main"
            row.version += 1
            await tx.save_table(row)
            await self.show(tx, row, loaded.seats, await tx.chat_lang(row.chat_id))
        self.core.outbox.wake()
        return Answer()

    async def cancel(self, table_id: int, actor: Actor, lang: str, is_admin: bool) -> Answer:
        """The table's creator or an admin ends it. Never a tournament's table, not even for the organizer:
        a cancelled board would score nothing for players who were winning it, and the round's standings
        would be made of unequal rounds. A player who cannot go on leaves (/leave: the AI plays the seat),
        and the organizer ends the whole tournament with /tournament cancel, whose tables then play on
        as ordinary games (and can then be cancelled)."""
        async with self.core.lock(table_id), self.core.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None or loaded.row.status not in ("lobby", "playing"):
                return Answer(t(lang, "There is no table to cancel."), alert=True)
            row = loaded.row
            if await _in_running_tournament(tx, row):
                return Answer(t(lang, "A tournament's table cannot be cancelled: a player leaves with /leave "
                                      "(the AI plays on for them), and the organizer may end the whole "
                                      "tournament with /tournament cancel."), alert=True)
            if actor.user_id != row.creator_id and not is_admin:
                return Answer(t(lang, "Only the table's creator or an admin can cancel it."), alert=True)
            was_playing = row.status == "playing"
            row.status = "cancelled"
            row.version += 1
            await tx.save_table(row)
            chat_lang = await tx.chat_lang(row.chat_id)
            await self.show(tx, row, loaded.seats, chat_lang)
            # The group is told once, in its language, however the table was cancelled (/cancel or the
            # lobby's button); the one who cancelled gets no second message of their own.
            await out.log_line(tx, row.chat_id, t(chat_lang, "The table was cancelled."), row.thread_id)
            if was_playing:
                await self.publisher.closed_hands(tx, row, loaded.seats)
        self.core.forget(table_id)
        self.core.outbox.wake()
        game_log.cancelled(table_id, was_playing)
        return Answer(t(lang, "Cancelled."))

    async def start(self, table_id: int, actor: Actor, lang: str, is_admin: bool) -> Answer:
        async with self.core.lock(table_id), self.core.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None:  # a forged or long gone button
                return Answer(t(lang, "This button is not valid any more."), alert=True)
            if loaded.row.status != "lobby":
                return Answer(t(lang, "This table has already started."), alert=True)
            if loaded.row.ui.paused:  # the bot is not in the group (bot/services/presence.py)
                return Answer(t(lang, "The game is paused: I am not in the group. It goes on when I am added back."),
                              alert=True)
            row, seats = loaded.row, loaded.seats
            if actor.user_id != row.creator_id and not is_admin:
                return Answer(t(lang, "Only the table's creator or an admin can start the game."), alert=True)
            game = get_game(row.game)
            if len(seats) < game.min_players:
                return Answer(t(lang, "{game} needs at least {n} players; {have} seated. Add AI players?",
                                game=words.title(row.game, lang), n=game.min_players, have=len(seats)), alert=True)
            try:
                state = game.new(len(seats), seed=row.seed, options=row.options)
            except OptionsError:  # rules that /new accepted but this many players cannot play
                rules = house_rules_typed(game, row.options)
                return Answer(t(lang, "These house rules do not work with {n} players ({rules}): seat another "
                                "number of players, or /cancel and open the table with other rules.",
                                n=len(seats), rules=clip_plain(rules, 60)), alert=True)
            await self._begin(tx, row, seats, state, from_lobby=True)
        self.began(row, seats, state)
        return Answer(t(lang, "Let's play!"))

    async def _begin(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: State, from_lobby: bool) -> None:
        """Start the clock and publish the first table of the dealt ``state`` (in the caller's transaction)."""
        row.status = "playing"
        row.version += 1
        row.state = state.to_json()
        tour = {TOURNAMENT: row.ui.extra[TOURNAMENT]} if TOURNAMENT in row.ui.extra else {}
        row.ui = TableUi(ai_levels=row.ui.ai_levels, extra=tour)  # the lobby's keys go; AI levels, a tournament stay
        if (clock := self.clock.service) is not None:  # the first turn's deadline
            await clock.moved(tx, row, seats, state)
        await tx.save_table(row)
        chat_lang = await tx.chat_lang(row.chat_id)
        if from_lobby:
            if self.publisher.takes_lobby(row):
                row.ui.lobby_to_table = True  # the lobby message becomes the first table (its keyboard goes)
            else:
                await self.show(tx, row, seats, chat_lang)
        await self.publisher.publish(tx, row, seats, state, [], mover=None, chat_lang=chat_lang)
        await tx.save_table(row)

    def began(self, row: TableRow, seats: list[SeatRow], state: State) -> None:
        """After the start's commit: keep the state, send what was queued, let the AI seats play."""
        self.core.remember(row, state)
        self.core.outbox.wake()
        game_log.started(row.id, row.game, len(seats), sum(s.is_ai for s in seats))
        self.play.schedule_ai(row.id)

    async def begin_seated(self, tx: Tx, chat_id: int, thread_id: int, game_id: str, creator_id: int,
                           options: dict[str, Any], seats: list[SeatRow], clock: ClockRow | None,
                           tournament_id: int) -> tuple[TableRow, State]:
        """A table whose players are already chosen (a tournament's round): opened and begun in the
        caller's transaction, with no lobby message and no join; ``clock`` its time control. The caller
        calls ``began`` after the commit."""
        table_id = await tx.create_table(chat_id, thread_id, game_id, creator_id, options, self.deal_seed(),
                                         tournament_id)
        await tx.set_seats(table_id, seats)
        if clock is not None:
            clock.table_id = table_id
            await tx.save_clock(clock)
        row = await tx.table(table_id)
        assert row is not None
        row.ui.extra[TOURNAMENT] = tournament_id  # its group message gets a Score button (a chat may hold several)
        state = get_game(game_id).new(len(seats), seed=row.seed, options=row.options)  # checked at /tournament
        await self._begin(tx, row, seats, state, from_lobby=False)
        game_log.opened(table_id, chat_id, game_id)
        return row, state


async def _in_running_tournament(tx: Tx, row: TableRow) -> bool:
    board = await tx.board_of_table(row.id)
    if board is None:
        return False
    tour = await tx.tournament(board.tournament_id)
    return tour is not None and tour.status == "running"
