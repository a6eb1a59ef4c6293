"""/hint in the DM: the normal AI level's move for the player's own turn, told only to them.

The AI decides from the player's view alone (``engine.ai`` deals the cards the seat has not seen
afresh; a test holds every level to moves that depend only on the view), so a hint never carries
information about other hands.
"""

from __future__ import annotations

from bot.presentation.registry import presentation
from bot.services.ai_seats import AiSeats
from bot.services.core import TableCore
from bot.services.types import Actor
from bot.ui import words
from bot.ui.i18n import t


class Hints:
    """The AI's suggestion for the player's own turn (it uses the store, the state cache and the AI pool)."""

    def __init__(self, core: TableCore, ai: AiSeats) -> None:
        self.core = core
        self.ai = ai

    async def hint(self, actor: Actor, lang: str) -> str:
        async with self.core.store.read() as tx:
            rows = await tx.tables_of_user(actor.user_id)
            seats = {row.id: await tx.seats(row.id) for row in rows}
        for row in sorted(rows, key=lambda r: -r.updated_at):
            state = self.core.state(row)
            mine = next((s.seat for s in seats[row.id] if s.user_id == actor.user_id), None)
            if mine is None or state.to_act != mine:
                continue
            action = await self.ai.choose(state, mine, row.seed ^ row.version, "normal")
            return "💡 " + t(lang, "At {table}, I would play: {move}", table=words.title(row.game, lang),
                            move=presentation(row.game).action_label(action, lang))
        return t(lang, "It is not your turn at any table.")
