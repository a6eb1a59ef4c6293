"""FakeTelegram: a strict local Bot API server (aiohttp) plus the state the test side manipulates.

The bot under test talks to it over real HTTP through aiogram; simulated users (users.py) add
updates to the queue that getUpdates serves.  Everything the bot did stays inspectable:
``calls`` (every request with its outcome), ``errors``, chat message states, callbacks, counters.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from aiohttp import web

from . import ephemeral, methods_misc  # noqa: F401  (registers handlers)
from .errors import ApiError, FakeUsageError, bad, forbidden
from .files import FileStore
from .methods_misc import member_dict
from .methods_msg import HANDLERS
from .models import CallbackRecord, StoredMessage
from .ratelimit import RateLimiter, RateLimits
from .spec import Spec, Upload, Validator, load_spec
from .updates import UpdateQueue
from .users import FakeChat, FakeUser, text_entities

log = logging.getLogger("fakebot")
T = TypeVar("T")
DEFAULT_TOKEN = "7000000001:AAFakeTokenForKozyrTests_xxxxxxxxxxx"


@dataclass
class ApiCall:
    """One request the bot made, with the outcome served."""

    method: str
    params: dict[str, Any]
    ok: bool
    error_code: int | None = None
    description: str | None = None
    ignored: tuple[str, ...] = ()
    at: float = 0.0


class FakeTelegram:
    def __init__(self, *, token: str = DEFAULT_TOKEN, bot_username: str = "kozyr_test_bot",
                 bot_first_name: str = "Kozyr", limits: RateLimits | None = None, privacy_mode: bool = True,
                 callback_timeout: float = 15.0, clock: Callable[[], float] = time.monotonic,
                 spec: Spec | None = None, time_scale: float = 1.0,
                 ephemeral_window: float = ephemeral.EPHEMERAL_WINDOW,
                 ephemeral_consumes_callback: bool = False) -> None:
        """``time_scale``: the rate limits' clock runs that many times faster than ``clock``, so a test of a
        bot paced for Telegram runs that many times faster when the bot paces that much faster too (its
        intervals divided by the scale, see ``paced_for``). The limits stay strict in the fake's time: a
        bot that sends too early gets its 429, and ``retry_after`` N counts the fake's seconds (a bot that
        waits N real seconds waits longer than it must, never less).

        ``ephemeral_window``: seconds (on ``clock``, not scaled) after a press during which its callback_query_id
        lets a non-administrator bot send an ephemeral message (15 in the docs). ``ephemeral_consumes_callback``:
        model the undocumented reading in which such a send answers the query (see ephemeral.py)."""
        if time_scale <= 0:
            raise FakeUsageError("time_scale must be positive")
        self.token = token
        self.bot_id = int(token.split(":", 1)[0])
        self.bot_username = bot_username
        self.bot_first_name = bot_first_name
        self.privacy_mode = privacy_mode
        self.callback_timeout = callback_timeout
        self.clock = clock
        self.spec = spec or load_spec()
        self.time_scale = time_scale
        self.ephemeral_window = ephemeral_window
        self.ephemeral_consumes_callback = ephemeral_consumes_callback
        self.ephemeral_counts: Counter[str] = Counter()
        self.limiter = RateLimiter(limits or RateLimits(), (lambda: clock() * time_scale) if time_scale != 1 else clock)
        self.files = FileStore()
        self.updates = UpdateQueue()
        self.users: dict[int, FakeUser] = {}
        self.chats: dict[int, FakeChat] = {}
        self.callbacks: dict[str, CallbackRecord] = {}
        self.commands: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.bot_texts: dict[tuple[str, str], str] = {}
        self.webhook_url: str | None = None
        self.calls: list[ApiCall] = []
        self.request_files: dict[str, Upload] = {}
        self.base_url = ""
        self._seq = itertools.count(1)
        self._changed = asyncio.Event()
        self._in_flight = 0
        self._last_activity = 0.0
        self._runner: web.AppRunner | None = None

    # ------------------------------------------------------------------------------ lifecycle
    async def start(self, host: str = "127.0.0.1", port: int = 0) -> FakeTelegram:
        app = web.Application(client_max_size=60 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_route("GET", "/file/bot{token}/{path:.+}", self._download)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        sock = site._server.sockets[0]  # type: ignore[union-attr]
        self.base_url = f"http://{host}:{sock.getsockname()[1]}"
        return self

    async def stop(self) -> None:
        self.updates.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegram:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def api_server(self) -> Any:
        from aiogram.client.telegram import TelegramAPIServer
        return TelegramAPIServer.from_base(self.base_url)

    def make_bot(self, **kwargs: Any) -> Any:
        """A real aiogram Bot talking to this server (close it: ``await bot.session.close()``)."""
        from aiogram import Bot
        from aiogram.client.session.aiohttp import AiohttpSession
        return Bot(self.token, session=AiohttpSession(api=self.api_server), **kwargs)

    # ------------------------------------------------------------------------------ world building
    def user(self, id: int | None = None, first_name: str | None = None, last_name: str | None = None,
             username: str | None = None, language_code: str | None = "en", *, started: bool = False,
             is_premium: bool = False) -> FakeUser:
        uid = id if id is not None else 100000 + next(self._seq)
        if uid in self.users or uid <= 0:
            raise FakeUsageError(f"user id {uid} is taken or invalid")
        u = FakeUser(self, uid, first_name or f"User{uid}", last_name, username, language_code, is_premium)
        u.started = started
        self.users[uid] = u
        return u

    def group(self, title: str = "Test group", members: list[FakeUser] = (), admins: list[FakeUser] = (),  # type: ignore[assignment]
              creator: FakeUser | None = None, *, id: int | None = None, type: str = "group",
              is_forum: bool = False, username: str | None = None, bot_admin: bool = False) -> FakeChat:
        """A group/supergroup that already contains the bot.  Members/admins/creator are FakeUsers."""
        if type not in ("group", "supergroup"):
            raise FakeUsageError("type must be group or supergroup")
        if id is None:
            id = -(1001000000000 + next(self._seq)) if type == "supergroup" else -(4000000000 + next(self._seq))
        if id >= 0 or id in self.chats:
            raise FakeUsageError(f"group id {id} is taken or not negative")
        chat = FakeChat(self, id, type, title=title, username=username, is_forum=is_forum)
        for u in members:
            chat.members[u.id] = "member"
        for u in admins:
            chat.members[u.id] = "administrator"
        if creator is not None:
            chat.members[creator.id] = "creator"
        chat.bot_status = "administrator" if bot_admin else "member"
        self.chats[id] = chat
        return chat

    def supergroup(self, title: str = "Test supergroup", members: list[FakeUser] = (),  # type: ignore[assignment]
                   admins: list[FakeUser] = (), creator: FakeUser | None = None, **kw: Any) -> FakeChat:  # type: ignore[assignment]
        return self.group(title, members, admins, creator, type="supergroup", **kw)

    def private_chat(self, user: FakeUser) -> FakeChat:
        chat = self.chats.get(user.id)
        if chat is None:
            chat = self.chats[user.id] = FakeChat(self, user.id, "private", user=user)
        return chat

    def bot_user(self) -> dict[str, Any]:
        return {"id": self.bot_id, "is_bot": True, "first_name": self.bot_first_name, "username": self.bot_username}

    def deep_link(self, payload: str) -> str:
        return f"https://t.me/{self.bot_username}?start={payload}"

    # ------------------------------------------------------------------------------ observation
    @property
    def errors(self) -> list[ApiCall]:
        return [c for c in self.calls if not c.ok]

    @property
    def ignored_params(self) -> list[tuple[str, str]]:
        return [(c.method, name) for c in self.calls for name in c.ignored]

    def calls_of(self, method: str) -> list[ApiCall]:
        return [c for c in self.calls if c.method == method]

    @property
    def stats(self) -> dict[str, Any]:
        return {
            "calls": Counter(c.method for c in self.calls),
            "errors": Counter((c.method, c.error_code) for c in self.calls if not c.ok),
            "uploads": self.files.uploads,
            "file_reuses": self.files.reuses,
            "rate_limited": self.limiter.served_429,
            "rate_limited_by_chat": dict(self.limiter.served_429_by_chat),
            "paid_broadcasts": self.limiter.paid_messages,
            "stars_charged": self.limiter.stars_charged,
            "callbacks": len(self.callbacks),
            "callbacks_unanswered": len(self.unanswered_callbacks()),
            "ephemeral_sent": self.ephemeral_counts["sent"],
            "ephemeral_lost": self.ephemeral_counts["lost"],
            "ephemeral_refused": self.ephemeral_counts["refused"],
        }

    def unanswered_callbacks(self) -> list[CallbackRecord]:
        return [c for c in self.callbacks.values() if not c.answered]

    def changed(self) -> None:
        """Wake everything waiting in wait_until()."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_until(self, predicate: Callable[[], T | None], timeout: float = 5.0, what: str = "") -> T:
        """Wait until ``predicate()`` is truthy (re-checked after every state change); return its value."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                recent = "\n  ".join(f"{c.method} ok={c.ok} {c.description or ''}" for c in self.calls[-8:])
                raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate}; "
                                     f"recent calls:\n  {recent}")
            try:
                await asyncio.wait_for(self._changed.wait(), min(remaining, 0.05))
            except TimeoutError:
                pass

    async def wait_for_message(self, chat: FakeChat, predicate: Callable[[StoredMessage], bool] | None = None,
                               *, after: StoredMessage | int | None = None, timeout: float = 5.0) -> StoredMessage:
        """The first bot message in ``chat`` newer than ``after`` (default: anything) matching ``predicate``."""
        floor = after.message_id if isinstance(after, StoredMessage) else (after or 0)

        def find() -> StoredMessage | None:
            for m in chat.messages():
                if m.message_id > floor and not m.deleted and (predicate is None or predicate(m)):
                    return m
            return None
        return await self.wait_until(find, timeout, what=f"a bot message in {chat}")

    async def wait_for_ephemeral(self, chat: FakeChat, user: FakeUser,
                                 predicate: Callable[[StoredMessage], bool] | None = None, *,
                                 after: StoredMessage | int | None = None, timeout: float = 5.0) -> StoredMessage:
        """The first ephemeral message on ``user``'s screen in ``chat`` newer than ``after`` (a message or an
        ephemeral_message_id; default: anything) matching ``predicate``."""
        floor = (after.ephemeral_message_id or 0) if isinstance(after, StoredMessage) else (after or 0)

        def find() -> StoredMessage | None:
            for m in user.ephemeral(chat):
                if (m.ephemeral_message_id or 0) > floor and (predicate is None or predicate(m)):
                    return m
            return None
        return await self.wait_until(find, timeout, what=f"an ephemeral message for {user} in {chat}")

    def expire_ephemeral(self, msg: StoredMessage) -> None:
        """The ephemeral message disappears (the docs: "may disappear automatically after some time"); the server
        forgets it too: editing or deleting it answers "message to edit/delete not found"."""
        if not msg.is_ephemeral:
            raise FakeUsageError(f"{msg!r} is not an ephemeral message")
        msg.expired = True
        self.changed()

    def age_callback(self, rec: CallbackRecord, seconds: float) -> None:
        """Move a press ``seconds`` into the past (its ephemeral window and answer deadline count from then)."""
        rec.created -= seconds

    def age_ephemeral_command(self, msg: StoredMessage, seconds: float) -> None:
        """Move a user's ephemeral command ``seconds`` into the past (its 15 s reply window counts from then)."""
        if msg.sent_at is None:
            raise FakeUsageError(f"{msg!r} is not a user's ephemeral command")
        msg.sent_at -= seconds

    async def idle(self, quiet: float = 0.1, timeout: float = 10.0) -> None:
        """Wait until the bot fetched every update, has no request in flight and stayed quiet ``quiet`` s."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            busy = self.updates.undelivered() or self._in_flight
            since = loop.time() - self._last_activity
            if not busy and since >= quiet:
                return
            if loop.time() > deadline:
                raise AssertionError(f"bot not idle after {timeout}s (undelivered={self.updates.undelivered()}, "
                                     f"in flight={self._in_flight})")
            await asyncio.sleep(max(0.01, quiet - since) if not busy else 0.01)

    # ------------------------------------------------------------------------------ internals used by methods
    def now(self) -> int:
        return int(time.time())

    def next_seq(self) -> int:
        return next(self._seq)

    def _lookup(self, chat_id: int | str) -> FakeChat | None:
        if isinstance(chat_id, str):
            if chat_id.startswith("@"):
                return next((c for c in self.chats.values()
                             if c.username and c.username.lower() == chat_id[1:].lower()), None)
            try:
                chat_id = int(chat_id)
            except ValueError:
                return None
        chat = self.chats.get(chat_id)
        if chat is None and chat_id in self.users:
            chat = self.private_chat(self.users[chat_id])
        return chat

    def chat_for(self, chat_id: int | str, *, sending: bool) -> FakeChat:
        """Resolve a chat_id the way Telegram does, raising its errors (not found, migrated, 403...)."""
        chat = self._lookup(chat_id)
        if chat is None:
            raise bad("chat not found")
        if chat.migrated_to is not None:
            raise bad("group chat was upgraded to a supergroup chat", migrate_to_chat_id=chat.migrated_to.id)
        if chat.type == "private":
            assert chat.user is not None
            if sending and chat.user.blocked:
                raise forbidden("bot was blocked by the user")
            if sending and not chat.user.started:
                raise forbidden("bot can't initiate conversation with a user")
        else:
            kind = "supergroup chat" if chat.type == "supergroup" else "group chat"
            if chat.bot_status == "kicked":
                raise forbidden(f"bot was kicked from the {kind}")
            if chat.bot_status == "left":
                raise forbidden(f"bot is not a member of the {kind}")
        return chat

    def store_bot_message(self, chat: FakeChat, **fields: Any) -> StoredMessage:
        msg = StoredMessage(message_id=chat.new_message_id(), chat=chat, date=self.now(), sender=None, **fields)
        chat.messages_by_id[msg.message_id] = msg
        self.changed()
        return msg

    def _bot_sees(self, chat: FakeChat, msg: StoredMessage) -> bool:
        if chat.type == "private":
            return True
        if chat.bot_status not in ("member", "administrator"):
            return False
        if msg.extra or not self.privacy_mode or chat.bot_status == "administrator":
            return True
        if msg.reply_to is not None and msg.reply_to.from_bot:
            return True
        for e in msg.entities:
            if e["type"] == "bot_command" and e["offset"] == 0:
                cmd = (msg.text or "")[: e["length"]]
                return "@" not in cmd or cmd.split("@", 1)[1].lower() == self.bot_username.lower()
        return False

    async def user_message(self, user: FakeUser, chat: FakeChat, text: str,
                           reply_to: StoredMessage | None = None) -> StoredMessage:
        if chat.migrated_to is not None:
            raise FakeUsageError(f"{chat} was migrated to {chat.migrated_to.id}; write there")
        if not chat.can_see(user):
            raise FakeUsageError(f"{user} is not a member of {chat}; use chat.add_member() first")
        if not text.strip() or len(text) > 4096:
            raise FakeUsageError("a user message must have 1..4096 characters")
        if reply_to is not None and (reply_to.chat is not chat or reply_to.deleted):
            raise FakeUsageError("reply_to must be a live message of the same chat")
        msg = StoredMessage(message_id=chat.new_message_id(), chat=chat, date=self.now(), sender=user, text=text,
                            entities=text_entities(text), reply_to=reply_to)
        chat.messages_by_id[msg.message_id] = msg
        if self._bot_sees(chat, msg):
            self.updates.push("message", msg.to_api())
        self.changed()
        await asyncio.sleep(0)
        return msg

    def ephemeral_commands(self) -> set[str]:
        """Commands the bot declared ephemeral (BotCommand.is_ephemeral), in any scope or language."""
        return {c["command"] for cmds in self.commands.values() for c in cmds if c.get("is_ephemeral")}

    async def ephemeral_command(self, user: FakeUser, chat: FakeChat, text: str) -> StoredMessage:
        if chat.type not in ("group", "supergroup"):
            raise FakeUsageError("ephemeral commands are sent in groups and supergroups")
        if not chat.can_see(user):
            raise FakeUsageError(f"{user} is not a member of {chat}; use chat.add_member() first")
        entities = text_entities(text)
        if not entities or entities[0]["type"] != "bot_command" or entities[0]["offset"] != 0:
            raise FakeUsageError("an ephemeral message from a user is a command: /name[@bot] [arguments]")
        command = text[1:entities[0]["length"]]
        name, _, target = command.partition("@")
        if target and target.lower() != self.bot_username.lower():
            raise FakeUsageError(f"/{command} is addressed to another bot")
        if name not in self.ephemeral_commands():
            raise FakeUsageError(f"/{name} is not declared with is_ephemeral=True (setMyCommands); "
                                 f"the app would send it as a normal message")
        msg = StoredMessage(message_id=0, chat=chat, date=self.now(), sender=user, text=text, entities=entities,
                            ephemeral_message_id=chat.new_ephemeral_id(), to_bot=True, sent_at=self.clock())
        chat.incoming_ephemeral[msg.ephemeral_message_id] = msg  # type: ignore[index]
        if chat.bot_status in ("member", "administrator"):
            self.updates.push("message", msg.to_api())
        self.changed()
        await asyncio.sleep(0)
        return msg

    async def message_as_chat(self, user: FakeUser, chat: FakeChat, text: str,
                              sender_chat: FakeChat | None = None) -> StoredMessage:
        """``user`` writes on behalf of a chat: as the group itself (an anonymous administrator, the default)
        or as ``sender_chat`` (a channel). Per the Bot API, such a message has ``sender_chat`` and, in
        non-channel chats, a fake ``from``: GroupAnonymousBot (1087968824) or Channel_Bot (136817688)."""
        if not chat.can_see(user):
            raise FakeUsageError(f"{user} is not a member of {chat}; use chat.add_member() first")
        as_chat = sender_chat or chat
        if as_chat is chat and chat.members.get(user.id) not in ("creator", "administrator"):
            raise FakeUsageError(f"only an administrator of {chat} can write anonymously")
        fake_from = ({"id": 1087968824, "is_bot": True, "first_name": "Group", "username": "GroupAnonymousBot"}
                     if as_chat is chat else
                     {"id": 136817688, "is_bot": True, "first_name": "Channel", "username": "Channel_Bot"})
        msg = StoredMessage(message_id=chat.new_message_id(), chat=chat, date=self.now(), sender=user, text=text,
                            entities=text_entities(text), extra={"from": fake_from, "sender_chat": as_chat.to_api()})
        chat.messages_by_id[msg.message_id] = msg
        if self._bot_sees(chat, msg):
            self.updates.push("message", msg.to_api())
        self.changed()
        await asyncio.sleep(0)
        return msg

    def service_message(self, chat: FakeChat, user: FakeUser | None, extra: dict[str, Any]) -> StoredMessage:
        msg = StoredMessage(message_id=chat.new_message_id(), chat=chat, date=self.now(), sender=user, extra=extra)
        chat.messages_by_id[msg.message_id] = msg
        if self._bot_sees(chat, msg):
            self.updates.push("message", msg.to_api())
        self.changed()
        return msg

    def _someone_in(self, chat: FakeChat) -> dict[str, Any]:
        if chat.user is not None:
            return chat.user.to_api()
        for status in ("creator", "administrator", "member"):
            for uid, st in chat.members.items():
                if st == status:
                    return self.users[uid].to_api()
        return self.bot_user()

    def emit_my_chat_member(self, chat: FakeChat, by: FakeUser | None, old: str, new: str) -> None:
        bot = self.bot_user()
        self.updates.push("my_chat_member", {
            "chat": chat.to_api(), "from": by.to_api() if by else self._someone_in(chat), "date": self.now(),
            "old_chat_member": member_dict(self, bot, old), "new_chat_member": member_dict(self, bot, new)})
        self.changed()

    def migrate(self, old: FakeChat, by: FakeUser | None, new_id: int | None) -> FakeChat:
        new = self.group(old.title or "", id=new_id, type="supergroup", username=old.username)
        new.members = dict(old.members)
        new.bot_status = old.bot_status
        actor = by or (self.users[next(iter(old.members))] if old.members else None)
        self.service_message(old, actor, {"migrate_to_chat_id": new.id})
        old.migrated_to = new
        new.migrated_from = old
        self.service_message(new, actor, {"migrate_from_chat_id": old.id})
        return new

    async def callback_query(self, user: FakeUser, msg: StoredMessage, data: str) -> CallbackRecord:
        rec = CallbackRecord(id=str(4000000000000000000 + next(self._seq)), user=user, message=msg, data=data,
                             created=self.clock())
        self.callbacks[rec.id] = rec
        self.updates.push("callback_query", {"id": rec.id, "from": user.to_api(), "message": msg.to_api(),
                                             "chat_instance": msg.chat.chat_instance, "data": data})
        self.changed()
        await asyncio.sleep(0)
        return rec

    # ------------------------------------------------------------------------------ HTTP
    async def _read(self, request: web.Request, method: str) -> tuple[dict[str, Any], dict[str, Upload], bool]:
        raw: dict[str, Any] = dict(request.query)
        files: dict[str, Upload] = {}
        from_form = True
        ctype = request.content_type
        if request.can_read_body:
            if ctype == "application/json":
                try:
                    body = await request.json()
                except ValueError:
                    raise bad("can't parse JSON request body") from None
                if not isinstance(body, dict):
                    raise bad("JSON request body must be an object")
                raw.update(body)
                from_form = False
            elif ctype.startswith("multipart/"):
                reader = await request.multipart()
                while (part := await reader.next()) is not None:
                    if part.filename is not None:  # type: ignore[union-attr]
                        data = bytes(await part.read())  # type: ignore[union-attr]
                        files[part.name or ""] = Upload(part.name or "", part.filename, data,  # type: ignore[union-attr]
                                                        part.headers.get("Content-Type", "application/octet-stream"))
                    else:
                        raw[part.name or ""] = await part.text()  # type: ignore[union-attr]
            else:
                raw.update(await request.post())
        fields = {f["name"] for f in self.spec.methods[method].get("fields", [])}
        for name, up in files.items():
            if name in fields and name not in raw:
                raw[name] = up  # a file sent directly under the parameter's own name
        return raw, files, from_form

    async def _handle(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.json_response({"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401)
        method = self.spec.method_name(request.match_info["method"])
        if method is None:
            return web.json_response({"ok": False, "error_code": 404, "description": "Not Found"}, status=404)
        polling = method == "getUpdates"
        if not polling:
            self._in_flight += 1
        call = ApiCall(method, {}, ok=False, at=self.clock())
        try:
            raw, files, from_form = await self._read(request, method)
            validator = Validator(self.spec, files)
            params = validator.method_params(method, raw, from_form)
            call.params = {k: (f"<file {v.filename}>" if isinstance(v, Upload) else v) for k, v in params.items()}
            call.ignored = tuple(validator.unknown)
            if validator.unknown:
                log.warning("fakebot: %s ignored unknown parameters %s", method, validator.unknown)
                ephemeral.refuse_legacy(method, validator.unknown)
                if "allow_paid_broadcast" in validator.unknown:  # an edit, an answer...: never a paid broadcast
                    raise ApiError(400, f"Bad Request: {method} has no allow_paid_broadcast parameter: only "
                                        "sends may be paid broadcasts (Bot API 7.11)")
            self.request_files = files
            handler = HANDLERS.get(method)
            result = await handler(self, params) if handler else self._generic(method)
            call.ok = True
            body, status = {"ok": True, "result": result}, 200
        except ApiError as e:
            call.error_code, call.description = e.code, e.description
            body, status = e.envelope(), e.code
        finally:
            self.request_files = {}
            if not polling:
                self._in_flight -= 1
            self._last_activity = asyncio.get_running_loop().time()
        if not (polling and call.ok and not body["result"]):
            self.calls.append(call)  # empty long polls are not worth recording
        self.changed()
        return web.Response(text=json.dumps(body, ensure_ascii=False), status=status, content_type="application/json")

    def _generic(self, method: str) -> bool:
        """Spec methods without special behaviour: validated, then True if they return Boolean, else loud 500."""
        if self.spec.returns(method) == ["Boolean"]:
            return True
        raise ApiError(500, f"Internal Server Error: {method} is not implemented by the fake server")

    async def _download(self, request: web.Request) -> web.StreamResponse:
        if request.match_info["token"] != self.token:
            return web.json_response({"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401)
        f = self.files.by_path.get(request.match_info["path"])
        if f is None:
            return web.json_response({"ok": False, "error_code": 404, "description": "Not Found"}, status=404)
        return web.Response(body=f.data, content_type="application/octet-stream")
