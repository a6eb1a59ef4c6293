"""Bot API methods that create, edit and delete messages."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .errors import ApiError, bad
from .models import StoredMessage, normalized_markup
from .spec import Upload
from .textfmt import format_text

if TYPE_CHECKING:
    from .server import FakeTelegram

MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_BUTTONS = 100
BUTTON_ACTIONS = ("url", "callback_data", "web_app", "login_url", "switch_inline_query",
                  "switch_inline_query_current_chat", "switch_inline_query_chosen_chat", "copy_text",
                  "callback_game", "pay")
_URL_RE = re.compile(r"^(https?://[^\s/$.?#][^\s]*|tg://[^\s]+)$", re.I)
HANDLERS: dict[str, Any] = {}
# ReplyParameters.ephemeral_message_id: "A reply to an ephemeral message must itself be an ephemeral message".
EPH_REPLY_NOT_EPHEMERAL = "a reply to an ephemeral message must itself be an ephemeral message"


def handler(name: str):
    def deco(fn):
        HANDLERS[name] = fn
        return fn
    return deco


# ------------------------------------------------------------------------------ validation helpers
def check_markup(markup: dict[str, Any] | None, chat_type: str) -> dict[str, Any] | None:
    """Validate reply_markup beyond the spec's types; return what is stored on the message."""
    if not markup:
        return None
    if "inline_keyboard" in markup:
        rows = markup["inline_keyboard"]
        total = 0
        for row in rows:
            for b in row:
                total += 1
                _check_button(b, chat_type)
        if total > MAX_BUTTONS:
            raise bad("reply markup is too long")
        return normalized_markup(markup)
    if "keyboard" in markup:
        for row in markup["keyboard"]:
            for b in row:
                if not (b.get("text") if isinstance(b, dict) else b):
                    raise bad("can't parse keyboard button: text must be non-empty")
    return None  # reply keyboards / remove / force_reply are not part of the message object


def _check_button(b: dict[str, Any], chat_type: str) -> None:
    if not b.get("text"):
        raise bad("BUTTON_TEXT_INVALID")
    actions = [k for k in BUTTON_ACTIONS if b.get(k) not in (None, False)]
    if "callback_data" in b and "callback_data" not in actions:
        actions.append("callback_data")
    if not actions:
        raise bad("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard")
    if len(actions) > 1:
        raise bad(f"can't parse inline keyboard button: exactly one action field is allowed, got {actions}")
    if "callback_data" in b:
        size = len(b["callback_data"].encode("utf-8"))
        if not 1 <= size <= 64:
            raise bad("BUTTON_DATA_INVALID")
    if "url" in b and not _URL_RE.match(b["url"]):
        raise bad("BUTTON_URL_INVALID")
    if "web_app" in b and chat_type != "private":
        raise bad("BUTTON_TYPE_INVALID")


def check_text(text: str) -> None:
    if not text:
        raise bad("message text is empty")
    if len(text) > MAX_TEXT:
        raise bad("message is too long")


def caption_of(params: dict[str, Any]) -> tuple[str | None, list[dict[str, Any]]]:
    if params.get("caption") is None:
        return None, []
    text, ents = format_text(params["caption"], params.get("parse_mode"), params.get("caption_entities"))
    if len(text) > MAX_CAPTION:
        raise bad("message caption is too long")
    return (text or None), ents


def reply_target(fake: FakeTelegram, chat: Any, params: dict[str, Any]) -> StoredMessage | None:
    rp = params.get("reply_parameters")
    if rp is None and params.get("reply_to_message_id"):
        rp = {"message_id": int(params["reply_to_message_id"]),
              "allow_sending_without_reply": str(params.get("allow_sending_without_reply")).lower() == "true"}
    if not rp:
        return None
    if rp.get("message_id") is None:
        if rp.get("ephemeral_message_id") is None:
            raise bad("message identifier is not specified")
        if params.get("ephemeral_message_parameters") is None:  # checked by ephemeral.EphemeralSend otherwise
            raise bad(EPH_REPLY_NOT_EPHEMERAL)
        return None  # "If the message is a reply to an ephemeral message, then this field may be omitted"
    target_chat = chat
    if rp.get("chat_id") is not None:
        target_chat = fake.chat_for(rp["chat_id"], sending=False)
    msg = target_chat.messages_by_id.get(rp["message_id"])
    if msg is None or msg.deleted:
        if rp.get("allow_sending_without_reply"):
            return None
        raise bad("message to be replied not found")
    return msg


def _count(fake: FakeTelegram, chat: Any, edit: bool = False, paid: Any = None, receiver: Any = None) -> None:
    """Count a send or edit against the limits; ``paid``: the send's allow_paid_broadcast (its own global rate);
    ``receiver``: an ephemeral message's (RateLimits.ephemeral_counts says whether it counts against its group or
    has its own pace, per group and receiver)."""
    if edit and not fake.limiter.limits.count_edits:
        return
    if receiver is not None and not fake.limiter.limits.ephemeral_counts:
        fake.limiter.check(f"ephemeral:{chat.id}:{receiver.id}", False, paid=bool(paid))
        return
    fake.limiter.check(chat.id, chat.type in ("group", "supergroup"), paid=bool(paid))


# ------------------------------------------------------------------------------ sending
@handler("sendMessage")
async def send_message(fake: FakeTelegram, p: dict[str, Any]) -> dict[str, Any]:
    chat = fake.chat_for(p["chat_id"], sending=True)
    text, ents = format_text(p["text"], p.get("parse_mode"), p.get("entities"))
    check_text(text)
    markup = check_markup(p.get("reply_markup"), chat.type)
    plan = _ephemeral_plan(fake, chat, p)
    reply = reply_target(fake, chat, p)
    _count(fake, chat, paid=p.get("allow_paid_broadcast"), receiver=plan.receiver if plan is not None else None)
    if plan is not None:
        return plan.deliver(text=text, entities=ents, reply_markup=markup, reply_to=reply).to_api()
    msg = fake.store_bot_message(chat, text=text, entities=ents, reply_markup=markup, reply_to=reply)
    return msg.to_api()


def _ephemeral_plan(fake: FakeTelegram, chat: Any, p: dict[str, Any]) -> Any:
    """The checked ephemeral send when the request asks for one (ephemeral.py), else None."""
    if p.get("ephemeral_message_parameters") is None:
        return None
    from .ephemeral import EphemeralSend
    return EphemeralSend.check(fake, chat, p)


async def _send_media(fake: FakeTelegram, p: dict[str, Any], kind: str) -> dict[str, Any]:
    chat = fake.chat_for(p["chat_id"], sending=True)
    caption, cents = caption_of(p)
    markup = check_markup(p.get("reply_markup"), chat.type)
    plan = _ephemeral_plan(fake, chat, p)
    reply = reply_target(fake, chat, p)
    _count(fake, chat, paid=p.get("allow_paid_broadcast"), receiver=plan.receiver if plan is not None else None)
    media = fake.files.resolve(p[kind], kind)
    fields = {"caption": caption, "caption_entities": cents, "reply_markup": markup, "reply_to": reply, kind: media}
    if plan is not None:
        return plan.deliver(**fields).to_api()
    return fake.store_bot_message(chat, **fields).to_api()


@handler("sendPhoto")
async def send_photo(fake: FakeTelegram, p: dict[str, Any]) -> dict[str, Any]:
    return await _send_media(fake, p, "photo")


@handler("sendDocument")
async def send_document(fake: FakeTelegram, p: dict[str, Any]) -> dict[str, Any]:
    return await _send_media(fake, p, "document")


def _input_media(fake: FakeTelegram, item: dict[str, Any], files: dict[str, Upload]) -> tuple[str, Any]:
    kind = item["type"]
    if kind not in ("photo", "document"):
        raise ApiError(500, f"Internal Server Error: the fake server does not support InputMedia {kind!r}")
    ref = item["media"]
    if isinstance(ref, Upload):
        return kind, fake.files.resolve(ref, kind)
    if isinstance(ref, str) and ref.startswith("attach://"):
        key = ref[len("attach://"):]
        if key not in files:
            raise bad(f"file attach://{key} not found in the request")
        return kind, fake.files.resolve(files[key], kind)
    return kind, fake.files.resolve(ref, kind)


@handler("sendMediaGroup")
async def send_media_group(fake: FakeTelegram, p: dict[str, Any]) -> list[dict[str, Any]]:
    chat = fake.chat_for(p["chat_id"], sending=True)
    items = p["media"]
    if not 2 <= len(items) <= 10:
        raise bad("wrong number of media in the album: must be 2-10")
    kinds = {i["type"] for i in items}
    if "document" in kinds and len(kinds) > 1:
        raise bad("documents can't be mixed with other media types in an album")
    prepared = []
    for item in items:
        caption, cents = caption_of(item)
        prepared.append((item, caption, cents))
    reply = reply_target(fake, chat, p)
    _count(fake, chat, paid=p.get("allow_paid_broadcast"))
    group_id = str(fake.next_seq())
    out = []
    for item, caption, cents in prepared:
        kind, media = _input_media(fake, item, fake.request_files)
        msg = fake.store_bot_message(chat, caption=caption, caption_entities=cents, reply_to=reply,
                                     media_group_id=group_id, **{kind: media})
        out.append(msg.to_api())
    return out


# ------------------------------------------------------------------------------ editing
def _edit_target(fake: FakeTelegram, p: dict[str, Any]) -> StoredMessage:
    if p.get("inline_message_id"):
        raise bad("MESSAGE_ID_INVALID")
    if p.get("chat_id") is None:
        raise bad("chat_id is empty")
    if p.get("message_id") is None:
        raise bad("message identifier is not specified")
    chat = fake.chat_for(p["chat_id"], sending=True)
    msg = chat.messages_by_id.get(p["message_id"])
    if msg is None or msg.deleted:
        raise bad("message to edit not found")
    if not msg.from_bot:
        raise bad("message can't be edited")
    return msg


NOT_MODIFIED = ("message is not modified: specified new message content and reply markup are exactly the same "
                "as a current content and reply markup of the message")


def _apply_edit(fake: FakeTelegram, msg: StoredMessage, changes: dict[str, Any]) -> dict[str, Any]:
    if all(getattr(msg, k) == v for k, v in changes.items()):
        raise bad(NOT_MODIFIED)
    _count(fake, msg.chat, edit=True, receiver=msg.receiver if msg.is_ephemeral else None)
    msg.history.append(msg.snapshot())
    for k, v in changes.items():
        setattr(msg, k, v)
    msg.edit_count += 1
    msg.edit_date = fake.now()
    fake.changed()
    return msg.to_api()


def markup_for(msg: StoredMessage, markup: dict[str, Any] | None) -> dict[str, Any] | None:
    """check_markup for an edit of ``msg`` (an ephemeral message refuses login_url buttons too)."""
    if msg.is_ephemeral:
        from .ephemeral import check_ephemeral_markup
        check_ephemeral_markup(markup)
    return check_markup(markup, msg.chat.type)


def edit_text(fake: FakeTelegram, msg: StoredMessage, p: dict[str, Any]) -> dict[str, Any]:
    """editMessageText's checks and change on a found message (shared with editEphemeralMessageText)."""
    if p.get("rich_message") is not None:
        raise ApiError(500, "Internal Server Error: the fake server does not support rich messages")
    if p.get("text") is None:
        raise bad("message text is empty")
    text, ents = format_text(p["text"], p.get("parse_mode"), p.get("entities"))
    check_text(text)
    markup = markup_for(msg, p.get("reply_markup"))
    if msg.text is None:
        raise bad("there is no text in the message to edit")
    # Telegram drops the inline keyboard when an edit does not repeat it.
    return _apply_edit(fake, msg, {"text": text, "entities": ents, "reply_markup": markup})


def edit_caption(fake: FakeTelegram, msg: StoredMessage, p: dict[str, Any]) -> dict[str, Any]:
    caption, cents = caption_of(p)
    markup = markup_for(msg, p.get("reply_markup"))
    if msg.text is not None or msg.kind == "service":
        raise bad("there is no caption in the message to edit")
    return _apply_edit(fake, msg, {"caption": caption, "caption_entities": cents, "reply_markup": markup})


def edit_reply_markup(fake: FakeTelegram, msg: StoredMessage, p: dict[str, Any]) -> dict[str, Any]:
    markup = markup_for(msg, p.get("reply_markup"))
    return _apply_edit(fake, msg, {"reply_markup": markup})


@handler("editMessageText")
async def edit_message_text(fake: FakeTelegram, p: dict[str, Any]) -> dict[str, Any]:
    if p.get("text") is None and p.get("rich_message") is None:
        raise bad("message text is empty")
    return edit_text(fake, _edit_target(fake, p), p)


@handler("editMessageCaption")
async def edit_message_caption(fake: FakeTelegram, p: dict[str, Any]) -> dict[str, Any]:
    return edit_caption(fake, _edit_target(fake, p), p)


@handler("editMessageReplyMarkup")
async def edit_message_reply_markup(fake: FakeTelegram, p: dict[str, Any]) -> dict[str, Any]:
    return edit_reply_markup(fake, _edit_target(fake, p), p)


@handler("editMessageMedia")
async def edit_message_media(fake: FakeTelegram, p: dict[str, Any]) -> dict[str, Any]:
    return edit_media(fake, _edit_target(fake, p), p)


def edit_media(fake: FakeTelegram, msg: StoredMessage, p: dict[str, Any]) -> dict[str, Any]:
    item = p["media"]
    caption, cents = caption_of(item)
    markup = markup_for(msg, p.get("reply_markup"))
    if msg.text is not None or msg.kind == "service":
        raise bad("there is no media in the message to edit")
    if msg.media_group_id and item["type"] == "document" and msg.photo:
        raise bad("can't change media type of an album item")
    reused_id = item["media"] if isinstance(item["media"], str) and not item["media"].startswith("attach://") else None
    current_ids = {s["file_id"] for s in (msg.photo or [])} | {(msg.document or {}).get("file_id")}
    if reused_id and reused_id in current_ids and (caption, cents, markup) == (
            msg.caption, msg.caption_entities, msg.reply_markup):
        raise bad(NOT_MODIFIED)
    kind, media = _input_media(fake, item, fake.request_files)
    changes: dict[str, Any] = {"photo": None, "document": None, "caption": caption, "caption_entities": cents,
                               "reply_markup": markup, kind: media}
    return _apply_edit(fake, msg, changes)


# ------------------------------------------------------------------------------ deleting
def _delete_one(fake: FakeTelegram, chat: Any, mid: int) -> None:
    msg = chat.messages_by_id.get(mid)
    if msg is None or msg.deleted:
        raise bad("message to delete not found")
    if not msg.from_bot and chat.type != "private" and chat.bot_status != "administrator":
        raise bad("message can't be deleted")
    if msg.extra and chat.type == "private":
        raise bad("message can't be deleted")
    msg.deleted = True


@handler("deleteMessage")
async def delete_message(fake: FakeTelegram, p: dict[str, Any]) -> bool:
    chat = fake.chat_for(p["chat_id"], sending=False)
    _delete_one(fake, chat, p["message_id"])
    fake.changed()
    return True


@handler("deleteMessages")
async def delete_messages(fake: FakeTelegram, p: dict[str, Any]) -> bool:
    chat = fake.chat_for(p["chat_id"], sending=False)
    ids = p["message_ids"]
    if not 1 <= len(ids) <= 100:
        raise bad("too many messages to delete")
    deleted = 0
    for mid in ids:
        try:
            _delete_one(fake, chat, mid)
            deleted += 1
        except ApiError:
            pass  # Telegram skips messages it cannot find
    if not deleted:
        raise bad("message to delete not found")
    fake.changed()
    return True
