"""Stored state of messages and callback queries, as tests observe it."""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .users import FakeChat, FakeUser


_ORDER = itertools.count(1)


@dataclass(eq=False)
class StoredMessage:
    """One message in a fake chat; bot messages are mutated in place by edits (this object stays live).

    An ephemeral message (``receiver`` set) lives in ``chat.ephemeral_by_id``, never in ``chat.messages_by_id``:
    only its receiver sees it, and only while ``on_screen``; its API form has message_id 0."""

    message_id: int
    chat: FakeChat
    date: int
    sender: FakeUser | None  # None = the bot
    text: str | None = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    caption: str | None = None
    caption_entities: list[dict[str, Any]] = field(default_factory=list)
    photo: list[dict[str, Any]] | None = None
    document: dict[str, Any] | None = None
    reply_markup: dict[str, Any] | None = None
    reply_to: StoredMessage | None = None
    media_group_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # service fields (migrate_to_chat_id, ...)
    edit_count: int = 0
    edit_date: int | None = None
    deleted: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)  # snapshots before each edit
    # -- ephemeral messages only --
    receiver: FakeUser | None = None
    ephemeral_message_id: int | None = None
    delivered: bool = True  # False: accepted by the server but never reached the receiver (injected loss)
    expired: bool = False  # gone from the receiver's app (expiry / app restart); the server forgot it too
    replaces: StoredMessage | None = None  # the message it is shown in place of, for its receiver
    callback: CallbackRecord | None = None  # the callback query whose id allowed it
    replied: StoredMessage | None = None  # the user's ephemeral command it answers (reply_parameters)
    to_bot: bool = False  # a user's ephemeral command: only the bot receives it (``sender`` is the user)
    sent_at: float | None = None  # on the fake's clock: a user's ephemeral command may be replied to for 15 s
    order: int = field(default_factory=lambda: next(_ORDER))  # send order across normal and ephemeral messages

    @property
    def is_ephemeral(self) -> bool:
        return self.receiver is not None or self.to_bot

    @property
    def on_screen(self) -> bool:
        """An ephemeral message its receiver has in front of them now (delivered, not deleted, not expired)."""
        return self.is_ephemeral and self.delivered and not self.deleted and not self.expired

    # -- observation helpers for tests -----------------------------------------------------
    @property
    def from_bot(self) -> bool:
        return self.sender is None

    @property
    def kind(self) -> str:
        if self.photo:
            return "photo"
        if self.document:
            return "document"
        if self.text is not None:
            return "text"
        return "service"

    @property
    def content(self) -> str:
        """Text or caption (plain, after entity parsing)."""
        return (self.text if self.text is not None else self.caption) or ""

    @property
    def photo_file_id(self) -> str | None:
        return self.photo[-1]["file_id"] if self.photo else None

    @property
    def buttons(self) -> list[dict[str, Any]]:
        """All inline buttons currently on the message, row by row."""
        rows = (self.reply_markup or {}).get("inline_keyboard") or []
        return [b for row in rows for b in row]

    @property
    def button_texts(self) -> list[str]:
        return [b["text"] for b in self.buttons]

    @property
    def keyboard(self) -> list[list[str]]:
        rows = (self.reply_markup or {}).get("inline_keyboard") or []
        return [[b["text"] for b in row] for row in rows]

    def snapshot(self) -> dict[str, Any]:
        return {
            "text": self.text, "entities": copy.deepcopy(self.entities), "caption": self.caption,
            "caption_entities": copy.deepcopy(self.caption_entities), "photo": copy.deepcopy(self.photo),
            "document": copy.deepcopy(self.document), "reply_markup": copy.deepcopy(self.reply_markup),
        }

    def to_api(self, *, with_reply: bool = True) -> dict[str, Any]:
        fake = self.chat.fake
        out: dict[str, Any] = {
            "message_id": self.message_id,
            "from": fake.bot_user() if self.sender is None else self.sender.to_api(),
            "chat": self.chat.to_api(),
            "date": self.date,
        }
        if self.is_ephemeral:
            out["message_id"] = 0  # Bot API: "0 for ephemeral messages"
            out["ephemeral_message_id"] = self.ephemeral_message_id
            out["receiver_user"] = fake.bot_user() if self.receiver is None else self.receiver.to_api()
        if self.edit_date:
            out["edit_date"] = self.edit_date
        if self.text is not None:
            out["text"] = self.text
            if self.entities:
                out["entities"] = copy.deepcopy(self.entities)
        if self.photo:
            out["photo"] = copy.deepcopy(self.photo)
        if self.document:
            out["document"] = copy.deepcopy(self.document)
        if self.caption:
            out["caption"] = self.caption
            if self.caption_entities:
                out["caption_entities"] = copy.deepcopy(self.caption_entities)
        if self.media_group_id:
            out["media_group_id"] = self.media_group_id
        if self.reply_to is not None and with_reply:
            out["reply_to_message"] = self.reply_to.to_api(with_reply=False)
        if _has_buttons(self.reply_markup):
            out["reply_markup"] = copy.deepcopy(self.reply_markup)
        out.update(copy.deepcopy(self.extra))
        return out

    def __repr__(self) -> str:
        flags = " deleted" if self.deleted else ""
        if self.to_bot:
            return f"<StoredMessage {self.chat.id}/ephemeral {self.ephemeral_message_id} to the bot {self.content!r}>"
        if self.receiver is not None:
            flags += "" if self.delivered else " lost"
            flags += " expired" if self.expired else ""
            return (f"<StoredMessage {self.chat.id}/ephemeral {self.ephemeral_message_id} for "
                    f"{self.receiver.first_name} {self.kind} {self.content[:40]!r}{flags}>")
        return f"<StoredMessage {self.chat.id}/{self.message_id} {self.kind} {self.content[:40]!r}{flags}>"


def _has_buttons(markup: dict[str, Any] | None) -> bool:
    """Only inline keyboards are attached to a message object; an empty one equals none."""
    return bool(markup and any(markup.get("inline_keyboard") or []))


def normalized_markup(markup: dict[str, Any] | None) -> dict[str, Any] | None:
    """The inline markup as stored on a message (other markup kinds are not part of the message)."""
    if not markup or "inline_keyboard" not in markup or not _has_buttons(markup):
        return None
    return {"inline_keyboard": [[dict(b) for b in row] for row in markup["inline_keyboard"] if row]}


@dataclass(eq=False)
class CallbackRecord:
    """A callback query a simulated user produced, and what the bot answered."""

    id: str
    user: FakeUser
    message: StoredMessage
    data: str
    created: float
    answered: bool = False
    answered_at: float | None = None
    answer_text: str | None = None
    show_alert: bool = False
    url: str | None = None
    late: bool = False  # the bot tried to answer after the time limit
    answer_attempts: int = 0
    ephemeral_replies: list[StoredMessage] = field(default_factory=list)  # sent with this callback_query_id

    @property
    def ephemeral(self) -> bool:
        """The press was on an ephemeral message."""
        return self.message.is_ephemeral

    @property
    def latency(self) -> float | None:
        return None if self.answered_at is None else self.answered_at - self.created
