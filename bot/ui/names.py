"""Names as people typed them, made harmless to show: no direction overrides, no invisible characters.

A name with U+202E (right-to-left override) reverses the text after it in a group message; zero-width
characters make two names look alike or a name look empty. Format and control characters are removed
wherever a name is shown (texts, captions, pictures); an emoji's zero-width joiner stays.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

ZWJ = "\u200d"
_EMOJI_PARTS = ("So", "Sk", "Mn", "Me")


def _joins_emoji(before: str, after: str) -> bool:
    return bool(before and after) and unicodedata.category(before) in _EMOJI_PARTS \
        and unicodedata.category(after) in _EMOJI_PARTS


@lru_cache(maxsize=8192)  # the same few names are drawn into every text of every move
def plain_name(raw: str | None) -> str:
    """``raw`` without direction controls, zero-width and other invisible characters; "?" if nothing is left."""
    text = raw or ""
    kept: list[str] = []
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if ch == ZWJ and _joins_emoji(kept[-1] if kept else "", text[i + 1] if i + 1 < len(text) else ""):
            kept.append(ch)
        elif category in ("Cf", "Cc", "Zl", "Zp", "Co", "Cs", "Cn"):
            continue
        else:
            kept.append(ch)
    cleaned = " ".join("".join(kept).split())
    return cleaned or "?"
