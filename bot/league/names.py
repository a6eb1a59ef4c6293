"""Player names as the league shows them: stripped of what could disguise or reorder the text around them.

A name is user input. Bidi overrides (U+202E) would flip the rest of a line ("rating 3.1" becomes
"1.3 gnitar"), zero-width and control characters hide impersonation, and thousands of characters
would push everything else out. Emoji joiners and variation selectors are kept: emoji must survive.
HTML escaping is a separate, later step (``bot.ui.words.name``) for text messages.
"""

from __future__ import annotations

import unicodedata

KEEP = {0x200D, 0xFE0E, 0xFE0F}  # ZWJ and variation selectors: parts of emoji
MAX_LEN = 64


def short(name: str, limit: int) -> str:
    """A cleaned name of at most ``limit`` characters: a longer one ends in "…" (never a silent cut)."""
    return name if len(name) <= limit else name[:limit - 1].rstrip() + "…"


def clean(name: str) -> str:
    out = []
    for ch in name or "":
        cp = ord(ch)
        category = unicodedata.category(ch)
        if cp in KEEP or 0xE0020 <= cp <= 0xE007F:  # emoji tag sequences (subdivision flags)
            out.append(ch)
        elif category in ("Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"):
            out.append(" " if category in ("Cc", "Zl", "Zp") else "")
        else:
            out.append(ch)
    text = " ".join("".join(out).split())
    return (text[:MAX_LEN - 1] + "…" if len(text) > MAX_LEN else text) or "?"
