"""Tournaments in a group: registration with a Join button, rounds whose tables open through the lobby
(``SeatedTables``), results back through the finished-table hook (``table_finished``, a ``TableFinished``
subscriber like the league's), the standings as a picture after each round and at the end, the final
result into the league (``TournamentResult``).

Restart-safe: everything lives in the store; a round is paired from the stored rows (bot/tournaments/
rounds.py), and a periodic pass (and each finished table) moves a tournament on when its round is
complete, so a result that came in while the bot was down, or a round left half opened, is picked up."""

from __future__ import annotations

import asyncio
import logging
import secrets

import games
from bot.league import store as league_db
from bot.league.matches import places as competition_places
from bot.league.matches import teams_of
from bot.services import outbox as out
from bot.services.catalog import not_seatable, table_game
from bot.services.clocks import SELF_MOVED
from bot.services.core import TableCore
from bot.services.lobby import parse_option_args
from bot.services.periodic import Periodic
from bot.services.ports import Plug, SeatedTables, SeatLeaver, TournamentResult, TurnClock
from bot.services.slots import withdraw_player_slot, withdraw_prompt_slot
from bot.services.types import Actor, Answer, Where
from bot.store.contract import StoreTx as Tx
from bot.store.rows import BoardRow, ClockRow, EntrantRow, SeatRow, TableRow, TournamentRow
from bot.tournaments import rounds as plan
from bot.tournaments.naming import Named, entrant_named
from bot.tournaments.pairing import Pairing
from bot.tournaments.pictures import format_name, points_text, standings_picture
from bot.tournaments.settings import TournamentSettings, parse
from bot.tournaments.standings import Standing, forfeit
from bot.ui import words
from bot.ui.clip import clip_plain
from bot.ui.clock_words import span
from bot.ui.i18n import t
from bot.ui.keyboards import tournament_keyboard, withdraw_keyboard, withdraw_player_keyboard
from bot.ui.names import plain_name
from engine.core import GameError, OptionsError, State

log = logging.getLogger(__name__)
TICK = 30.0  # seconds between passes over the live tournaments (registration windows, rounds done)
SEEDS = 2**53


def family(game: str) -> str:
    """The game family whose default points a tournament takes: partnerships or every player alone."""
    return "teams" if games.declaration(game).teams is not None else "solo"


class Tournaments:
    """Every tournament of the bot; one per process (bot/app.py builds it)."""

    def __init__(self, core: TableCore, tables: Plug[SeatedTables], clock: Plug[TurnClock], result: TournamentResult,
                 bot_username: str, pictures: bool, default_per_move: float = 86400.0, tick: float = TICK,
                 leaver: Plug[SeatLeaver] | None = None) -> None:
        self.core = core
        self.store = core.store
        self._tables = tables  # the lobby, built after the play service that tells this one of results
        self._leaver = leaver or Plug()  # the seats service: a withdrawn player's tables go to the AI
        self.clock = clock
        self.result = result
        self.bot_username = bot_username
        self.pictures = pictures
        self.default_per_move = default_per_move
        self._locks: dict[int, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._job = Periodic("tournaments", lambda: tick, self.tick)

    def now(self) -> float:
        import time

        clock = self.clock.service
        return clock.now() if clock is not None else time.time()

    @property
    def tables(self) -> SeatedTables:
        assert self._tables.service is not None, "the root plugs the lobby in"
        return self._tables.service

    def _lock(self, tid: int) -> asyncio.Lock:
        return self._locks.setdefault(tid, asyncio.Lock())

    async def start(self) -> None:
        self._job.start()

    async def stop(self) -> None:
        await self._job.stop()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def busy(self) -> bool:
        return any(not task.done() for task in self._tasks)

    # -- the registration message ------------------------------------------------------------------
    def describe(self, row: TournamentRow, entrants: list[EntrantRow], lang: str) -> str:
        s = TournamentSettings.from_json(row.settings)
        rounds = plan.planned_rounds(row.format, s, len(entrants))
        heading = t(lang, "Tournament: {game}", game=words.title(row.game, lang))
        lines = [f"🏆 <b>{heading}</b>",
                 t(lang, "{format}, {rounds} rounds, tables of {size}; ⏱ {clock} per move",
                   format=format_name(row.format, lang), rounds=rounds or "?", size=s.size,
                   clock=span(s.per_move, lang)),
                 t(lang, "Points per place: {points}; a bye: {bye}",
                   points=" / ".join(points_text(p) for p in s.points), bye=points_text(s.bye))]
        if row.options:
            lines.append(t(lang, "House rules: {rules}", rules=", ".join(f"{k}={v}" for k, v in row.options.items())))
        active = [e for e in entrants if e.withdrawn is None]
        names = ", ".join(words.name(e.name) for e in active) or "—"
        lines.append(t(lang, "Players ({n}): {names}", n=len(active), names=names))
        if row.status == "registration":
            left = max(0.0, (row.closes_at or 0.0) - self.now())
            lines.append(t(lang, "Press Join to enter. Registration closes in {left}; an admin may start it sooner.",
                           left=span(left, lang)))
        elif row.status == "running":
            lines.append(t(lang, "Round {n} is on.", n=row.round))
        elif row.status == "cancelled":
            lines.append(t(lang, "This tournament was cancelled."))
        else:
            lines.append(t(lang, "The tournament is over."))
        return "\n".join(lines)

    async def show(self, tx: Tx, row: TournamentRow, lang: str, send: bool = False) -> None:
        entrants = await tx.entrants(row.id)
        text = self.describe(row, entrants, lang)
        late = row.status == "running" and self._late_join_open(row)
        markup = tournament_keyboard(row.id, lang) if row.status == "registration" or late else None
        slot = f"tour:{row.id}"
        if send:
            await out.send_text(tx, row.chat_id, text, markup, slot=slot, thread_id=row.thread_id)
        else:
            await out.edit_text(tx, row.chat_id, slot, text, markup, thread_id=row.thread_id)

    # -- commands ----------------------------------------------------------------------------------
    async def open(self, where: Where, actor: Actor, args: list[str]) -> None:
        """``/tournament GAME key=value ...`` (an admin): a tournament taking entrants."""
        lang = where.lang
        if not args:
            await self.core.say(where, t(lang, "Which game? For example: /tournament carnival format=swiss rounds=3 "
                                               "clock=1d register=2h quarters=1"))
            return
        game_id = args[0].lower()
        try:
            game = table_game(game_id)
        except GameError as exc:
            await self.core.say(where, not_seatable(exc, words.typed(game_id), lang))
            return
        try:
            raw = parse_option_args(args[1:])
            fmt, settings, rest = parse(raw, (game.min_players, game.max_players), family(game.id),
                                        self.default_per_move)
            options = game.parse_options(rest).model_dump(mode="json")
            game.new(settings.size, seed=0, options=options)  # rules this table size cannot play: said now
        except (OptionsError, ValueError) as exc:  # GameError too: the game exists, these settings do not work
            error = words.name(clip_plain(str(exc), 600))
            await self.core.say(where, t(lang, "That tournament does not work: {error}", error=error))
            return
        async with self.store.transaction() as tx:
            if await tx.open_tournament(where.chat_id, where.thread_id) is not None:
                await out.send_text(tx, where.chat_id, t(lang, "There is already a tournament here: /tournament "
                                                               "shows it, /tournament cancel ends it."),
                                    thread_id=where.thread_id)
                self.core.outbox.wake()
                return
            now = self.now()
            row = TournamentRow(0, where.chat_id, where.thread_id, game.id, options, fmt, settings.as_json(),
                                "registration", actor.user_id, secrets.randbelow(SEEDS),
                                closes_at=now + settings.register, created_at=now)
            await tx.create_tournament(row)
            if actor.started:
                await tx.add_entrant(row.id, EntrantRow(actor.user_id, actor.name, await self._rating(tx, row, actor)))
            await self.show(tx, row, lang, send=True)
        self.core.outbox.wake()

    async def here(self, where: Where) -> TournamentRow | None:
        async with self.store.read() as tx:
            return await tx.open_tournament(where.chat_id, where.thread_id)

    async def belongs(self, tid: int, where: Where) -> TournamentRow | None:
        """The tournament if it lives in this chat and topic (a press acts only where it was made)."""
        async with self.store.read() as tx:
            row = await tx.tournament(tid)
        if row is None or row.chat_id != where.chat_id or row.thread_id != where.thread_id:
            return None
        return row

    async def status(self, where: Where) -> None:
        """``/tournament``: the registration message again, or the standings so far."""
        async with self.store.read() as tx:
            row = await tx.open_tournament(where.chat_id, where.thread_id)
        if row is None:
            await self.core.say(where, t(where.lang, "There is no tournament here. An admin opens one: "
                                                     "/tournament carnival rounds=3"))
            return
        async with self.store.transaction() as tx:
            if row.status == "registration":
                await self.show(tx, row, where.lang, send=True)
            else:
                await self._post_standings(tx, row, where.lang, final=False)
        self.core.outbox.wake()

    async def _rating(self, tx: Tx, row: TournamentRow, actor: Actor) -> float:
        """The player's league rating in this game (this chat, the current season; 0 if none)."""
        rule, _ = await league_db.config(tx, row.chat_id)
        found = await tx.league_rating(row.chat_id, 0, rule.key(self.now()), row.game, actor.user_id)
        return float(found[0]) if found else 0.0

    def _late_join_open(self, row: TournamentRow) -> bool:
        """Late entry (Swiss): until half the rounds have started."""
        s = TournamentSettings.from_json(row.settings)
        return row.format == "swiss" and row.round * 2 < s.rounds

    async def join(self, tid: int, actor: Actor, lang: str) -> Answer:
        if not actor.started:
            return Answer(t(lang, "Open the bot first (so I can send you your cards), then press Join again."),
                          url=f"https://t.me/{self.bot_username}?start")
        async with self._lock(tid), self.store.transaction() as tx:
            row = await tx.tournament(tid)
            if row is None or not (row.status == "registration" or
                                   (row.status == "running" and self._late_join_open(row))):
                return Answer(t(lang, "This tournament is not taking players."), alert=True)
            late = row.status == "running"
            entrant = EntrantRow(actor.user_id, actor.name, await self._rating(tx, row, actor),
                                 joined_round=row.round if late else 0)
            if not await tx.add_entrant(tid, entrant):
                return Answer(t(lang, "You are already in this tournament."), alert=True)
            chat_lang = await tx.chat_lang(row.chat_id)
            await self.show(tx, row, chat_lang)
            if late:
                await out.send_text(tx, row.chat_id, t(
                    chat_lang, "{who} joins late: half a bye for each round already started.",
                    who=words.name(actor.name)), thread_id=row.thread_id)
        self.core.outbox.wake()
        return Answer(t(lang, "You are in the tournament."))

    async def leave(self, tid: int, actor: Actor, lang: str) -> Answer:
        async with self._lock(tid), self.store.transaction() as tx:
            row = await tx.tournament(tid)
            if row is None or row.status != "registration":
                return Answer(t(lang, "You can only leave before the first round."), alert=True)
            if not await tx.remove_entrant(tid, actor.user_id):
                return Answer(t(lang, "You are not in this tournament."), alert=True)
            await self.show(tx, row, await tx.chat_lang(row.chat_id))
        self.core.outbox.wake()
        return Answer(t(lang, "You left the tournament."))

    async def cancel(self, tid: int, actor: Actor, lang: str, is_admin: bool) -> Answer:
        async with self._lock(tid), self.store.transaction() as tx:
            row = await tx.tournament(tid)
            if row is None or row.status not in ("registration", "running"):
                return Answer(t(lang, "There is no tournament to cancel."), alert=True)
            if actor.user_id != row.creator_id and not is_admin:
                return Answer(t(lang, "Only the chat's admins can do that."), alert=True)
            row.status = "cancelled"
            row.finished_at = self.now()
            await tx.save_tournament(row)
            chat_lang = await tx.chat_lang(row.chat_id)
            await self.show(tx, row, chat_lang)
            await out.send_text(tx, row.chat_id, "🏆 " + t(chat_lang, "The tournament was cancelled; its tables "
                                                                      "play on as ordinary games."),
                                thread_id=row.thread_id)
        self.core.outbox.wake()
        return Answer(t(lang, "Cancelled."))

    async def begin(self, tid: int, actor: Actor | None, lang: str, is_admin: bool) -> Answer:
        """Close registration and open the first round (an admin, or the window's end: ``actor`` None)."""
        async with self._lock(tid):
            return await self._begin(tid, actor, lang, is_admin)

    async def _begin(self, tid: int, actor: Actor | None, lang: str, is_admin: bool) -> Answer:
        opened: list[tuple[TableRow, list[SeatRow], State]] = []
        schedule: list[Pairing] = []
        async with self.store.read() as tx:
            row = await tx.tournament(tid)
            entrants = await tx.entrants(tid)
        if row is not None and row.format == "robin" and row.status == "registration":
            s = TournamentSettings.from_json(row.settings)
            if len(entrants) >= s.size:  # about a second of search: off the event loop (entrants wait: locked)
                schedule = await asyncio.to_thread(plan.robin_schedule, [e.user_id for e in entrants], s, row.seed)
        async with self.store.transaction() as tx:
            row = await tx.tournament(tid)
            if row is None or row.status != "registration":
                return Answer(t(lang, "This tournament has already started."), alert=True)
            if actor is not None and actor.user_id != row.creator_id and not is_admin:
                return Answer(t(lang, "Only the chat's admins can do that."), alert=True)
            s = TournamentSettings.from_json(row.settings)
            entrants = await tx.entrants(tid)
            chat_lang = await tx.chat_lang(row.chat_id)
            if len(entrants) < s.size:
                if actor is not None:
                    return Answer(t(lang, "Too few players: {n} entered, a table needs {size}.", n=len(entrants),
                                    size=s.size), alert=True)
                row.status = "cancelled"
                await tx.save_tournament(row)
                await self.show(tx, row, chat_lang)
                await out.send_text(tx, row.chat_id, "🏆 " + t(chat_lang, "Registration is over with too few "
                                                                          "players: the tournament is off."),
                                    thread_id=row.thread_id)
                self.core.outbox.wake()
                return Answer()
            row.status = "running"
            if row.format == "robin":
                s.robin_rounds = [[p.tables, p.byes] for p in schedule]
                row.settings = s.as_json()
                for number, pairing in enumerate(schedule):
                    opened += await self._open_round(tx, row, pairing, number, chat_lang)
                row.round = len(schedule)
            else:
                first = (plan.swiss_round(s, row.seed, 0, entrants, [], []) if row.format == "swiss"
                         else plan.knockout_round(s, 0, entrants, [], []))
                assert first is not None  # enough entrants was checked
                opened += await self._open_round(tx, row, first, 0, chat_lang)
                row.round = 1
            await tx.save_tournament(row)
            await self.show(tx, row, chat_lang)
        for table, seats, state in opened:
            self.tables.began(table, seats, state)
        self.core.outbox.wake()
        return Answer(t(lang, "The tournament begins!"))

    # -- withdrawal --------------------------------------------------------------------------------
    async def ask_withdraw(self, where: Where, actor: Actor) -> bool:
        """``/leave`` in a group with a running tournament the actor plays in: ask to confirm withdrawing
        (a button). False when it is not theirs to leave (no such tournament, not in it, already out):
        the ordinary table's /leave applies then."""
        async with self.store.read() as tx:
            row = await tx.open_tournament(where.chat_id, where.thread_id)
            if row is None or row.status != "running":
                return False
            ordinary = await tx.open_table(where.chat_id, where.thread_id)
            if ordinary is not None and any(s.user_id == actor.user_id for s in await tx.seats(ordinary.id)):
                return False  # seated at the ordinary table here too: /leave is about that one
            entrant = next((e for e in await tx.entrants(row.id) if e.user_id == actor.user_id), None)
        if entrant is None or entrant.withdrawn is not None:
            return False
        lang = where.lang
        async with self.store.transaction() as tx:
            await out.send_text(tx, where.chat_id, t(
                lang, "{who}: withdraw from the tournament? An AI plays your seats at the tables still on, and "
                      "those games count as lost for you; you are paired no more.", who=words.name(actor.name)),
                withdraw_keyboard(row.id, lang), slot=withdraw_prompt_slot(row.id, actor.user_id),
                thread_id=where.thread_id, priority=out.REPLY)
        self.core.outbox.wake()
        return True

    async def is_prompt(self, tid: int, user_id: int, message_id: int) -> bool:
        """Whether ``message_id`` is the withdrawal prompt ``user_id`` asked for (its buttons are theirs)."""
        async with self.store.read() as tx:
            return await tx.slot_message(withdraw_prompt_slot(tid, user_id)) == message_id

    async def withdraw(self, tid: int, actor: Actor, lang: str, prompt_id: int | None = None) -> Answer:
        """The player leaves the tournament: out of the standings' later rounds (marked ✖), and every
        table of it they still play goes to the AI, counted as lost for them (``forfeit``)."""
        async with self._lock(tid), self.store.transaction() as tx:
            row = await tx.tournament(tid)
            if row is None or row.status != "running":
                return Answer(t(lang, "This tournament is not running."), alert=True)
            if prompt_id is not None:
                await tx.enqueue(row.chat_id, "clear_markup", {"message_id": prompt_id}, priority=out.REPLY)
            entrant = next((e for e in await tx.entrants(tid) if e.user_id == actor.user_id), None)
            if entrant is None or entrant.withdrawn is not None:
                return Answer(t(lang, "You are not playing in this tournament."), alert=True)
            chat_lang = await tx.chat_lang(row.chat_id)
            tables = await self._withdraw(tx, row, actor.user_id, "🏆 " + t(
                chat_lang, "{who} withdraws from the tournament: the AI plays their seats at the tables still on, "
                           "and those games count as lost for them.", who=words.name(entrant.name)))
        self.core.outbox.wake()
        await self._leave_tables(tables, actor.user_id)
        self.soon(tid)  # a round left with only byes for them moves on
        return Answer(t(lang, "You withdrew from the tournament."))

    # -- the organizer withdraws a player ----------------------------------------------------------
    async def ask_withdraw_player(self, where: Where, actor: Actor, admin: bool, named: Named) -> None:
        """``/tournament withdraw`` from the organizer (or a chat admin, as for ``/tournament cancel``) naming
        a player (a reply to their message, @username, or the name the standings show): a player gone for
        good still holds seats the clocks only hand over one missed deadline at a time. Asks to confirm
        (the asker's buttons alone); every refusal is said."""
        lang = where.lang
        async with self.store.read() as tx:
            row = await tx.open_tournament(where.chat_id, where.thread_id)
            refusal = self._refused(row, actor, admin, lang)
            entrant = None
            if refusal is None and row is not None:
                entrant, refusal = await entrant_named(tx, await tx.entrants(row.id), named, lang)
        if refusal is not None or row is None or entrant is None:
            await self.core.say(where, refusal or t(lang, "This tournament is not running."))
            return
        async with self.store.transaction() as tx:
            await out.send_text(tx, where.chat_id, t(
                lang, "{by}: withdraw {who} from the tournament? An AI plays their seats at the tables still on, "
                      "those games count as lost for them, and they are paired no more.",
                by=words.name(actor.name), who=words.name(entrant.name)),
                withdraw_player_keyboard(row.id, entrant.user_id, lang),
                slot=withdraw_player_slot(row.id, actor.user_id, entrant.user_id), thread_id=where.thread_id,
                priority=out.REPLY)
        self.core.outbox.wake()

    def _refused(self, row: TournamentRow | None, actor: Actor, admin: bool, lang: str) -> str | None:
        """Why ``actor`` may not withdraw a player of ``row`` (None: they may)."""
        if row is None or row.status != "running":
            return t(lang, "This tournament is not running.")
        if actor.user_id != row.creator_id and not admin:
            return t(lang, "Only the tournament's organizer or the chat's admins can withdraw a player.")
        return None

    async def is_player_prompt(self, tid: int, asker: int, player: int, message_id: int) -> bool:
        """Whether ``message_id`` is the prompt ``asker`` got to withdraw ``player`` (its buttons are theirs)."""
        async with self.store.read() as tx:
            return await tx.slot_message(withdraw_player_slot(tid, asker, player)) == message_id

    async def withdraw_player(self, tid: int, actor: Actor, player: int, lang: str, admin: bool,
                              prompt_id: int | None = None) -> Answer:
        """The organizer's confirmation: ``player`` is out just as by their own withdrawal (``withdraw``),
        the group told who did it. Rights and the entrant are read again: the prompt may be old."""
        async with self._lock(tid), self.store.transaction() as tx:
            row = await tx.tournament(tid)
            if prompt_id is not None and row is not None:
                await tx.enqueue(row.chat_id, "clear_markup", {"message_id": prompt_id}, priority=out.REPLY)
            refusal = self._refused(row, actor, admin, lang)
            if refusal is not None or row is None:
                return Answer(refusal or t(lang, "This tournament is not running."), alert=True)
            entrant = next((e for e in await tx.entrants(tid) if e.user_id == player), None)
            if entrant is None:  # no such entrant: the prompt names only entrants, so this press is forged
                return Answer(t(lang, "This button is not valid."), alert=True)
            if entrant.withdrawn is not None:  # a press answer is plain text: the name is not escaped
                return Answer(t(lang, "{who} has already withdrawn from the tournament.",
                                who=plain_name(entrant.name)), alert=True)
            chat_lang = await tx.chat_lang(row.chat_id)
            who, by = words.name(entrant.name), words.name(actor.name)
            line = (t(chat_lang, "The organizer withdrew {who} from the tournament: the AI plays their seats at the "
                                 "tables still on, and those games count as lost for them.", who=who)
                    if actor.user_id == row.creator_id else
                    t(chat_lang, "{by}, an admin of the chat, withdrew {who} from the tournament: the AI plays their "
                                 "seats at the tables still on, and those games count as lost for them.",
                      by=by, who=who))
            tables = await self._withdraw(tx, row, player, "🏆 " + line)
        self.core.outbox.wake()
        await self._leave_tables(tables, player)
        self.soon(tid)
        return Answer(t(lang, "{who} is withdrawn from the tournament.", who=plain_name(entrant.name)))

    async def _withdraw(self, tx: Tx, row: TournamentRow, player: int, line: str) -> list[int]:
        """Mark the player out from the next round on (the group told ``line``); the tournament's tables
        they still play, for the caller to hand to the AI once this transaction is over."""
        if not await tx.withdraw_entrant(row.id, player, row.round):
            return []
        await out.send_text(tx, row.chat_id, line, thread_id=row.thread_id)
        live = []
        for b in await tx.boards(row.id):
            if b.kind == "table" and b.table_id is not None and player in b.players:
                table = await tx.table(b.table_id)
                if table is not None and table.status == "playing":
                    live.append(b.table_id)
        return live

    async def _leave_tables(self, tables: list[int], player: int) -> None:
        leaver = self._leaver.service
        if leaver is None:  # no seats service (a test without one): the clocks' strikes hand them over
            return
        for table_id in tables:
            await leaver.quit_seat(table_id, player)

    async def close_prompt(self, chat_id: int, message_id: int) -> None:
        """"No, stay": the prompt's buttons go."""
        async with self.store.transaction() as tx:
            await tx.enqueue(chat_id, "clear_markup", {"message_id": message_id}, priority=out.REPLY)
        self.core.outbox.wake()

    def _later(self, tables: list[int], player: int) -> None:
        """Hand the tables over after the caller's transaction (each under its own table's lock)."""
        task = asyncio.create_task(self._leave_tables(tables, player), name=f"withdrawn-{player}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- rounds ------------------------------------------------------------------------------------
    async def _open_round(self, tx: Tx, row: TournamentRow, pairing: Pairing, number: int,
                          lang: str) -> list[tuple[TableRow, list[SeatRow], State]]:
        """Store the round's boards and open its tables (in the caller's transaction); say who plays where."""
        s = TournamentSettings.from_json(row.settings)
        names = {e.user_id: e.name for e in await tx.entrants(row.id)}
        opened = []
        lines = ["🏆 " + t(lang, "Round {n}", n=number + 1)]
        for board, players in enumerate(pairing.tables):
            seats = [SeatRow(i, p, names.get(p, str(p))) for i, p in enumerate(players)]
            clock = ClockRow(0, s.per_move, strikes=s.strikes, absent="ai")
            table, state = await self.tables.begin_seated(tx, row.chat_id, row.thread_id, row.game, row.creator_id,
                                                          row.options, seats, clock, row.id)
            await tx.add_board(BoardRow(row.id, number, board, "table", list(players), table.id))
            opened.append((table, seats, state))
            lines.append(t(lang, "Table {n}: {names}", n=board + 1,
                           names=", ".join(words.name(names.get(p, "?")) for p in players)))
        if pairing.byes:
            await tx.add_board(BoardRow(row.id, number, len(pairing.tables), "bye", list(pairing.byes)))
            lines.append(t(lang, "Bye ({points} points): {names}", points=points_text(s.bye),
                           names=", ".join(words.name(names.get(p, "?")) for p in pairing.byes)))
        await out.send_text(tx, row.chat_id, "\n".join(lines), thread_id=row.thread_id)
        return opened

    async def table_finished(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: State) -> None:
        """A ``TableFinished`` subscriber: a tournament table's places go to its board (in the final move's
        transaction, in a savepoint: a failure here never fails the move), then the round may be complete."""
        board = await tx.board_of_table(row.id)
        if board is None or not state.over:
            return
        await tx.savepoint("tournament_result")
        try:
            await self._record(tx, board, row, state)
        except Exception:
            await tx.rollback_to("tournament_result")
            log.exception("tournament: the result of table %s could not be recorded", row.id)
        await tx.release("tournament_result")
        self.soon(board.tournament_id)

    async def _record(self, tx: Tx, board: BoardRow, table: TableRow, state: State) -> None:
        row = await tx.tournament(board.tournament_id)
        if row is None or row.status != "running":
            return
        scores = state.scores()
        teams = teams_of(table.game, table.options, len(scores))
        team_of = {seat: i for i, team in enumerate(teams) for seat in team}
        team_place = competition_places([max(scores[s] for s in team) for team in teams])
        places = {player: team_place[team_of[i]] for i, player in enumerate(board.players)}
        entrants = await tx.entrants(row.id)
        out_now = {e.user_id for e in entrants if e.withdrawn is not None}
        places = forfeit(places, out_now)  # withdrawn before this table ended: the AI's play is not theirs
        if not await tx.add_board_results(row.id, board.round, board.board, places):
            return
        s = TournamentSettings.from_json(row.settings)
        if not s.withdraw:
            return
        moved = set(table.ui.extra.get(SELF_MOVED, []))
        lang = await tx.chat_lang(row.chat_id)
        names = {e.user_id: e.name for e in entrants}
        for i, player in enumerate(board.players):
            if i in moved or player in out_now:
                continue
            if row.format == "robin":  # every round is on at once: out of all their tables still playing
                tables = await self._withdraw(tx, row, player, "🏆 " + t(
                    lang, "{who} did not make a single move at a table and is withdrawn from the tournament: "
                          "the AI plays their tables still on, which count as lost for them.",
                    who=words.name(names.get(player, "?"))))
                self._later([x for x in tables if x != table.id], player)
            elif await tx.withdraw_entrant(row.id, player, board.round + 1):
                await out.send_text(tx, row.chat_id, "🏆 " + t(
                    lang, "{who} did not make a single move this round and is withdrawn from the tournament.",
                    who=words.name(names.get(player, "?"))), thread_id=row.thread_id)

    def soon(self, tid: int) -> None:
        """Look at the tournament once the caller's transaction is over (a task keeps the reference)."""
        task = asyncio.create_task(self.advance(tid), name=f"tournament-{tid}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def advance(self, tid: int) -> None:
        """If every table of the started rounds is done: post the standings, then open the next round
        or finish. Idempotent: the stored rows say what is done."""
        opened: list[tuple[TableRow, list[SeatRow], State]] = []
        async with self._lock(tid), self.store.transaction() as tx:
            row = await tx.tournament(tid)
            if row is None or row.status != "running":
                return
            boards = await tx.boards(tid)
            stored = await tx.tournament_results(tid)
            done = {(rnd, board) for rnd, board, _, _ in stored}
            for b in boards:
                if b.kind != "table" or (b.round, b.board) in done:
                    continue
                table = await tx.table(b.table_id) if b.table_id is not None else None
                if table is not None and table.status in ("lobby", "playing"):
                    return  # a table of the round still plays
                if table is not None and table.status == "finished":  # its hook failed: record it now
                    await self._record(tx, b, table, self.core.state(table))
            stored = await tx.tournament_results(tid)
            s = TournamentSettings.from_json(row.settings)
            entrants = await tx.entrants(tid)
            lang = await tx.chat_lang(row.chat_id)
            nxt: Pairing | None = None
            if row.format == "swiss" and row.round < s.rounds:
                nxt = plan.swiss_round(s, row.seed, row.round, entrants, boards, stored)
            elif row.format == "knockout":
                nxt = plan.knockout_round(s, row.round, entrants, boards, stored)
            await self._post_standings(tx, row, lang, final=nxt is None)
            if nxt is None:
                await self._finish(tx, row, lang)
            else:
                opened = await self._open_round(tx, row, nxt, row.round, lang)
                row.round += 1
                await tx.save_tournament(row)
                await self.show(tx, row, lang)
        for table_row, seats, state in opened:
            self.tables.began(table_row, seats, state)
        self.core.outbox.wake()

    async def _finish(self, tx: Tx, row: TournamentRow, lang: str) -> None:
        row.status = "finished"
        row.finished_at = self.now()
        await tx.save_tournament(row)
        await self.show(tx, row, lang)
        table = await self._standings(tx, row)
        await self.result(tx, row.chat_id, row.thread_id, row.game,
                          [(s.id, s.name, s.points) for s in table])

    async def _standings(self, tx: Tx, row: TournamentRow) -> list[Standing]:
        s = TournamentSettings.from_json(row.settings)
        return plan.ranking(row.format, s, await tx.entrants(row.id), await tx.boards(row.id),
                            await tx.tournament_results(row.id), row.round)

    async def _post_standings(self, tx: Tx, row: TournamentRow, lang: str, final: bool) -> None:
        """The standings as a picture (with the same facts as its caption), or as text without pictures."""
        spec, caption = standings_picture(lang, row.game, row.format, row.round, await self._standings(tx, row),
                                          final)
        if self.pictures:
            await out.send_picture(tx, row.chat_id, spec, caption[:1024], thread_id=row.thread_id)
        else:
            await out.send_text(tx, row.chat_id, caption, thread_id=row.thread_id)

    # -- the periodic pass -------------------------------------------------------------------------
    async def tick(self) -> None:
        """Close registration windows that ended; move on rounds that are complete (also after a restart)."""
        async with self.store.read() as tx:
            live = await tx.live_tournaments()
        now = self.now()
        for row in live:
            if row.status == "registration" and row.closes_at is not None and row.closes_at <= now:
                async with self.store.read() as tx:
                    lang = await tx.chat_lang(row.chat_id)
                await self.begin(row.id, None, lang, True)
            elif row.status == "running":
                await self.advance(row.id)
