"""Bot API methods other than message sending: updates, callbacks, commands, chat info, files."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from .errors import ApiError, bad
from .methods_msg import handler

if TYPE_CHECKING:
    from .server import FakeTelegram

QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
CHAT_ACTIONS = {"typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice",
                "upload_document", "choose_sticker", "find_location", "record_video_note", "upload_video_note"}
_COMMAND_RE = re.compile(r"^[a-z0-9_]{1,32}$")


@handler("getMe")
async def get_me(fake: FakeTelegram, p: dict[str, Any]) -> dict[str, Any]:
    return {**fake.bot_user(), "can_join_groups": True, "can_read_all_group_messages": not fake.privacy_mode,
            "supports_inline_queries": False, "can_connect_to_business": False, "has_main_web_app": False}


@handler("getUpdates")
async def get_updates(fake: FakeTelegram, p: dict[str, Any]) -> list[dict[str, Any]]:
    if fake.webhook_url:
        raise ApiError(409, "Conflict: can't use getUpdates method while webhook is active; "
                            "use deleteWebhook to delete the webhook first")
    return await fake.updates.get(p.get("offset"), p.get("limit"), p.get("timeout"), p.get("allowed_updates"))


@handler("setWebhook")
async def set_webhook(fake: FakeTelegram, p: dict[str, Any]) -> bool:
    fake.webhook_url = p["url"] or None
    return True


@handler("deleteWebhook")
async def delete_webhook(fake: FakeTelegram, p: dict[str, Any]) -> bool:
    fake.webhook_url = None
    if p.get("drop_pending_updates"):
        fake.updates.pending.clear()
    return True


@handler("getWebhookInfo")
async def get_webhook_info(fake: FakeTelegram, p: dict[str, Any]) -> dict[str, Any]:
    return {"url": fake.webhook_url or "", "has_custom_certificate": False,
            "pending_update_count": len(fake.updates.pending)}


@handler("answerCallbackQuery")
async def answer_callback_query(fake: FakeTelegram, p: dict[str, Any]) -> bool:
    rec = fake.callbacks.get(p["callback_query_id"])
    if rec is None:
        raise bad(QUERY_TOO_OLD)
    rec.answer_attempts += 1
    if rec.answered:
        raise bad(QUERY_TOO_OLD)
    if fake.clock() - rec.created > fake.callback_timeout:
        rec.late = True
        raise bad(QUERY_TOO_OLD)
    text = p.get("text")
    if text is not None and len(text) > 200:
        raise bad("MESSAGE_TOO_LONG")
    url = p.get("url")
    if url and not re.match(rf"^https?://t\.me/{re.escape(fake.bot_username)}\?start=", url, re.I):
        raise bad("URL_INVALID")
    rec.answered = True
    rec.answered_at = fake.clock()
    rec.answer_text = text
    rec.show_alert = bool(p.get("show_alert"))
    rec.url = url
    fake.changed()
    return True


# ------------------------------------------------------------------------------ commands
def _scope_key(p: dict[str, Any]) -> tuple[str, str]:
    scope = p.get("scope") or {"type": "default"}
    return json.dumps(scope, sort_keys=True), p.get("language_code") or ""


@handler("setMyCommands")
async def set_my_commands(fake: FakeTelegram, p: dict[str, Any]) -> bool:
    cmds = p["commands"]
    if len(cmds) > 100:
        raise bad("too many commands")
    for c in cmds:
        if not _COMMAND_RE.match(c["command"]):
            raise bad("BOT_COMMAND_INVALID")
        if not 1 <= len(c["description"]) <= 256:
            raise bad("command description must be 1-256 characters")
    lang = p.get("language_code")
    if lang and not re.fullmatch(r"[a-z]{2}", lang):
        raise bad("invalid language code specified")
    fake.commands[_scope_key(p)] = [{"command": c["command"], "description": c["description"],
                                     **({"is_ephemeral": True} if c.get("is_ephemeral") else {})} for c in cmds]
    return True


@handler("getMyCommands")
async def get_my_commands(fake: FakeTelegram, p: dict[str, Any]) -> list[dict[str, Any]]:
    return fake.commands.get(_scope_key(p), [])


@handler("deleteMyCommands")
async def delete_my_commands(fake: FakeTelegram, p: dict[str, Any]) -> bool:
    fake.commands.pop(_scope_key(p), None)
    return True


def _bot_texts(field: str, limit: int):
    async def set_(fake: FakeTelegram, p: dict[str, Any]) -> bool:
        value = p.get(field) or ""
        if len(value) > limit:
            raise bad(f"{field} is too long")
        fake.bot_texts[(field, p.get("language_code") or "")] = value
        return True

    async def get_(fake: FakeTelegram, p: dict[str, Any]) -> dict[str, Any]:
        value = fake.bot_texts.get((field, p.get("language_code") or ""))
        if value is None and field == "name":
            value = fake.bot_first_name
        return {field: value or ""}
    return set_, get_


for _field, _limit, _suffix in (("name", 64, "Name"), ("description", 512, "Description"),
                                ("short_description", 120, "ShortDescription")):
    _set, _get = _bot_texts(_field, _limit)
    handler(f"setMy{_suffix}")(_set)
    handler(f"getMy{_suffix}")(_get)


# ------------------------------------------------------------------------------ chats
@handler("sendChatAction")
async def send_chat_action(fake: FakeTelegram, p: dict[str, Any]) -> bool:
    fake.chat_for(p["chat_id"], sending=True)
    if p["action"] not in CHAT_ACTIONS:
        raise bad("wrong parameter action in request")
    return True


@handler("getChat")
async def get_chat(fake: FakeTelegram, p: dict[str, Any]) -> dict[str, Any]:
    chat = fake.chat_for(p["chat_id"], sending=False)
    out = {**chat.to_api(), "accent_color_id": 0, "max_reaction_count": 11,
           "accepted_gift_types": {"unlimited_gifts": False, "limited_gifts": False, "unique_gifts": False,
                                   "premium_subscription": False, "gifts_from_channels": False}}
    return out


def member_dict(fake: FakeTelegram, user: dict[str, Any], status: str) -> dict[str, Any]:
    if status == "creator":
        return {"status": "creator", "user": user, "is_anonymous": False}
    if status == "administrator":
        rights = {k: True for k in ("can_manage_chat", "can_delete_messages", "can_manage_video_chats",
                                    "can_restrict_members", "can_change_info", "can_invite_users",
                                    "can_post_stories", "can_edit_stories", "can_delete_stories",
                                    "can_pin_messages", "can_manage_topics", "can_send_welcome_messages")}
        return {"status": "administrator", "user": user, "can_be_edited": False, "is_anonymous": False,
                "can_promote_members": False, **rights}
    if status == "kicked":
        return {"status": "kicked", "user": user, "until_date": 0}
    if status == "left":
        return {"status": "left", "user": user}
    return {"status": "member", "user": user}


@handler("getChatMember")
async def get_chat_member(fake: FakeTelegram, p: dict[str, Any]) -> dict[str, Any]:
    chat = fake.chat_for(p["chat_id"], sending=False)
    uid = p["user_id"]
    if uid == fake.bot_id:
        return member_dict(fake, fake.bot_user(), chat.status_of(uid))
    user = fake.users.get(uid)
    if user is None:
        raise bad("user not found")
    return member_dict(fake, user.to_api(), chat.status_of(uid))


@handler("getChatAdministrators")
async def get_chat_administrators(fake: FakeTelegram, p: dict[str, Any]) -> list[dict[str, Any]]:
    chat = fake.chat_for(p["chat_id"], sending=False)
    if chat.type == "private":
        raise bad("there are no administrators in the private chat")
    out = [member_dict(fake, fake.users[uid].to_api(), st) for uid, st in chat.members.items()
           if st in ("creator", "administrator")]
    if chat.bot_status == "administrator":
        out.append(member_dict(fake, fake.bot_user(), "administrator"))
    return out


@handler("getChatMemberCount")
async def get_chat_member_count(fake: FakeTelegram, p: dict[str, Any]) -> int:
    chat = fake.chat_for(p["chat_id"], sending=False)
    if chat.type == "private":
        return 2
    active = sum(1 for st in chat.members.values() if st in ("creator", "administrator", "member"))
    return active + (chat.bot_status in ("member", "administrator"))


@handler("leaveChat")
async def leave_chat(fake: FakeTelegram, p: dict[str, Any]) -> bool:
    chat = fake.chat_for(p["chat_id"], sending=False)
    if chat.type == "private":
        raise bad("chat member status can't be changed in private chats")
    chat.bot_status = "left"
    fake.changed()
    return True


async def _pin_rights(fake: FakeTelegram, p: dict[str, Any]) -> bool:
    chat = fake.chat_for(p["chat_id"], sending=False)
    if chat.type != "private" and chat.bot_status != "administrator":
        raise bad("not enough rights to manage pinned messages in the chat")
    mid = p.get("message_id")
    if mid is not None and (mid not in chat.messages_by_id or chat.messages_by_id[mid].deleted):
        raise bad("message to pin not found")
    return True


handler("pinChatMessage")(_pin_rights)
handler("unpinChatMessage")(_pin_rights)
handler("unpinAllChatMessages")(_pin_rights)


@handler("getFile")
async def get_file(fake: FakeTelegram, p: dict[str, Any]) -> dict[str, Any]:
    f = fake.files.by_id.get(p["file_id"])
    if f is None:
        raise bad("wrong file_id or the file is temporarily unavailable")
    return {"file_id": f.file_id, "file_unique_id": f.file_unique_id, "file_size": len(f.data),
            "file_path": f.file_path}


@handler("createForumTopic")
async def create_forum_topic(fake: FakeTelegram, p: dict[str, Any]) -> dict[str, Any]:
    """A forum topic: its id is the id of the service message that opens it (threads are not kept)."""
    chat = fake.chat_for(p["chat_id"], sending=False)
    if not getattr(chat, "is_forum", False):
        raise bad("the chat is not a forum")
    if chat.bot_status != "administrator":
        raise bad("not enough rights to create a topic")
    name = str(p.get("name", ""))
    if not 1 <= len(name) <= 128:
        raise bad("topic name is invalid")
    thread = chat.new_message_id()
    fake.changed()
    return {"message_thread_id": thread, "name": name, "icon_color": int(p.get("icon_color", 7322096))}
