"""Who is asking: Telegram's Mini App ``initData``, checked on every request.

Telegram signs the initData it hands the page with an HMAC keyed by the bot token
(``aiogram.utils.web_app.safe_parse_webapp_init_data``), so a forged one, or another bot's, fails
the signature. ``auth_date`` must be younger than ``max_age`` (and not from the future). The
initData stays the same for as long as the app is open, so it cannot be single-use per request;
instead it is single-use per *session*: the first request that presents it (``open``) is answered
with a session proof (an HMAC of its hash under a key of the bot's), remembered as seen until it
expires, and every later request must carry initData and that proof together. Someone who copies the
initData alone (a log, a shared link) cannot open a session with it again: replayed, refused.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import parse_qsl

from aiogram.utils.web_app import safe_parse_webapp_init_data

from bot.ui.app_links import derived_key
from bot.ui.i18n import LANGS

FUTURE_SKEW = 60.0  # seconds an auth_date may lie ahead of our clock (clock drift), no more


class Refused(Exception):
    """A request the app's server refuses; ``reason`` is what the log and the JSON answer say."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Visitor:
    """A checked initData: who opened the app, in which language, from which link."""

    user_id: int
    name: str
    lang: str
    hash: str
    auth_date: float
    start_param: str | None


class SeenHashes(Protocol):
    """Which initData hashes opened a session already, until they expire (one process: ``MemorySeen``)."""

    async def first(self, key: str, until: float) -> bool: ...


class MemorySeen:
    """Seen hashes in this process's memory, each kept until its initData expires anyway."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._until: dict[str, float] = {}
        self._next_prune = 0.0

    async def first(self, key: str, until: float) -> bool:
        now = self.clock()
        if now >= self._next_prune:
            self._until = {k: u for k, u in self._until.items() if u > now}
            self._next_prune = now + 60.0
        known = self._until.get(key)
        if known is not None and known > now:
            return False
        self._until[key] = until
        return True

    def __len__(self) -> int:
        return len(self._until)


def claimed_lang(init_data: str) -> str:
    """The language the (unchecked) initData names: only to word a refusal, never to grant anything."""
    try:
        user = json.loads(dict(parse_qsl(init_data)).get("user") or "{}")
        lang = str(user.get("language_code") or "en").split("-")[0]
    except (ValueError, AttributeError):
        return "en"
    return lang if lang in LANGS else "en"


class Gate:
    """Checks initData (signature, age) and the session proof; ``open`` starts a session once per initData."""

    def __init__(self, bot_token: str, max_age: float, seen: SeenHashes,
                 clock: Callable[[], float] = time.time) -> None:
        self._token = bot_token
        self._session_key = derived_key(bot_token, "app-session")
        self.max_age = max_age
        self.seen = seen
        self.clock = clock

    def visitor(self, init_data: str) -> Visitor:
        """The initData checked: signed with this bot's token, young enough, naming a user."""
        if not init_data:
            raise Refused("missing")
        try:
            data = safe_parse_webapp_init_data(self._token, init_data)
        except (ValueError, TypeError):
            raise Refused("forged") from None
        user = data.user
        if user is None:
            raise Refused("forged")
        stamp = data.auth_date.timestamp()
        now = self.clock()
        if now - stamp > self.max_age or stamp - now > FUTURE_SKEW:
            raise Refused("expired")
        lang = (user.language_code or "en").split("-")[0]
        name = " ".join(p for p in (user.first_name, user.last_name) if p)
        return Visitor(user.id, name, lang if lang in LANGS else "en", data.hash, stamp, data.start_param)

    def proof(self, visitor: Visitor) -> str:
        return hmac.new(self._session_key, visitor.hash.encode(), hashlib.sha256).hexdigest()

    async def open(self, init_data: str) -> tuple[Visitor, str]:
        """A new session: the initData's first appearance only (a second is a replay)."""
        visitor = self.visitor(init_data)
        if not await self.seen.first(visitor.hash, visitor.auth_date + self.max_age):
            raise Refused("replayed")
        return visitor, self.proof(visitor)

    def check(self, init_data: str, proof: str) -> Visitor:
        """A request of an open session: the initData still valid and the session's proof with it."""
        visitor = self.visitor(init_data)
        if not proof or not hmac.compare_digest(proof.encode(), self.proof(visitor).encode()):
            raise Refused("no session")
        return visitor
