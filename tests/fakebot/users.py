"""The test's side: simulated users and chats that produce updates and observe the bot's messages."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import FakeUsageError
from .models import CallbackRecord, StoredMessage
from .textfmt import u16len

if TYPE_CHECKING:
    from .server import FakeTelegram

ButtonSpec = str | Callable[[dict[str, Any]], bool]
_COMMAND_RE = re.compile(r"(?<!\S)/[a-zA-Z0-9_]{1,32}(?:@[a-zA-Z0-9_]{3,32})?")
_MENTION_RE = re.compile(r"(?<![\w@])@[a-zA-Z0-9_]{5,32}")


def text_entities(text: str) -> list[dict[str, Any]]:
    """Entities Telegram's clients/server attach to a plain user message (commands, mentions)."""
    ents = []
    for rx, kind in ((_COMMAND_RE, "bot_command"), (_MENTION_RE, "mention")):
        for m in rx.finditer(text):
            ents.append({"type": kind, "offset": u16len(text[: m.start()]), "length": u16len(m.group(0))})
    return sorted(ents, key=lambda e: e["offset"])


class FakeUser:
    """A human Telegram user.  Create with ``fake.user(...)``."""

    def __init__(self, fake: FakeTelegram, id: int, first_name: str, last_name: str | None = None,
                 username: str | None = None, language_code: str | None = "en", is_premium: bool = False) -> None:
        self.fake = fake
        self.id = id
        self.first_name = first_name
        self.last_name = last_name
        self.username = username
        self.language_code = language_code
        self.is_premium = is_premium
        self.started = False
        self.blocked = False
        # injected ephemeral delivery failure: (mode "lost"/"refused", sends left or None = until restored, text)
        self._ephemeral_failure: tuple[str, int | None, str] | None = None

    def to_api(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.is_premium:
            out["is_premium"] = True
        return out

    @property
    def dm(self) -> FakeChat:
        """The private chat between this user and the bot."""
        return self.fake.private_chat(self)

    def __repr__(self) -> str:
        return f"<FakeUser {self.id} {self.first_name!r}>"

    # -- actions -------------------------------------------------------------------------------
    async def send(self, chat: FakeChat | str | None, text: str | None = None, *,
                   reply_to: StoredMessage | None = None) -> StoredMessage:
        """Send a text message (``send(chat, text)``; ``send(text)`` or ``send(None, text)`` = the DM)."""
        if isinstance(chat, str):
            chat, text = None, chat
        if text is None:
            raise FakeUsageError("send() needs a text")
        chat = chat or self.dm
        if chat.type == "private":
            if chat.user is not self:
                raise FakeUsageError(f"{self} cannot write in another user's private chat with the bot")
            if not self.started:
                raise FakeUsageError(f"{self} has not started the bot; call start_bot() first (Telegram shows START)")
            if self.blocked:
                raise FakeUsageError(f"{self} blocked the bot; call unblock_bot() or start_bot() first")
        return await self.fake.user_message(self, chat, text, reply_to=reply_to)

    async def send_ephemeral(self, chat: FakeChat, text: str) -> StoredMessage:
        """Send an ephemeral command in a group: one the bot declared with ``is_ephemeral`` (setMyCommands).
        Only the bot receives it (a message update with message_id 0 and an ephemeral_message_id, whatever the
        privacy mode); for 15 s the bot may answer with an ephemeral message replying to it."""
        return await self.fake.ephemeral_command(self, chat, text)

    async def start_bot(self, payload: str | None = None) -> StoredMessage:
        """Press START (optionally through a t.me/<bot>?start=<payload> deep link): sends ``/start [payload]``."""
        if payload is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", payload):
            raise FakeUsageError(f"invalid deep-link payload {payload!r} (Telegram allows [A-Za-z0-9_-]{{1,64}})")
        was_blocked = self.blocked
        self.started = True
        self.blocked = False
        if was_blocked:
            self.fake.emit_my_chat_member(self.dm, self, "kicked", "member")
        text = "/start" + (f" {payload}" if payload else "")
        return await self.fake.user_message(self, self.dm, text)

    def block_bot(self) -> None:
        """Block the bot: later sends to this user get 403 'bot was blocked by the user'."""
        if not self.blocked:
            self.blocked = True
            self.fake.emit_my_chat_member(self.dm, self, "member", "kicked")

    def unblock_bot(self) -> None:
        if self.blocked:
            self.blocked = False
            self.fake.emit_my_chat_member(self.dm, self, "kicked", "member")

    async def press(self, message: StoredMessage, button: ButtonSpec) -> CallbackRecord:
        """Press a callback button that is currently on ``message`` (by exact text or a predicate on the dict)."""
        msg = self._visible(message)
        candidates = [b for b in msg.buttons if (b["text"] == button if isinstance(button, str) else button(b))]
        if not candidates:
            raise FakeUsageError(f"no button {button!r} on {msg!r}; buttons now: {msg.button_texts}")
        if len(candidates) > 1 and isinstance(button, str):
            datas = {b.get("callback_data") for b in candidates}
            if len(datas) > 1:
                raise FakeUsageError(f"button text {button!r} is ambiguous on {msg!r}; use a predicate")
        btn = candidates[0]
        if "callback_data" not in btn:
            raise FakeUsageError(f"button {btn} is not a callback button (it would open a link/other action)")
        return await self.fake.callback_query(self, msg, btn["callback_data"])

    async def press_data(self, message: StoredMessage, data: str) -> CallbackRecord:
        """Forge a callback query with arbitrary data (security tests: stale/forged buttons)."""
        msg = self._visible(message)
        return await self.fake.callback_query(self, msg, data)

    def _visible(self, message: StoredMessage) -> StoredMessage:
        if not message.chat.can_see(self):
            raise FakeUsageError(f"{self} is not in chat {message.chat.id}")
        if message.is_ephemeral:
            if message.receiver is not self:
                raise FakeUsageError(f"{self} cannot see {message!r}: only its receiver does")
            if not message.on_screen:
                raise FakeUsageError(f"{message!r} is not on {self}'s screen (lost, deleted or expired)")
            return message
        msg = message.chat.messages_by_id.get(message.message_id)
        if msg is None or msg.deleted:
            raise FakeUsageError(f"{message!r} is deleted; nobody can press its buttons")
        cover = next((e for e in message.chat.ephemerals(self) if e.on_screen and e.replaces is msg), None)
        if cover is not None:
            raise FakeUsageError(f"{self} sees {cover!r} in place of {msg!r} (replace_callback_query_message)")
        return msg

    # -- ephemeral messages --------------------------------------------------------------------
    def fail_ephemeral(self, mode: str = "lost", times: int | None = None, description: str | None = None) -> None:
        """Make ephemeral sends to this user fail: "lost" = accepted (a Message is returned, as Telegram does when
        delivery fails) but never shown; "refused" = answered 400 ``description``. ``times``: only the next N sends."""
        from .ephemeral import EPH_UNDELIVERABLE
        if mode not in ("lost", "refused"):
            raise FakeUsageError("mode must be 'lost' or 'refused'")
        if times is not None and times < 1:
            raise FakeUsageError("times must be positive (or None: until restore_ephemeral())")
        self._ephemeral_failure = (mode, times, description or EPH_UNDELIVERABLE)

    def restore_ephemeral(self) -> None:
        """Ephemeral sends reach this user again."""
        self._ephemeral_failure = None

    def take_ephemeral_failure(self) -> tuple[str, str] | None:
        """The failure (mode, description) the next ephemeral send meets, if one is injected (used by the server)."""
        if self._ephemeral_failure is None:
            return None
        mode, left, text = self._ephemeral_failure
        if left is not None:
            self._ephemeral_failure = (mode, left - 1, text) if left > 1 else None
        return mode, text

    def restart_app(self) -> None:
        """Restart the Telegram app: every ephemeral message of this user disappears (the docs say they may)."""
        for chat in self.fake.chats.values():
            for msg in chat.ephemerals(self):
                msg.expired = True
        self.fake.changed()

    def ephemeral(self, chat: FakeChat, include_deleted: bool = False) -> list[StoredMessage]:
        """The bot's ephemeral messages this user has on screen in ``chat`` (delivered, not expired), oldest first."""
        return [m for m in chat.ephemerals(self)
                if m.delivered and not m.expired and (include_deleted or not m.deleted)]

    def last_ephemeral(self, chat: FakeChat) -> StoredMessage | None:
        on_screen = self.ephemeral(chat)
        return on_screen[-1] if on_screen else None

    # -- observation ---------------------------------------------------------------------------
    def inbox(self, include_deleted: bool = True) -> list[StoredMessage]:
        """Every message the bot sent to this user's DM (current state)."""
        return self.dm.messages(include_deleted=include_deleted)

    def last_dm(self) -> StoredMessage | None:
        return self.dm.last()


class FakeChat:
    """A chat: private (id = user id), group (small negative id) or supergroup (-100...)."""

    def __init__(self, fake: FakeTelegram, id: int, type: str, title: str | None = None,
                 user: FakeUser | None = None, username: str | None = None, is_forum: bool = False) -> None:
        self.fake = fake
        self.id = id
        self.type = type
        self.title = title
        self.user = user
        self.username = username
        self.is_forum = is_forum
        self.members: dict[int, str] = {}  # user id -> creator/administrator/member/left/kicked
        self.bot_status = "member"  # the bot's own status here: member/administrator/left/kicked
        self.messages_by_id: dict[int, StoredMessage] = {}
        self.next_message_id = 1
        self.ephemeral_by_id: dict[int, StoredMessage] = {}  # ephemeral_message_id -> message (any receiver)
        self.incoming_ephemeral: dict[int, StoredMessage] = {}  # users' ephemeral commands (same id space)
        self.next_ephemeral_id = 500001
        self.migrated_to: FakeChat | None = None
        self.migrated_from: FakeChat | None = None
        self.chat_instance = f"ci{abs(id)}"

    def __repr__(self) -> str:
        return f"<FakeChat {self.id} {self.type} {self.title or (self.user and self.user.first_name)!r}>"

    def to_api(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "type": self.type}
        if self.type == "private" and self.user:
            out.update({k: v for k, v in self.user.to_api().items() if k in ("first_name", "last_name", "username")})
        else:
            out["title"] = self.title
            if self.username:
                out["username"] = self.username
            if self.is_forum:
                out["is_forum"] = True
        return out

    def can_see(self, user: FakeUser) -> bool:
        if self.type == "private":
            return self.user is user
        return self.members.get(user.id) in ("creator", "administrator", "member")

    def status_of(self, user_id: int) -> str:
        if self.type == "private":
            return "member" if self.user and user_id in (self.user.id, self.fake.bot_id) else "left"
        if user_id == self.fake.bot_id:
            return self.bot_status
        return self.members.get(user_id, "left")

    def new_message_id(self) -> int:
        mid = self.next_message_id
        self.next_message_id += 1
        return mid

    def new_ephemeral_id(self) -> int:
        eid = self.next_ephemeral_id
        self.next_ephemeral_id += 1
        return eid

    # -- observation ---------------------------------------------------------------------------
    def messages(self, include_deleted: bool = True) -> list[StoredMessage]:
        """Messages the bot sent here, oldest first, in their current (edited) state."""
        return [m for m in self.messages_by_id.values() if m.from_bot and (include_deleted or not m.deleted)]

    def visible(self) -> list[StoredMessage]:
        return self.messages(include_deleted=False)

    def all_messages(self) -> list[StoredMessage]:
        """Everything in the chat (users' messages and service messages too)."""
        return list(self.messages_by_id.values())

    def last(self) -> StoredMessage | None:
        """The newest not-deleted bot message."""
        vis = self.visible()
        return vis[-1] if vis else None

    def ephemerals(self, user: FakeUser | None = None) -> list[StoredMessage]:
        """Every ephemeral message the bot sent here (to ``user`` only, if given), in any state: also lost,
        deleted and expired ones. None of them is in messages()/visible()/last()/all_messages()."""
        return [m for m in self.ephemeral_by_id.values() if user is None or m.receiver is user]

    def view_of(self, user: FakeUser) -> list[StoredMessage]:
        """What ``user`` sees of the bot here: its live messages and the user's own on-screen ephemeral ones, in
        send order; an ephemeral message sent with replace_callback_query_message stands where the original was."""
        mine = [m for m in self.ephemerals(user) if m.on_screen]
        covered = {id(m.replaces): m for m in mine if m.replaces is not None}
        shown = [covered.get(id(m), m) for m in self.visible()]
        shown += [m for m in mine if m.replaces is None or m.replaces.deleted]
        return sorted(shown, key=lambda m: m.replaces.order if m.replaces is not None and not m.replaces.deleted
                      else m.order)

    # -- membership ----------------------------------------------------------------------------
    def add_member(self, user: FakeUser, status: str = "member", announce: bool = False) -> None:
        """Add a user (status member/administrator/creator); announce=True emits a new_chat_members message."""
        if status not in ("member", "administrator", "creator"):
            raise FakeUsageError(f"bad status {status}")
        self.members[user.id] = status
        if announce:
            self.fake.service_message(self, user, {"new_chat_members": [user.to_api()]})

    def remove_member(self, user: FakeUser, announce: bool = False) -> None:
        self.members[user.id] = "left"
        if announce:
            self.fake.service_message(self, user, {"left_chat_member": user.to_api()})

    def set_admin(self, user: FakeUser, admin: bool = True) -> None:
        self.members[user.id] = "administrator" if admin else "member"

    def set_bot_admin(self, admin: bool = True) -> None:
        """Make the bot an administrator here (it then sees all messages and may delete others' messages)."""
        old = self.bot_status
        self.bot_status = "administrator" if admin else "member"
        self.fake.emit_my_chat_member(self, None, old, self.bot_status)

    def kick_bot(self, by: FakeUser | None = None) -> None:
        old = self.bot_status
        self.bot_status = "kicked"
        self.fake.emit_my_chat_member(self, by, old, "kicked")

    def add_bot(self, by: FakeUser | None = None) -> None:
        """Add the bot (back) to this group as a member: emits my_chat_member (old status -> member)."""
        old = self.bot_status
        self.bot_status = "member"
        self.fake.emit_my_chat_member(self, by, old, "member")

    def migrate_to_supergroup(self, by: FakeUser | None = None, new_id: int | None = None) -> FakeChat:
        """Upgrade this basic group: emits migrate_to/migrate_from service messages; the old id then errors."""
        if self.type != "group" or self.migrated_to:
            raise FakeUsageError("only a not yet migrated basic group can be migrated")
        return self.fake.migrate(self, by, new_id)
