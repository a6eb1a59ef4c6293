"""Ephemeral messages (Bot API 10.2-10.3): a message in a group that only one member sees.

What the fake enforces comes from the Bot API docs, section "Ephemeral Messages and Commands"
(core.telegram.org/bots/api#ephemeral-messages-and-commands) and aiogram 3.31's generated models of
EphemeralMessageParameters, Message and the editEphemeralMessage* methods:
- groups and supergroups only; the receiver is a non-bot member; "other members ... will not see the message";
- a bot that is not an administrator must name the callback query (or the user's ephemeral command, sent with
  BotCommand.is_ephemeral) that triggered it, within 15 seconds of it, and the message goes to that user;
  an administrator may send to any non-bot member at any time;
- delivery "is not guaranteed" (a test injects loss or refusal, users.FakeUser.fail_ephemeral);
- replace_callback_query_message shows it in place of the pressed message, and must be False for a press
  on an ephemeral message, which is edited with editEphemeralMessage* instead;
- login_url buttons are "not supported for ephemeral messages".
Error texts the docs do not give are the fake's own wording (constants below, so tests import them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import bad
from .methods_misc import QUERY_TOO_OLD
from .methods_msg import edit_caption, edit_media, edit_reply_markup, edit_text, handler
from .models import CallbackRecord, StoredMessage

if TYPE_CHECKING:
    from .server import FakeTelegram
    from .users import FakeChat, FakeUser

EPHEMERAL_WINDOW = 15.0  # seconds from the press [docs: "within 15 seconds of the incoming eligible action"]
FIRST_EPHEMERAL_ID = 500001  # per chat; far from normal message ids so the two are never confused by accident

EPH_CHAT_TYPE = "ephemeral messages can be sent only to group and supergroup chats"
EPH_USER_NOT_FOUND = "user not found"
EPH_USER_IS_BOT = "USER_IS_BOT"
EPH_NOT_PARTICIPANT = "USER_NOT_PARTICIPANT"
EPH_NO_RIGHTS = "not enough rights to send ephemeral messages to the chat"
EPH_OTHER_USER = "callback query was sent by another user"
EPH_OTHER_CHAT = "callback query is from another chat"
EPH_REPLACE_NEEDS_QUERY = "replace_callback_query_message requires callback_query_id"
EPH_REPLACE_EPHEMERAL = "replace_callback_query_message must be False for callback queries from ephemeral messages"
EPH_LOGIN_URL = "BUTTON_TYPE_INVALID"
EPH_LEGACY = "receiver_user_id and callback_query_id were replaced by ephemeral_message_parameters"
EPH_UNDELIVERABLE = "ephemeral message can't be delivered to the user"
EPH_REPLY_OTHER_USER = "the ephemeral message was sent by another user"
EDIT_NOT_FOUND = "message to edit not found"
DELETE_NOT_FOUND = "message to delete not found"
LEGACY_PARAMS = ("receiver_user_id", "callback_query_id")


def refuse_legacy(method: str, unknown: list[str]) -> None:
    """The 10.2 top-level parameters, dropped from the docs in 10.3 (aiogram 3.31 still has them, deprecated):
    refused loudly, because ignoring them would turn a private message into one the whole group reads."""
    if method.startswith("send") and any(name in unknown for name in LEGACY_PARAMS):
        raise bad(EPH_LEGACY)


def check_ephemeral_markup(markup: dict[str, Any] | None) -> None:
    for row in (markup or {}).get("inline_keyboard") or []:
        for button in row:
            if isinstance(button, dict) and button.get("login_url") is not None:
                raise bad(EPH_LOGIN_URL)


@dataclass
class EphemeralSend:
    """A send with ephemeral_message_parameters that passed the rules; ``deliver`` stores it."""

    fake: FakeTelegram
    chat: FakeChat
    receiver: FakeUser
    query: CallbackRecord | None
    replace: bool
    replied: StoredMessage | None = None  # the user's ephemeral command it answers

    @classmethod
    def check(cls, fake: FakeTelegram, chat: FakeChat, p: dict[str, Any]) -> EphemeralSend:
        params = p["ephemeral_message_parameters"]
        if chat.type not in ("group", "supergroup"):
            raise bad(EPH_CHAT_TYPE)
        rid = params["receiver_user_id"]
        if rid == fake.bot_id:
            raise bad(EPH_USER_IS_BOT)
        receiver = fake.users.get(rid)
        if receiver is None:
            raise bad(EPH_USER_NOT_FOUND)
        if chat.members.get(rid) not in ("creator", "administrator", "member"):
            raise bad(EPH_NOT_PARTICIPANT)
        query = None
        if params.get("callback_query_id") is not None:
            query = fake.callbacks.get(params["callback_query_id"])
            if query is None or fake.clock() - query.created > fake.ephemeral_window:
                raise bad(QUERY_TOO_OLD)
            if fake.ephemeral_consumes_callback and query.answered:
                raise bad(QUERY_TOO_OLD)
            if query.message.chat is not chat:
                raise bad(EPH_OTHER_CHAT)
            if query.user is not receiver:
                raise bad(EPH_OTHER_USER)
        replace = bool(params.get("replace_callback_query_message"))
        if replace and query is None:
            raise bad(EPH_REPLACE_NEEDS_QUERY)
        if replace and query is not None and query.message.is_ephemeral:
            raise bad(EPH_REPLACE_EPHEMERAL)
        replied = _replied_command(fake, chat, receiver, p)
        if query is None and replied is None and chat.bot_status != "administrator":
            raise bad(EPH_NO_RIGHTS)
        check_ephemeral_markup(p.get("reply_markup"))
        return cls(fake, chat, receiver, query, replace, replied)

    def deliver(self, **fields: Any) -> StoredMessage:
        """Store the message; an injected failure refuses it (400) or loses it (accepted, never shown)."""
        fake, receiver = self.fake, self.receiver
        failure = receiver.take_ephemeral_failure()
        if failure is not None and failure[0] == "refused":
            fake.ephemeral_counts["refused"] += 1
            raise bad(failure[1])
        msg = StoredMessage(message_id=0, chat=self.chat, date=fake.now(), sender=None, receiver=receiver,
                            ephemeral_message_id=self.chat.new_ephemeral_id(), delivered=failure is None,
                            replaces=self.query.message if self.replace and self.query else None,
                            callback=self.query, replied=self.replied, **fields)
        self.chat.ephemeral_by_id[msg.ephemeral_message_id] = msg  # type: ignore[index]
        fake.ephemeral_counts["sent"] += 1
        if failure is not None:
            fake.ephemeral_counts["lost"] += 1
        if self.query is not None:
            self.query.ephemeral_replies.append(msg)
            if fake.ephemeral_consumes_callback and not self.query.answered:
                self.query.answered = True
                self.query.answered_at = fake.clock()
        fake.changed()
        return msg


def _replied_command(fake: FakeTelegram, chat: FakeChat, receiver: FakeUser,
                     p: dict[str, Any]) -> StoredMessage | None:
    """reply_parameters.ephemeral_message_id: the receiver's ephemeral command, at most 15 s old [docs]."""
    eid = (p.get("reply_parameters") or {}).get("ephemeral_message_id")
    if eid is None or (p.get("reply_parameters") or {}).get("message_id") is not None:
        return None
    command = chat.incoming_ephemeral.get(eid)
    if command is None or command.sent_at is None or fake.clock() - command.sent_at > fake.ephemeral_window:
        raise bad("message to be replied not found")
    if command.sender is not receiver:
        raise bad(EPH_REPLY_OTHER_USER)
    return command


# ------------------------------------------------------------------------------ edits and deletion
def _target(fake: FakeTelegram, p: dict[str, Any], missing: str) -> StoredMessage:
    chat = fake.chat_for(p["chat_id"], sending=True)
    msg = chat.ephemeral_by_id.get(p["ephemeral_message_id"])
    if msg is None or msg.deleted or msg.expired or msg.receiver is None or msg.receiver.id != p["receiver_user_id"]:
        raise bad(missing)
    return msg


@handler("editEphemeralMessageText")
async def edit_ephemeral_text(fake: FakeTelegram, p: dict[str, Any]) -> bool:
    if p.get("text") is None and p.get("rich_message") is None:
        raise bad("message text is empty")
    edit_text(fake, _target(fake, p, EDIT_NOT_FOUND), p)
    return True


@handler("editEphemeralMessageCaption")
async def edit_ephemeral_caption(fake: FakeTelegram, p: dict[str, Any]) -> bool:
    edit_caption(fake, _target(fake, p, EDIT_NOT_FOUND), p)
    return True


@handler("editEphemeralMessageMedia")
async def edit_ephemeral_media(fake: FakeTelegram, p: dict[str, Any]) -> bool:
    edit_media(fake, _target(fake, p, EDIT_NOT_FOUND), p)
    return True


@handler("editEphemeralMessageReplyMarkup")
async def edit_ephemeral_reply_markup(fake: FakeTelegram, p: dict[str, Any]) -> bool:
    edit_reply_markup(fake, _target(fake, p, EDIT_NOT_FOUND), p)
    return True


@handler("deleteEphemeralMessage")
async def delete_ephemeral(fake: FakeTelegram, p: dict[str, Any]) -> bool:
    _target(fake, p, DELETE_NOT_FOUND).deleted = True
    fake.changed()
    return True

