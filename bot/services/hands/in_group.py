"""A player's hand shown in the group itself, to them alone (an ephemeral message, Bot API 10.2): one more
delivery of the SAME hand as the DM's, with the same keyboard and callback data, so a press there takes the
same road through the same checks (bot/handlers/play.py accepts it from the receiver of that message only, in
the table's own group) and a move made from either copy makes the other one stale.

How it gets there (what the documentation allows): the group's table message carries "🂠 My hand"; its press
is answered with the hand, naming the press (within 15 s). From then on every change of that hand (the
publisher's hand message, a toggle, the capture builder, a lay-down proposal) is mirrored by ``mirror`` as an
edit of that ephemeral message. A bot that is the group's administrator may also put the hand in front of a
player when their turn comes, without a press. The DM stays the durable channel: it gets every hand and ping
as before, so a hand lost on the way (delivery is not guaranteed) loses nothing. A press whose ephemeral
answer fails is answered with the DM hand, sent again as a new message.

The seats that asked are kept in the table row (``ui.extra["eph"]``); the ephemeral message's id in the
slot ``e<table>:<seat>`` (bot/services/ephemeral.py delivers).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from bot.services import outbox as out
from bot.services.core import TableCore
from bot.services.ephemeral import EphemeralSender
from bot.services.hands.resend import resend_hand
from bot.services.ports import HandPublisher
from bot.services.slots import TOURNAMENT
from bot.services.types import Actor, Answer
from bot.store.contract import StoreTx as Tx
from bot.store.rows import OutboxRow, SeatRow, TableRow
from bot.ui.callbacks import Here, MyHand
from bot.ui.clip import TEXT_LIMIT, clip_html
from bot.ui.i18n import t

log = logging.getLogger(__name__)

KEY = "eph"  # row.ui.extra[KEY][seat]: {"on": 1} once shown, "cq": a press to answer with the hand
MODES = ("group", "dm")  # the chat setting: hands in the group and in DMs, or in DMs only
ANSWER_WAIT = 8.0  # seconds a "My hand" press waits for its ephemeral answer (Telegram allows 15)
NO_RIGHTS = "not enough rights"  # the start of Telegram's refusal when the bot is not an administrator


def eph_slot(row: TableRow, seat: int) -> str:
    return f"e{row.id}:{seat}"


def hand_button(table_id: int, lang: str) -> dict[str, Any]:
    """The keyboard of the group's table message (and the lobby once the game runs): "🂠 My hand"."""
    return {"inline_keyboard": [[{"text": "🂠 " + t(lang, "My hand"), "callback_data": MyHand(t=table_id).pack()}]]}


def with_rows(first: dict[str, Any] | None, second: out.Markup) -> dict[str, Any] | None:
    """Two keyboards as one (the rows of ``first`` above those of ``second``); None when both are empty."""
    below = (out.markup_data(second) or {}).get("inline_keyboard") or []
    rows = [*((first or {}).get("inline_keyboard") or []), *below]
    return {"inline_keyboard": rows} if rows else None


def for_group(markup: out.Markup) -> dict[str, Any] | None:
    """The DM keyboard without what a group message cannot carry: a ``web_app`` button (the table app opens
    from private chats only) or a ``login_url`` one (refused on ephemeral messages)."""
    data = out.markup_data(markup)
    if not data:
        return None
    kept = [[b for b in row if "web_app" not in b and "login_url" not in b]
            for row in data.get("inline_keyboard") or []]
    rows = [row for row in kept if row]
    return {"inline_keyboard": rows} if rows else None


async def table_keyboard(tx: Tx, row: TableRow, lang: str) -> dict[str, Any] | None:
    """The table message's keyboard: "My hand" where the chat shows hands in the group; and at a
    tournament's table "📊 Score" (a round's tables share the chat: a press names this one)."""
    hands, _ = await tx.chat_hands(row.chat_id)
    mine = hand_button(row.id, lang) if hands == "group" else None
    if row.ui.extra.get(TOURNAMENT) is None:
        return mine
    score = {"inline_keyboard": [[{"text": "📊 " + t(lang, "Score"), "callback_data": Here(t=row.id, op="sc").pack()}]]}
    return with_rows(mine, score)


async def rights_line(tx: Tx, chat_id: int, lang: str) -> str:
    """The lobby's line on hands in the group: on or off, and whether the bot has the rights it needs to
    put a hand in front of a player without their press (an administrator)."""
    hands, admin = await tx.chat_hands(chat_id)
    if hands != "group":
        return "✉️ " + t(lang, "Hands: in DMs only (admins: /settings).")
    if admin:
        return "🂠 " + t(lang, "Hands: here too, each to its player alone; I am an admin, so yours comes up "
                              "on your turn.")
    return "🂠 " + t(lang, "Hands: press 🂠 My hand to see yours here. Make me an admin and it comes up on "
                          "your turn.")


def hand_queue(row: TableRow, user_id: int, hands: EphemeralSender) -> int:
    """The outbox queue of a hand shown in the group: the group's own where ephemeral messages count against its
    20 a minute (they wait behind its table edit), else the player's own there (``out.hand_queue``)."""
    return row.chat_id if hands.counts else out.hand_queue(row.chat_id, user_id)


async def mirror(tx: Tx, row: TableRow, seat: SeatRow, text: str, markup: out.Markup, live: bool,
                 hands: EphemeralSender) -> None:
    """The seat's hand, as just written for the DM, also to its ephemeral message in the group: an edit of
    the one on screen; a new one to answer a "My hand" press; or, the bot being an administrator, a new one
    when the turn comes. Nothing when the chat keeps hands in DMs, or the player never asked and may not be
    sent one unasked (nor when their app refused one lately: ``hands.refused``). The caller saves the row (as
    after any hand message)."""
    if seat.user_id is None:
        return
    shown: dict[str, Any] = row.ui.extra.get(KEY) or {}
    entry = shown.get(str(seat.seat))
    if entry is None and not live:
        return
    mode, admin = await tx.chat_hands(row.chat_id)
    if mode != "group" or (entry is None and not admin):
        return
    entry = dict(entry or {"on": 1})
    press = entry.pop("cq", None)
    urgent = entry.pop("now", None)  # a stale press on the copy: it is redrawn at once
    row.ui.extra[KEY] = {**shown, str(seat.seat): entry}
    slot = eph_slot(row, seat.seat)
    pending = await tx.pending(f"slot:{slot}")
    if press is None and pending is not None and pending.method == "eph":
        press = pending.payload.get("cq")  # a press not answered yet: the newer content answers it
    if press is None and pending is None and not await tx.slot_message(slot) \
            and (not admin or hands.refused(seat.user_id)):
        return  # nothing on screen, and nothing may bring it back unasked: no row costs the group a call
    payload = {"user": seat.user_id, "text": clip_html(text, TEXT_LIMIT), "markup": for_group(markup),
               "thread": row.thread_id, "cq": press, "admin": admin, "t": row.id, "g": row.chat_id}
    # Where ephemeral messages count against the group's 20 a minute (the conservative reading; Telegram does not
    # say), they queue behind the group's table edit: the hand of the player to act (or answering a press: its
    # 15 s window runs) first, a hand redrawn after its player moved last (it merges with their next update
    # while it waits). The outbox bounds how long either waits (HAND_PATIENCE).
    priority = out.HAND if press or urgent or live else out.REDRAW
    await tx.enqueue(hand_queue(row, seat.user_id, hands), "eph", payload, slot=slot, merge_key=f"slot:{slot}",
                     priority=priority)


async def seat_changed(tx: Tx, row: TableRow, seat: int, user_id: int | None, hands: EphemeralSender) -> None:
    """The seat's player ``user_id`` is gone from it (left, replaced, the AI took it): their copy of its hand in
    the group is cleared (it says so, with no keyboard) and the seat's next player starts without one. Their
    presses there are refused by the usual checks (they hold no seat). In the seat change's transaction; the
    caller saves the row."""
    shown: dict[str, Any] = row.ui.extra.get(KEY) or {}
    if str(seat) not in shown:
        return
    row.ui.extra[KEY] = {k: v for k, v in shown.items() if k != str(seat)}
    slot = eph_slot(row, seat)
    await tx.drop_pending(f"slot:{slot}")  # the old player's hand, not sent yet: never sent
    message_id = await tx.slot_message(slot)
    if message_id:
        await tx.set_slot(slot, row.chat_id, 0)
    if user_id is None or not message_id:
        return
    lang = await tx.user_lang(user_id)
    text = "🪑 " + t(lang, "This is no longer your seat: the hand is not yours to play.")
    payload = {"user": user_id, "text": text, "markup": None, "thread": row.thread_id, "cq": None, "admin": False,
               "t": row.id, "g": row.chat_id, "mid": message_id}
    await tx.enqueue(hand_queue(row, user_id, hands), "eph", payload, priority=out.HAND)


class GroupHands:
    """The "My hand" press, the chat's setting and the bot's rights; the outcome of each ephemeral delivery."""

    def __init__(self, core: TableCore, publisher: HandPublisher, answer_wait: float = ANSWER_WAIT) -> None:
        self.core = core
        self.publisher = publisher
        self.answer_wait = answer_wait
        self._waiting: dict[str, asyncio.Future[str | None]] = {}  # press id -> its delivery's failure (None: ok)
        self._fallbacks: set[asyncio.Task[None]] = set()
        self.shown = 0  # hands shown in answer to a press
        self.fell_back = 0  # presses answered with the DM hand instead

    async def show(self, table_id: int, actor: Actor, chat_id: int, press_id: str, lang: str) -> Answer:
        """A "My hand" press in the group ``chat_id``: the presser's hand, to them alone. Only a seated player of
        this group's running table gets one; anyone else gets an alert that says why."""
        async with self.core.lock(table_id), self.core.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None or loaded.row.chat_id != chat_id:
                return Answer(t(lang, "This button is not valid any more."), alert=True)
            row, seats = loaded.row, loaded.seats
            if row.status != "playing":
                return Answer(t(lang, "This game is not running."), alert=True)
            seat = next((s for s in seats if s.user_id == actor.user_id), None)
            if seat is None:
                return Answer(t(lang, "You are not playing at this table: only its players have a hand here."),
                              alert=True)
            hands, _ = await tx.chat_hands(row.chat_id)
            if hands != "group":
                return Answer(t(lang, "This group keeps hands in DMs: yours is in my private chat."), alert=True)
            state = self.core.state(row)
            shown: dict[str, Any] = row.ui.extra.get(KEY) or {}
            row.ui.extra[KEY] = {**shown, str(seat.seat): {"on": 1, "cq": press_id}}
            live = state.to_act == seat.seat and seat.seat not in row.ui.autopilot
            await self.publisher.hand_message(tx, row, seat, state, loaded.names, live=live, dm=False)
            await tx.save_table(row, touch=False)  # not a move: the turn's clock runs on
        waiter: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._waiting[press_id] = waiter
        self.core.outbox.wake()
        try:
            failure = await asyncio.wait_for(asyncio.shield(waiter), self.answer_wait)
        except TimeoutError:
            return Answer()  # still on its way (a busy group): its failure, if any, falls back to the DM
        finally:
            self._waiting.pop(press_id, None)
        if failure is None:
            self.shown += 1
            return Answer()
        await self.fallback(table_id, actor.user_id)
        return Answer(t(lang, "I could not show your hand here: it is in my private chat."), alert=True)

    async def redraw(self, table_id: int, user_id: int, chat_id: int, message_id: int) -> None:
        """A stale press on the hand shown in the group (``message_id``): that copy is redrawn with the current
        hand at once (ahead of the hands redrawn after a move), and from now on is the one kept current."""
        async with self.core.lock(table_id), self.core.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None or loaded.row.chat_id != chat_id or loaded.row.status != "playing":
                return
            row, seats = loaded.row, loaded.seats
            seat = next((s for s in seats if s.user_id == user_id), None)
            shown: dict[str, Any] = row.ui.extra.get(KEY) or {}
            if seat is None or str(seat.seat) not in shown:
                return
            row.ui.extra[KEY] = {**shown, str(seat.seat): {**shown[str(seat.seat)], "now": 1}}
            await tx.set_slot(eph_slot(row, seat.seat), chat_id, message_id)
            state = self.core.state(row)
            live = state.to_act == seat.seat and seat.seat not in row.ui.autopilot
            await self.publisher.hand_message(tx, row, seat, state, loaded.names, live=live, dm=False)
            await tx.save_table(row, touch=False)
        self.core.outbox.wake()

    async def delivered(self, row: OutboxRow, failure: str | None) -> None:
        """The outbox's word on an ephemeral row (``Outbox.on_ephemeral``): the press waiting for it is answered;
        a refused answer to a press nobody waits for any more falls back to the DM; a refusal for want of
        rights means the bot is no administrator any more."""
        press = row.payload.get("cq")
        if failure is not None and NO_RIGHTS in failure.lower():
            async with self.core.store.transaction() as tx:
                await tx.set_chat_bot_admin(row.chat_id, False)
        if press is None:
            return
        waiter = self._waiting.get(press)
        if waiter is not None and not waiter.done():
            waiter.set_result(failure)
        elif failure is not None:
            task = asyncio.create_task(self.fallback(int(row.payload.get("t", 0)), int(row.payload["user"])))
            self._fallbacks.add(task)
            task.add_done_callback(self._fallbacks.discard)

    async def fallback(self, table_id: int, user_id: int) -> None:
        """The player's DM hand sent again as a new message (it notifies), the old one losing its keyboard."""
        self.fell_back += 1
        async with self.core.lock(table_id), self.core.store.transaction() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None or loaded.row.status != "playing":
                return
            seat = next((s for s in loaded.seats if s.user_id == user_id), None)
            if seat is None:
                return
            await resend_hand(tx, self.core, self.publisher, loaded, seat)
        self.core.outbox.wake()

    async def set_mode(self, chat_id: int, mode: str) -> bool:
        """The chat's setting (admins; the handler checks): False for a mode that does not exist."""
        if mode not in MODES:
            return False
        async with self.core.store.transaction() as tx:
            await tx.set_chat_hands(chat_id, mode)
        return True

    async def mode(self, chat_id: int) -> str:
        async with self.core.store.read() as tx:
            return (await tx.chat_hands(chat_id))[0]

    async def bot_rights(self, chat_id: int, admin: bool) -> None:
        """Whether the bot is the group's administrator now (its membership update, or asked at /new)."""
        async with self.core.store.transaction() as tx:
            if await tx.chat_bot_rights(chat_id) != admin:
                await tx.set_chat_bot_admin(chat_id, admin)

    async def known_rights(self, chat_id: int) -> bool | None:
        """Whether the bot is the group's administrator, as last learned from Telegram (None: never learned).
        Telegram sends a my_chat_member update at every change of the bot's rights, so a known answer
        stays current; one missed (a refusal for want of rights) is corrected where it shows (``delivered``)."""
        async with self.core.store.read() as tx:
            return await tx.chat_bot_rights(chat_id)
