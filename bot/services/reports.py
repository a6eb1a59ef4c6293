"""Reading a chat's tables: the score sheet, the game record; and /start. (The league: bot/league.)"""

from __future__ import annotations

from bot.resources import asset
from bot.services import outbox as out
from bot.services.types import Actor, Where
from bot.ui import words
from bot.ui.i18n import t
from engine.core import State
from engine.record import dumps, make_record

RULES_DIR = asset("rules")


class Reports:
    """Reporting part of ``Tables`` (a mixin)."""

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


def rules_text(game_id: str, lang: str) -> str | None:
    for candidate in (RULES_DIR / f"{game_id}.{lang}.txt", RULES_DIR / f"{game_id}.en.txt"):
        if candidate.exists():
            return candidate.read_text(encoding="utf-8").strip()
    return None
