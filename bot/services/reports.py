"""Reading a chat's tables: the score sheet, the game record; and /start. (The league: bot/league.)"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import games
from bot.services import outbox as out
from bot.services.core import TableCore
from bot.services.ports import HandResender, Joiner, TablePublisher
from bot.services.public_log import FINISHED, public_log
from bot.services.types import Actor, Where
from bot.store.contract import StoreTx as Tx
from bot.store.rows import TableRow
from bot.ui import words
from bot.ui.i18n import t
from engine.core import State
from engine.record import dumps, make_record


class Reports:
    """The score sheet, the game record, and /start (which completes a join from a Join link)."""

    def __init__(self, core: TableCore, publisher: TablePublisher, lobby: Joiner, people: HandResender) -> None:
        self.core = core
        self.publisher = publisher
        self.lobby = lobby
        self.people = people

    async def score(self, where: Where, table_id: int | None = None) -> None:
        """The sheet of ``table_id`` (one of a tournament's tables here, named or chosen), else of the
        table here or the last one played here. Only a table of this chat and topic is ever shown."""
        async with self.core.store.read() as tx:
            row = await _table(tx, where, table_id)
            seats = await tx.seats(row.id) if row else []
        if row is None or row.state is None:
            await self.core.say(where, t(where.lang, "No game has been played here yet."))
            return
        state = State.from_json(row.state)
        names = [s.name for s in seats]
        async with self.core.store.transaction() as tx:
            if not await self.publisher.grid(tx, row, state, names, where.lang, where.chat_id, where.thread_id):
                text = words.sheet_text(row.game, state.sheet(), names, state.scores(), where.lang)
                await out.send_text(tx, where.chat_id, text, thread_id=where.thread_id)  # clipped there
        self.core.outbox.wake()

    async def record(self, where: Where, table_id: int | None = None) -> None:
        """The record of ``table_id`` (named or chosen, as for ``score``), else of the table here or the last
        one played here: the whole record once it is over, its public log while it plays."""
        async with self.core.store.read() as tx:
            row = await _table(tx, where, table_id)
            seats = await tx.seats(row.id) if row else []
            actions = await tx.actions(row.id) if row else []
        if row is None or row.state is None:
            await self.core.say(where, t(where.lang, "No game has been played here yet."))
            return
        names = [s.name for s in seats]
        if row.status in FINISHED:
            record = make_record(State.from_json(row.state), actions, names)
            data = dumps(record).encode()
            filename = f"kozyr-{row.game}-{row.id}.json"
            caption = t(where.lang, "Replay it with: python -m engine replay FILE")
        else:  # the seed and the actions would rebuild every hand: only what the table has shown
            data = public_log(row.game, row.options, row.seed, names, actions, where.lang).encode()
            filename = f"kozyr-{row.game}-{row.id}-so-far.txt"
            caption = t(where.lang, "The game is still on: this is its public log. "
                                    "The full record, to replay, comes when the game ends.")
        async with self.core.store.transaction() as tx:
            await out.send_document(tx, where.chat_id, data, filename, caption, thread_id=where.thread_id)
        self.core.outbox.wake()

    async def opened(self, actor: Actor) -> None:
        """The user pressed Start: the bot may write to them from now on."""
        async with self.core.store.transaction() as tx:
            await tx.set_user_started(actor.user_id)
        actor.started = True  # read before this /start was recorded

    async def deep_start(self, actor: Actor, payload: str,
                         is_member: Callable[[int], Awaitable[bool]] | None = None) -> None:
        """``/start j<token>`` from a table's Join link: the DM is open now, so complete the join.

        The link must carry the table's secret token, and the user must be a member of the table's
        group (``is_member(chat_id)`` asks Telegram): a stranger learns nothing, not even the title."""
        lang = actor.lang
        await self.opened(actor)
        if payload.startswith("j"):
            async with self.core.store.read() as tx:
                table = await tx.token_table(payload[1:]) if len(payload) > 1 else None
            if table is None or is_member is None or not await is_member(table.chat_id):
                text = t(lang, "This link does not open a table for you. Press Join in the group's lobby.")
            else:
                text = (await self.lobby.join(table.id, actor, lang)).text
        else:
            text = t(lang, "Hello! Add me to a group and type /new carnival to open a table. /help lists commands.")
        async with self.core.store.transaction() as tx:
            await out.send_text(tx, actor.user_id, text)
        self.core.outbox.wake()
        await self.people.resend_hands(actor.user_id)


async def _table(tx: Tx, where: Where, table_id: int | None) -> TableRow | None:
    """``table_id`` if it lives in this chat and topic (else nothing), or with no id the table here, else
    the last one played here."""
    if table_id is not None:
        row = await tx.table(table_id)
        return row if row is not None and (row.chat_id, row.thread_id) == (where.chat_id, where.thread_id) else None
    return await tx.open_table(where.chat_id, where.thread_id) or await tx.last_table(where.chat_id, where.thread_id)


def rules_text(game_id: str, lang: str) -> str | None:
    """The game's rules text (``games/<id>/texts/``) in ``lang``, else in English."""
    for candidate in (lang, "en"):
        text = games.rules_text(game_id, candidate)
        if text is not None:
            return text.strip()
    return None
