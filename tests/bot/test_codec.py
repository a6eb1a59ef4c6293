"""bot/codec.py writes what the standard library's compact ``json.dumps`` wrote.

It matters beyond taste: the outbox deletes a delivered row only if its stored payload equals a fresh dump
of what was sent (bot/store/sqlite.py ``outbox_done``), and rows queued by a bot before the switch to orjson
are delivered by the bot after it. Floats may be spelled differently (``1e-7`` for ``1e-07``) but read back
equal; no payload the outbox compares holds one.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bot import codec


def _stdlib(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(7 if depth < 4 else 4)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.randrange(-2**63, 2**63)
    if kind == 2:  # every character class: controls, quotes, backslash, Cyrillic, emoji, separators U+2028/9
        alphabet = [chr(c) for c in range(0x80)] + list("ёЁжЖ♠♥♦♣🃏\u2028\u2029\u00a0\ufeff")
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
    if kind == 3:
        return rng.choice(["", "<b>Карнавал</b>", "a\nb", 'q"\\'])
    if kind == 4:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    if kind == 5:
        return {str(_random_value(rng, 3)): _random_value(rng, depth + 1) for _ in range(rng.randrange(5))}
    return {rng.randrange(100): _random_value(rng, depth + 1) for _ in range(rng.randrange(4))}  # int keys


@pytest.mark.parametrize("seed", range(20))
def test_dumps_writes_the_standard_librarys_compact_text(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        value = _random_value(rng)
        text = codec.dumps(value)
        assert text == _stdlib(value)
        assert codec.dumps_bytes(value) == text.encode()
        assert codec.loads(text) == json.loads(text)
        assert codec.loads(text.encode()) == json.loads(text)


def test_floats_read_back_equal() -> None:
    rng = random.Random(7)
    for value in [0.1, 1e22, 1e-7, -0.0, 2.5e-300, 1.7976931348623157e308] + [rng.uniform(-1e9, 1e9)
                                                                             for _ in range(500)]:
        assert codec.loads(codec.dumps(value)) == value == json.loads(codec.dumps(value))


def test_what_orjson_refuses_the_standard_library_writes() -> None:
    big = {"seed": 2**100, "neg": -(2**70)}
    assert codec.dumps(big) == _stdlib(big)
    assert codec.dumps_bytes(big) == _stdlib(big).encode()
    lone = "half a pair: \ud83c"  # a lone surrogate: not UTF-8, orjson refuses; json writes it escaped or not
    assert codec.dumps(lone) == _stdlib(lone)


def test_what_neither_writes_raises_typeerror() -> None:
    with pytest.raises(TypeError):
        codec.dumps({1, 2})
    with pytest.raises(ValueError):
        codec.loads("{not json")
