"""The table app's links: a signed table token, the DM's ``web_app`` button and the group's ``url`` button.

Why a signed token and not the table id: an id is guessable, and the token is what a link carries
(``startapp=`` from a group, ``?t=`` from the DM). It is the table id and an HMAC of it under a key
derived from the bot token, so any worker checks it without a lookup. Groups get a ``url`` button to
``t.me/<bot>/<app>?startapp=<token>``: Telegram refuses ``web_app`` buttons outside private chats.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.ui.i18n import t

MAC_CHARS = 16  # base64url characters of the HMAC a token carries (96 bits)


def derived_key(bot_token: str, purpose: str) -> bytes:
    """A key of its own for each use of the bot token (table tokens, app sessions)."""
    return hmac.new(b"kozyr:" + purpose.encode(), bot_token.encode(), hashlib.sha256).digest()


def _mac(key: bytes, table_id: int) -> str:
    digest = hmac.new(key, str(table_id).encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode()[:MAC_CHARS]


@dataclass(frozen=True)
class AppLinks:
    """Where the app lives (``url``, https), its BotFather short name (``name``: group links) and the bot."""

    url: str
    name: str | None
    bot_username: str
    key: bytes

    @classmethod
    def build(cls, url: str, name: str | None, bot_username: str, bot_token: str) -> AppLinks:
        return cls(url, name, bot_username, derived_key(bot_token, "table"))

    def token(self, table_id: int) -> str:
        return f"{table_id}_{_mac(self.key, table_id)}"

    def table_of(self, token: str) -> int | None:
        """The table a token names, or None when it is not one this bot signed."""
        head, _, mac = token.partition("_")
        if not head.isdigit() or len(head) > 19 or not mac:
            return None
        table_id = int(head)
        return table_id if hmac.compare_digest(mac.encode(), _mac(self.key, table_id).encode()) else None

    def page(self, table_id: int) -> str:
        sep = "&" if "?" in self.url else "?"
        return f"{self.url}{sep}t={quote(self.token(table_id))}"

    def dm_button(self, table_id: int, lang: str) -> dict[str, Any]:
        """The hand message's button: opens the app inside Telegram (private chats only)."""
        return {"text": "🃏 " + t(lang, "Open the table app"), "web_app": {"url": self.page(table_id)}}

    def group_link(self, table_id: int) -> str | None:
        """The app's direct link for a group (None without a short name: nothing to link to)."""
        if not self.name:
            return None
        return f"https://t.me/{self.bot_username}/{self.name}?startapp={self.token(table_id)}"

    def group_markup(self, table_id: int, lang: str) -> InlineKeyboardMarkup | None:
        """The group table message's keyboard: one ``url`` button (``web_app`` is refused in groups)."""
        url = self.group_link(table_id)
        if url is None:
            return None
        button = InlineKeyboardButton(text="🃏 " + t(lang, "Open the table app"), url=url)
        return InlineKeyboardMarkup(inline_keyboard=[[button]])


def with_button(markup: dict[str, Any] | None, button: dict[str, Any] | None) -> dict[str, Any] | None:
    """A keyboard (as stored JSON) with one more row holding ``button``; unchanged without a button."""
    if button is None:
        return markup
    rows = list((markup or {}).get("inline_keyboard") or [])
    return {"inline_keyboard": [*rows, [button]]}
