"""What people see after a change: the group's table message and log, each player's hand in the DM,
the score grid and the final standings. Everything goes out through the outbox, in the change's
own transaction."""

from __future__ import annotations

from typing import Any

from bot.services import outbox as out
from bot.services.clocks import clock_line
from bot.store.sqlite import SeatRow, TableRow, Tx
from bot.ui import words
from bot.ui.keyboards import (
    pick_keyboard,
    play_keyboard,
)
from engine.core import State


class Publisher:
    """Publishing part of ``Tables`` (a mixin)."""

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
                live = s.seat == to_act and s.seat not in row.ui.get("autopilot", [])  # issue 18: AI plays it
                await self._hand_message(tx, row, s, state, names, live=live, new=new_deal)
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
            if line := clock_line(row, lang):  # issue 18: the table's time control
                caption += "\n" + line
            picture = {"kind": "table", "view": view, "names": names, "lang": lang}
            if fresh:
                await out.send_picture(tx, row.chat_id, picture, caption, slot=slot, thread_id=row.thread_id)
            else:
                await out.edit_picture(tx, row.chat_id, slot, picture, caption, thread_id=row.thread_id)
            return
        text = "\n".join([*words.table_lines(view, names, lang), clock_line(row, lang)]).rstrip("\n")  # issue 18
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
        totals = list(state.scores())
        picture = {"kind": "grid", "game": row.game, "sheet": sheet, "names": names, "lang": lang,
                   "totals": totals, "current": None if state.over else state.view(None).get("deal_no")}
        await out.send_picture(tx, row.chat_id if chat_id is None else chat_id, picture,
                               self.pictures.grid_caption(sheet, names, lang, row.game, totals),
                               thread_id=row.thread_id if thread_id is None else thread_id)
        return True

    async def _hand_message(self, tx: Tx, row: TableRow, seat: SeatRow, state: State, names: list[str],
                            live: bool, new: bool = False, group: int | None = None, deal: Any = None,
                            pick: tuple[str, int] | None = None) -> None:
        assert seat.user_id is not None
        lang = await tx.user_lang(seat.user_id)
        view = state.view(seat.seat)
        text = words.hand_text(view, names, lang, await tx.chat_title(row.chat_id), live)
        if live and (line := clock_line(row, lang, self.clocks.clock.now() if self.clocks else None)):
            text += "\n" + line  # issue 18: the control and the time left
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
            await out.send_picture(tx, row.chat_id, picture, text, thread_id=row.thread_id)  # clipped there
        else:
            await out.send_text(tx, row.chat_id, text, thread_id=row.thread_id)
