"""People and chats: who a user is (name, language, whether the bot may write to them), a chat's
language, a group that became a supergroup, and players the bot cannot reach in their DM."""

from __future__ import annotations

from bot.services import outbox as out
from bot.services.core import TableCore
from bot.services.ports import HandPublisher
from bot.store.contract import StoreTx as Tx
from bot.store.rows import UserRow
from bot.ui import words
from bot.ui.i18n import t


class People:
    """Users and chats as the store keeps them; the handlers' middleware asks here, never the store."""

    def __init__(self, core: TableCore, publisher: HandPublisher) -> None:
        self.core = core
        self.publisher = publisher

    # -- the middleware (bot/handlers/context.py) ------------------------------------------
    async def seen_update(self, update_id: int) -> bool:
        admitted = self.core.store.admitted
        if update_id in admitted:  # checked as it was taken in, and handled nowhere else (Store.admitted)
            admitted.discard(update_id)
            return False
        async with self.core.store.read() as tx:
            return await tx.seen_update(update_id)

    async def remember(self, user_id: int, full_name: str, username: str | None, lang_hint: str,
                       chat_id: int | None, chat_title: str) -> None:
        """Record the user's name and Telegram language (and the group they write in)."""
        async with self.core.store.transaction(durable=False) as tx:
            await tx.upsert_user(user_id, full_name, username, lang_hint)
            if chat_id is not None:
                await tx.ensure_chat(chat_id, chat_title, lang_hint)

    async def profile(self, user_id: int, chat_id: int | None) -> tuple[UserRow | None, str | None]:
        """The user as stored, and the group's language (None outside a group)."""
        async with self.core.store.read() as tx:
            user = await tx.user(user_id)
            chat_lang = await tx.chat_lang(chat_id) if chat_id is not None else None
        return user, chat_lang

    async def chat_lang(self, chat_id: int) -> str:
        async with self.core.store.read() as tx:
            return await tx.chat_lang(chat_id)

    # -- chats and people ---------------------------------------------------------------
    async def chat_migrated(self, old_id: int, new_id: int) -> None:
        """The group became a supergroup: tables, queues and the league move to the new id."""
        async with self.core.store.transaction() as tx:
            await tx.migrate_chat(old_id, new_id)
        self.core.outbox.wake()

    async def set_language(self, scope: str, owner_id: int, lang: str) -> None:
        """A user's DM language (scope "u") or a chat's (scope "c")."""
        async with self.core.store.transaction() as tx:
            if scope == "c":
                await tx.set_chat_lang(owner_id, lang)
            else:
                await tx.set_user_lang(owner_id, lang)

    async def dm_blocked(self, user_id: int) -> None:
        async with self.core.store.transaction() as tx:
            await self.user_unreachable(tx, user_id, blocked=True)
        self.core.outbox.wake()

    async def dm_unblocked(self, user_id: int) -> None:
        async with self.core.store.transaction() as tx:
            await tx.set_user_started(user_id)
        await self.resend_hands(user_id)

    # -- players the bot cannot write to ------------------------------------------------
    async def user_unreachable(self, tx: Tx, user_id: int, blocked: bool) -> None:
        """A DM got 403 (or the user blocked the bot): remember it and, once, tell every group where
        they play, so the table does not wait for them in silence. Runs in the caller's transaction."""
        user = await tx.user(user_id)
        was_reachable = user is None or (user.started and not user.blocked)
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
        async with self.core.store.read() as tx:
            table_ids = [row.id for row in await tx.tables_of_user(user_id)]
        for table_id in table_ids:
            async with self.core.lock(table_id), self.core.store.transaction() as tx:
                loaded = await self.core.load(tx, table_id)
                if loaded is None or loaded.row.status != "playing":
                    continue
                row, seats = loaded.row, loaded.seats
                state = self.core.state(row)
                for seat in seats:
                    if seat.user_id == user_id:
                        await self.publisher.hand_message(tx, row, seat, state, loaded.names,
                                                          live=state.to_act == seat.seat)
        if table_ids:
            self.core.outbox.wake()
