"""What people see after a change: the group's live table message, each player's hand in the DM,
the deal's score sheet and the final standings. Everything goes out through the outbox, in the
change's own transaction.

The group gets ONE table message per deal (per chapter in games without deals), edited in place;
its caption carries the last few events, so the trick history needs no messages of its own. New
group messages are only for what people should be told: a new deal, a deal's result, the end.
A player gets a NEW DM message (a notification) when their turn comes, unless they acted at this
table within ``ping_after`` seconds (they are looking at it): then their hand is edited in place. A turn
the table plays by itself (``table_plays``: a forced move) is no turn of theirs: nothing live, no ping.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import games
from bot.presentation.registry import hand_kind, presentation
from bot.services import outbox as out
from bot.services.autoplay import table_plays
from bot.services.clock_lines import clock_line
from bot.services.core import TableCore
from bot.services.hands import in_group
from bot.services.hands.buttons import pick_keyboard, play_markup
from bot.services.hands.deliver import deliver_hand
from bot.services.hands.toggle_hand import toggle_hand
from bot.services.pictures import Pictures
from bot.services.ports import ForcedRule, Plug, TurnClock
from bot.services.slots import hand_slot
from bot.store.contract import StoreTx as Tx
from bot.store.rows import SeatRow, TableRow
from bot.ui import words
from bot.ui.app_links import AppLinks
from bot.ui.clip import visible_units
from bot.ui.i18n import t
from engine.core import State
from engine.events import json_view

RECENT = 4  # event lines the table message's caption keeps
CAPTION_LIMIT = 1024
RESULTS = frozenset({"deal_end", "quarter_end", "game_over"})  # events whose lines are pinned
TEXT_LIMIT = 4096
PRESSED = "pressed"  # ui.extra: [seat, version] of the last move a person made with a press


def mark_pressed(row: TableRow, seat: int) -> None:
    """A person pressed a button at this table just now (forced moves the table plays for them do not
    count): their next turn within ``ping_after`` is an edit, not a ping, and so is the rest of this turn."""
    row.ui.acted[str(seat)] = time.time()
    row.ui.extra[PRESSED] = [seat, row.version + 1]  # the version the press's move makes


def with_recent(head: str, recent: list[str], limit: int) -> str:
    """The table text followed by the latest event lines that fit in ``limit`` characters."""
    kept: list[str] = []
    size = len(head)
    for line in reversed(recent):
        if size + len(line) + 1 > limit:
            break
        kept.insert(0, line)
        size += len(line) + 1
    return "\n".join([head, *kept]) if kept else head


class Publisher:
    """Tells people about a change, in the change's transaction: the table message, hands, sheet, standings."""

    def __init__(self, core: TableCore, clock: Plug[TurnClock], pictures: Pictures | None = None,
                 ping_after: float = 20.0, app: AppLinks | None = None,
                 forced: Sequence[ForcedRule] = ()) -> None:
        self.core = core
        self.app = app  # the table app's links (None: no app configured)
        self.clock = clock  # the time left, in hands (empty: no clocks)
        self.pictures = pictures
        self.ping_after = ping_after  # seconds: a player who acted more recently is not pinged, their hand is edited
        self.forced = tuple(forced)  # the hand kinds' rules for moves the table plays by itself

    def decides(self, row: TableRow, seat: SeatRow, state: State) -> bool:
        """Whether ``seat`` has something to do: it is their turn and the table does not play the move for
        them. Only then is their hand live (a keyboard) and may a new message notify them."""
        if state.to_act != seat.seat:
            return False
        return not table_plays(row, seat, state.legal_actions(seat.seat), state, self.forced)

    async def publish(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: State,
                       events: list[dict[str, Any]], mover: int | None, chat_lang: str) -> None:
        names = [s.name for s in seats]
        present = presentation(row.game)
        view = present.mark_view(json_view(state.view(None)), events, row.ui.extra)  # e.g. the melds a lay-down changed
        lines: list[str] = []
        results: list[str] = []
        folds: list[tuple[str, tuple[str, str] | None]] = []
        for event in events:
            line = present.event_line(event, names, chat_lang)
            if line:
                (results if event.get("type") in RESULTS else lines).append(line)
                if event.get("type") not in RESULTS:
                    folds.append((line, present.log_fold(event, names, chat_lang)))
        logged = games.declaration(row.game).forced_moves_play
        if logged:  # games of forced moves: a line per round
            # Every round's line is news, and rounds that play themselves come faster than a table
            # edit may go out: the lines go to the group's log, where a burst merges into one message
            # (and a run of lines the game folds becomes one line).
            for line, fold in folds + [(result, None) for result in results]:
                await out.log_line(tx, row.chat_id, line, row.thread_id, fold)
            lines, results = [], []
        if state.over:
            # The table's last state first (as urgent as the news that follows it: the outbox sends the
            # more urgent class first), then the last deal's sheet, then the final standings.
            await self.table_message(tx, row, view, names, chat_lang, lines, results, priority=out.GAME,
                                     logged=logged)
            if any(e.get("type") == "deal_end" for e in events):
                await self.grid(tx, row, state, names, chat_lang)
            await self.hands(tx, row, seats, state, names, mover, view.get("deal_no", 0))
            await self.final(tx, row, state, names, state.scores(), chat_lang)
            return
        if any(e.get("type") == "deal_end" for e in events):  # the deal's sheet, before the next deal's table
            await self.grid(tx, row, state, names, chat_lang)
        # "🂠 My hand" under the table while the game runs (bot/services/hands/in_group.py)
        keyboard = await in_group.table_keyboard(tx, row, chat_lang)  # (the game's last state has none)
        await self.table_message(tx, row, view, names, chat_lang, lines, results, logged=logged, keyboard=keyboard)
        await self.hands(tx, row, seats, state, names, mover, view.get("deal_no", 0))

    async def hands(self, tx: Tx, row: TableRow, seats: list[SeatRow], state: State, names: list[str],
                     mover: int | None, deal: Any) -> None:
        """Each human's DM: a new message at a new deal, a ping or an edit for the player to act (the
        mover too, when the table played their forced move and the choice is theirs now), the mover's
        hand edited."""
        new_deal = row.ui.hand_deal != deal
        row.ui.hand_deal = deal
        acted = row.ui.acted
        numbers = row.ui.hand_n
        now = time.time()
        # The mover's own press goes on in place; a turn the table's move gave them (their forced draw played,
        # now the choice is theirs) is news.
        pressed = row.ui.extra.get(PRESSED) == [mover, row.version]
        for s in seats:
            if s.is_ai:
                continue
            key = str(s.seat)
            live = self.decides(row, s, state)
            if new_deal:
                # The last deal's message keeps its text, loses its keyboard (if it has one: a hand of someone
                # not to act was queued without, note_hand_keyboard).
                if key in numbers and s.seat not in row.ui.bare:
                    await out.clear_keyboard(tx, s.user_id or 0, hand_slot(row, s.seat))
                numbers[key] = numbers.get(key, -1) + 1
                await self.hand_message(tx, row, s, state, names, live=live, new=True)
            elif live:
                # A turn is news (unless they acted within ``ping_after``: they are at the screen); either
                # way the hand to act on is the newest message of the DM, so one under newer messages (a
                # lay-down's proposal, a reply) comes again as a new one.
                going_on = s.seat == mover and pressed
                ping = not going_on and now - acted.get(key, 0.0) >= self.ping_after
                if not ping and await self._buried(tx, row, s):
                    ping = True
                    if going_on:  # the message they pressed had the keyboard (others lost theirs as they moved)
                        await out.clear_keyboard(tx, s.user_id or 0, hand_slot(row, s.seat))
                if ping:
                    numbers[key] = numbers.get(key, 0) + 1
                await self.hand_message(tx, row, s, state, names, live=True, new=ping)
            elif state.over or s.seat == mover:
                await self.hand_message(tx, row, s, state, names, live=live)

    async def table_message(self, tx: Tx, row: TableRow, view: dict[str, Any], names: list[str],
                             lang: str, lines: list[str], results: list[str], priority: int = out.TABLE,
                             logged: bool = False, keyboard: dict[str, Any] | None = None) -> bool:
        """The one group message of this deal (or chapter), edited as cards fall; True when it is new.
        An edit goes at ``priority`` (the table's class, behind news; the game's last state: as news).

        ``logged``: the event lines went to the group's log. The table then never shows a state whose lines
        the group has not been shown: a new table message comes after the lines queued before it (and later
        lines after it), and it is not edited while it waits to be sent, since the edit would make it show
        the rounds of the lines queued after it (``_unsent``). Once sent, its edits wait behind the log's
        lines (their priority class), so they cannot overtake them either; the last state, which goes as
        news, is queued anew behind them. ``keyboard``: "🂠 My hand" (bot/services/hands/in_group.py), above
        the table app's link."""
        deal = view.get("deal_no", 0)
        chapter = presentation(row.game).table_chapter(view)  # games without deals: when to post a fresh table
        key = f"{deal}:{chapter}" if chapter is not None else f"{deal}"
        old = row.ui.table_key
        fresh = key != old
        # A new deal's message starts with the result of the deal before (pinned: it stays for the whole
        # deal, however many edits are merged), then the latest events.
        if fresh:
            row.ui.pinned = results
            recent = lines[-RECENT:]
        else:
            recent = (row.ui.recent + lines + results)[-RECENT:]
        head = list(row.ui.pinned)
        slot = f"t{row.id}:{key}"
        if fresh and old:
            # The last deal's table is history: an edit still queued for it is not worth a message.
            last, row.ui.table_slot = row.ui.table_slot, None
            await tx.drop_pending(f"slot:{last or f't{row.id}:{old}'}")
        elif fresh and self._lobby_to_table(row) and self.takes_lobby(row):
            # The game's first table is the lobby message, edited (see ``takes_lobby``).
            slot = row.ui.table_slot = f"lobby:{row.id}"
        elif not fresh:
            slot = row.ui.table_slot or slot
            if logged and priority < out.TABLE:  # news: queued anew, behind the lines queued before it
                await tx.drop_pending(f"slot:{slot}")
            elif logged and await self._unsent(tx, slot):
                return False
        if logged and fresh:
            await out.seal_log(tx, row.chat_id, row.thread_id)
        row.ui.table_key = key
        row.ui.recent = recent
        priority = out.GAME if fresh else priority
        app_markup = in_group.with_rows(  # "🂠 My hand" above the table app's link
            keyboard, self.app.group_markup(row.id, lang) if self.app is not None else None)
        if self.pictures is not None and self.pictures.has_table(row.game):
            caption = self.pictures.table_caption(view, names, lang)
            shown = view
            if line := clock_line(row, lang):  # the table's time control, in the caption and the picture
                caption += "\n" + line
                shown = {**view, "clock": line}
            caption = with_recent(caption, head + recent, CAPTION_LIMIT)
            picture = {"kind": "table", "view": shown, "names": names, "lang": lang}
            if fresh:
                await out.send_picture(tx, row.chat_id, picture, caption, app_markup, slot=slot,
                                       thread_id=row.thread_id, priority=priority)
            else:
                await out.edit_picture(tx, row.chat_id, slot, picture, caption, app_markup, thread_id=row.thread_id,
                                       priority=priority)
            return fresh
        table = "\n".join([*presentation(row.game).table_lines(view, names, lang), clock_line(row, lang)]).rstrip("\n")
        text = with_recent(table, head + recent, TEXT_LIMIT)  # the clock under the table
        if fresh and slot.startswith("lobby:"):
            await out.edit_text(tx, row.chat_id, slot, text, app_markup, thread_id=row.thread_id, priority=priority)
        elif fresh:
            await out.send_text(tx, row.chat_id, text, app_markup, slot=slot, thread_id=row.thread_id,
                                priority=priority)
        else:
            await out.edit_text(tx, row.chat_id, slot, text, app_markup, thread_id=row.thread_id, priority=priority)
        return fresh

    @staticmethod
    async def _buried(tx: Tx, row: TableRow, seat: SeatRow) -> bool:
        """Whether the DM got newer messages than the seat's hand message (as far as delivered)."""
        shown = await tx.slot_message(hand_slot(row, seat.seat))
        newest = await tx.slot_message(out.newest_slot(seat.user_id or 0))
        return shown is not None and newest is not None and newest > shown

    @staticmethod
    async def _unsent(tx: Tx, slot: str) -> bool:
        """Whether the table's new message (a send, or the lobby made the table) still waits in the queue
        among the log's lines, in their priority class: an edit merged into it would go out before them."""
        pending = await tx.pending(f"slot:{slot}")
        return pending is not None and pending.priority < out.TABLE

    @staticmethod
    def _lobby_to_table(row: TableRow) -> bool:
        """Whether the lobby message was to become the first table (the flag is used up here)."""
        flag, row.ui.lobby_to_table = row.ui.lobby_to_table, False
        return flag

    def takes_lobby(self, row: TableRow) -> bool:
        """Whether the game's first table message can be the lobby message, edited (a text table): the
        group then gets one message at Start, not a lobby edit AND a new table message. Under the group's
        20 a minute (one every 3.05 s) that second message put the first table edits a slot further
        behind the game."""
        return self.pictures is None or not self.pictures.has_table(row.game)

    async def grid(self, tx: Tx, row: TableRow, state: State, names: list[str], lang: str,
                    chat_id: int | None = None, thread_id: int | None = None) -> bool:
        """Post the score grid picture (games that have one); False when there is none to post."""
        if self.pictures is None or not self.pictures.has_grid(row.game):
            return False
        sheet = state.sheet()
        totals = list(state.scores())
        picture = {"kind": "grid", "game": row.game, "sheet": sheet, "names": names, "lang": lang,
                   "totals": totals, "current": None if state.over else state.view(None).get("deal_no")}
        await out.send_picture(tx, row.chat_id if chat_id is None else chat_id, picture,
                               self.pictures.grid_caption(sheet, names, lang, row.game, totals),
                               thread_id=row.thread_id if thread_id is None else thread_id)
        return True

    async def hand_message(self, tx: Tx, row: TableRow, seat: SeatRow, state: State, names: list[str],
                            live: bool, new: bool = False, group: int | None = None,
                            pick: tuple[str, int] | None = None, dm: bool = True) -> None:
        """The seat's hand in the DM (``dm=False``: only its copy in the group, bot/services/hands/in_group.py)."""
        assert seat.user_id is not None
        live = live and self.decides(row, seat, state)  # whoever asks, a move the table plays has no keyboard
        if hand_kind(row.game) == "toggle":  # the toggle hand (bot/services/hands/toggle_hand.py)
            await toggle_hand(tx, row, seat, state, names, live, new, self.now(), self.app, dm=dm,
                              hands=self.core.outbox.ephemeral)
            return
        lang = await tx.user_lang(seat.user_id)
        view = json_view(state.view(seat.seat))
        text = presentation(row.game).hand_text(view, names, lang, await tx.chat_title(row.chat_id), live)
        if live and (line := clock_line(row, lang, self.now())):
            text += "\n" + line  # the control and the time left
        markup: dict[str, Any] | None = None
        if live:
            legal = state.legal_actions(seat.seat)
            if pick is not None:
                markup = out.markup_data(pick_keyboard(row.game, row.id, row.version, legal, pick[0], pick[1], lang))
            else:
                markup = play_markup(row.game, row.id, row.version, legal, lang, group)
        await deliver_hand(tx, row, seat, text, markup, lang, live=live, new=new, dm=dm, over=state.over,
                           app=self.app, hands=self.core.outbox.ephemeral)

    def now(self) -> float | None:
        """The clocks' time, for the time left in a hand (None: no clocks)."""
        clock = self.clock.service
        return clock.now() if clock is not None else None

    async def closed_hands(self, tx: Tx, row: TableRow, seats: list[SeatRow]) -> None:
        """The table was cancelled mid-game: every hand message loses its keyboard and says so."""
        for s in seats:
            if s.user_id is None or str(s.seat) not in row.ui.hand_n:
                continue
            lang = await tx.user_lang(s.user_id)
            text = "\n".join(filter(None, [words.name(await tx.chat_title(row.chat_id)),
                                           f"<b>{words.title(row.game, lang)}</b>",
                                           t(lang, "This table was cancelled.")]))
            await out.edit_text(tx, s.user_id, hand_slot(row, s.seat), text, None, priority=out.REPLY)
            # a hand shown in the group says so too
            await in_group.mirror(tx, row, s, text, None, False, self.core.outbox.ephemeral)

    async def final(self, tx: Tx, row: TableRow, state: State, names: list[str], totals: list[int],
                     lang: str) -> None:
        text = words.standings_text(row.game, names, totals, lang)
        if self.pictures is not None:
            picture = {"kind": "standings", "names": names, "totals": totals, "lang": lang}
            # Visible length decides (an escaped '&' is one character to Telegram): a list too long for a
            # caption becomes the compact standings, so nobody at the bottom is cut off.
            fits = visible_units(text) <= CAPTION_LIMIT
            caption = text if fits else self.pictures.standings_caption(names, totals, lang)
            await out.send_picture(tx, row.chat_id, picture, caption, thread_id=row.thread_id)  # clipped there
        else:
            await out.send_text(tx, row.chat_id, text, thread_id=row.thread_id)
