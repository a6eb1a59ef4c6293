"""JSON on the bot's hot path, through orjson.

Every move parses and writes JSON several times: the getUpdates answer, each Bot API call's body and
answer, the table's stored state, the outbox's payloads. With the standard library's ``json`` that was
about a tenth of the bot's CPU per move (bench/bot.py --split --sample); orjson does the same work in a
fraction of the time (bench/bot.py prints the CPU per move).

``dumps`` writes what ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` writes for the
values the bot stores (the same compact text, so a stored payload compares equal to a fresh dump of it);
a value orjson refuses (an integer beyond 64 bits) falls back to the standard library, so nothing that
``json`` could write fails here.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS  # {1: ...} -> {"1": ...}, as json.dumps writes it

loads = orjson.loads  # str or bytes -> Python values; invalid JSON raises ValueError (orjson.JSONDecodeError)


def dumps_bytes(value: Any) -> bytes:
    """Compact JSON as UTF-8 bytes (a request body)."""
    try:
        return orjson.dumps(value, option=_OPTIONS)
    except TypeError:  # an int beyond 64 bits: the standard library writes it
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def dumps(value: Any) -> str:
    """Compact JSON text, non-ASCII characters as they are."""
    try:
        return orjson.dumps(value, option=_OPTIONS).decode()
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
