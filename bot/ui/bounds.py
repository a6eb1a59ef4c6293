"""Bounds on what a press or a command may carry: ids fit the stores' integer column (BIGINT, SQLite's
INTEGER), strings their use. Checked where the data is parsed, so an out-of-range value is refused as an
invalid button (answered) instead of failing in the store (OverflowError, DataError) with the press unanswered."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

INT64_MAX = 2 ** 63 - 1
INT64_MIN = -(2 ** 63)

Id = Annotated[int, Field(ge=0, le=INT64_MAX)]  # a table id, a version, a seat, an index, a bit mask
Signed = Annotated[int, Field(ge=INT64_MIN, le=INT64_MAX)]
Word = Annotated[str, Field(max_length=16)]  # an op, a verb, a language, a scope, a card
Key = Annotated[str, Field(max_length=32)]  # an option name, an AI level, a clock setting


def parse_id(text: str) -> int | None:
    """A non-negative id typed in a command (``#12``, ``3``): ASCII digits only, within the stores' range."""
    text = text.strip()
    if not text or len(text) > 19 or not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= INT64_MAX else None
