"""The bot's own membership of a group: removed, its tables there pause; added back, they go on.

Without this a kicked bot played on: AI seats and turn timers kept moving, and every group message
failed with 403. A pause is a flag in the table's ``ui`` (no version change, so the players' buttons
work again as they were once the bot is back); presses, AI seats and timers all honour it.
"""

from __future__ import annotations

from bot.services import outbox as out
from bot.services.core import TableCore
from bot.services.ports import AiScheduler
from bot.store.contract import StoreTx as Tx
from bot.store.rows import TableRow
from bot.ui import words
from bot.ui.i18n import t


def is_paused(row: TableRow) -> bool:
    return row.ui.paused


class PresenceService:
    """Pausing and resuming a chat's tables."""

    def __init__(self, core: TableCore, play: AiScheduler) -> None:
        self.core = core
        self.play = play

    async def bot_removed(self, chat_id: int) -> int:
        """The bot left or was removed from the group: pause its tables, tell the players in their DMs."""
        return await self._set_paused(chat_id, True)

    async def bot_added(self, chat_id: int) -> int:
        """The bot is a member again: resume the paused tables, tell the players and the group."""
        count = await self._set_paused(chat_id, False)
        for table_id in await self._open_ids(chat_id):
            self.play.schedule_ai(table_id)
        return count

    async def _open_ids(self, chat_id: int) -> list[int]:
        async with self.core.store.read() as tx:
            return [row.id for row in await tx.open_tables_of_chat(chat_id)]

    async def _set_paused(self, chat_id: int, paused: bool) -> int:
        changed = 0
        for table_id in await self._open_ids(chat_id):
            async with self.core.lock(table_id), self.core.store.transaction() as tx:
                loaded = await self.core.load(tx, table_id)
                if loaded is None or loaded.row.status not in ("lobby", "playing") or is_paused(loaded.row) == paused:
                    continue
                row = loaded.row
                row.ui.paused = paused
                # Resuming restarts the turn clock: the pause is nobody's slow move.
                await tx.save_table(row, touch=not paused)
                if row.status == "playing":
                    await self._tell_players(tx, row, [s.user_id for s in loaded.seats if s.user_id], paused)
                    if not paused:
                        lang = await tx.chat_lang(row.chat_id)
                        await out.log_line(tx, row.chat_id, t(lang, "I am back: the game goes on."), row.thread_id)
                changed += 1
            self.core.forget(table_id)
        if changed:
            self.core.outbox.wake()
        return changed

    async def _tell_players(self, tx: Tx, row: TableRow, user_ids: list[int], paused: bool) -> None:
        chat = words.name(await tx.chat_title(row.chat_id) or "?")
        for user_id in user_ids:
            lang = await tx.user_lang(user_id)
            game = words.title(row.game, lang)
            if paused:
                text = t(lang, "I was removed from {chat}: the game of {game} is paused until I am added back.",
                         chat=chat, game=game)
            else:
                text = t(lang, "I am back in {chat}: the game of {game} goes on.", chat=chat, game=game)
            await out.send_text(tx, user_id, text)
