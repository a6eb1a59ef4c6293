"""Cutting Telegram-HTML texts to Telegram's limits without breaking them.

Telegram counts a text's length after entity parsing (4096 for a message, 1024 for a caption, in
UTF-16 units), and refuses a text cut in the middle of ``&amp;`` or with an unclosed tag. ``clip_html``
counts what the reader sees, cuts between whole characters and entities, and closes open tags.
"""

from __future__ import annotations

import html
import re

TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
ANSWER_LIMIT = 200  # answerCallbackQuery text
ELLIPSIS = "…"

_TOKEN = re.compile(r"<[^<>]*>|&#?\w+;|.", re.S)
_TAG_NAME = re.compile(r"</?\s*([a-zA-Z][\w-]*)")


def units(text: str) -> int:
    """Length in UTF-16 code units, as Telegram counts."""
    return len(text.encode("utf-16-le")) // 2


def visible_units(text: str) -> int:
    """The length Telegram checks: the text after its HTML tags and entities are parsed."""
    return sum(_width(m.group()) for m in _TOKEN.finditer(text))


def _width(token: str) -> int:
    if len(token) > 1 and token.startswith("<") and token.endswith(">"):
        return 0
    return units(html.unescape(token) if token.startswith("&") else token)


def clip_html(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text`` if it fits; else its beginning (whole characters and entities), "…" and closed tags.

    Tags count nothing and no entity is longer parsed than written, so a text whose raw length fits
    fits: that one C-level count spares the token walk for nearly every text (it was a tenth of the
    bot's CPU per move in bench/bot.py)."""
    if units(text) <= limit or visible_units(text) <= limit:
        return text
    budget = limit - units(ELLIPSIS)
    out: list[str] = []
    open_tags: list[str] = []
    used = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if len(token) > 1 and token.startswith("<") and token.endswith(">"):
            tag = _TAG_NAME.match(token)
            if tag is None:
                continue
            if token.startswith("</"):
                if tag.group(1) in open_tags:
                    while open_tags and open_tags.pop() != tag.group(1):
                        pass
                    out.append(token)
            elif not token.endswith("/>"):
                open_tags.append(tag.group(1))
                out.append(token)
            continue
        width = _width(token)
        if used + width > budget:
            break
        out.append(token)
        used += width
    return "".join(out).rstrip() + ELLIPSIS + "".join(f"</{tag}>" for tag in reversed(open_tags))


def clip_plain(text: str, limit: int = ANSWER_LIMIT) -> str:
    """A plain text (no HTML) cut to ``limit`` UTF-16 units, with "…" when cut."""
    if units(text) <= limit:
        return text
    out = []
    used = 0
    for ch in text:
        if used + units(ch) > limit - 1:
            break
        out.append(ch)
        used += units(ch)
    return "".join(out) + ELLIPSIS
