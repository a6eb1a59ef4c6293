"""The paper look of the score pictures (the generic sheet, and a game's own score picture): colours,
the heights of its rows, and a name set on one or two lines. Dark ink on cream reads well in both
Telegram themes."""

from __future__ import annotations

from bot.render.text import ELLIPSIS, fit, text_width

PAPER = (251, 248, 238)
HEAD = (228, 236, 230)
LINE = (150, 160, 155)
STRONG = (60, 70, 65)
INK = (25, 30, 28)
GREY = (110, 115, 112)
GREEN = (20, 125, 60)
RED = (195, 35, 40)
CURRENT = (255, 228, 130)
SUMMARY = (236, 240, 246)
WIN = (255, 214, 90)
PAD = 12
TITLE_H = 46
NAME_H = 44
SUB_H = 22
ROW_H = 26
QROW_H = 44
TOTAL_H = 38


def wrap2(name: str, size: int, width: int) -> list[str]:
    """A name on one line if it fits, else on two (split at a space when possible, the rest ellipsized)."""
    if text_width(name, size, True) <= width:
        return [name]
    small = size - 2
    words_ = name.split(" ")
    first, rest = "", ""
    for i in range(len(words_), 0, -1):
        candidate = " ".join(words_[:i])
        if text_width(candidate, small, True) <= width:
            first = candidate
            rest = " ".join(words_[i:])
            break
    if not first or not rest:
        first = fit(name, small, width, True).rstrip(ELLIPSIS)
        rest = name[len(first):]
    return [first, fit(rest.strip(), small, width, True)]
