"""The shipped fonts (assets/fonts), loaded once per size, and which characters each one covers.

Only files under ``assets/fonts`` are loaded, never the system's fonts, so a picture looks the
same on every machine. Pillow does no font fallback, so ``text.py`` splits a string into runs
by coverage; the coverage comes from the font's own ``cmap`` table, read here with a small
parser (formats 4 and 12 are all that DejaVu and Noto use) to avoid a fontTools dependency.
"""

from __future__ import annotations

import struct
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

from bot.resources import asset

FONT_DIR = asset("fonts")
REGULAR = FONT_DIR / "DejaVuSans.ttf"
BOLD = FONT_DIR / "DejaVuSans-Bold.ttf"
EMOJI = FONT_DIR / "NotoColorEmoji.ttf"
EMOJI_STRIKE = 109  # the only bitmap size Noto Color Emoji has


@lru_cache(maxsize=128)
def font(size: int, bold: bool = False, basic: bool = False) -> ImageFont.FreeTypeFont:
    """DejaVu Sans (or Bold) at ``size`` pixels; ``basic`` = the fast layout without shaping/bidi."""
    engine = ImageFont.Layout.BASIC if basic else ImageFont.Layout.RAQM
    return ImageFont.truetype(str(BOLD if bold else REGULAR), size, layout_engine=engine)


@lru_cache(maxsize=1)
def emoji_font() -> ImageFont.FreeTypeFont | None:
    """Noto Color Emoji at its one strike size, or None when the file is not shipped."""
    if not EMOJI.exists():
        return None
    return ImageFont.truetype(str(EMOJI), EMOJI_STRIKE)


@lru_cache(maxsize=4)
def coverage(path: Path) -> frozenset[int]:
    """The code points ``path`` has glyphs for (empty when the file is missing)."""
    if not path.exists():
        return frozenset()
    return frozenset(read_cmap(path.read_bytes()))


def text_coverage() -> frozenset[int]:
    return coverage(REGULAR)


def emoji_coverage() -> frozenset[int]:
    return coverage(EMOJI)


def read_cmap(data: bytes) -> set[int]:
    """Code points mapped by the best Unicode subtable of a TrueType ``cmap`` (formats 4 and 12)."""
    num_tables = struct.unpack_from(">H", data, 4)[0]
    cmap_offset = None
    for i in range(num_tables):
        tag, _, offset, _ = struct.unpack_from(">4sLLL", data, 12 + 16 * i)
        if tag == b"cmap":
            cmap_offset = offset
    if cmap_offset is None:
        return set()
    count = struct.unpack_from(">H", data, cmap_offset + 2)[0]
    best: tuple[int, int] | None = None  # (format, absolute offset)
    for i in range(count):
        platform, encoding, sub = struct.unpack_from(">HHL", data, cmap_offset + 4 + 8 * i)
        if (platform, encoding) not in {(3, 1), (3, 10), (0, 3), (0, 4), (0, 6)}:
            continue
        fmt = struct.unpack_from(">H", data, cmap_offset + sub)[0]
        if fmt in (4, 12) and (best is None or fmt > best[0]):
            best = (fmt, cmap_offset + sub)
    if best is None:
        return set()
    fmt, at = best
    return _format12(data, at) if fmt == 12 else _format4(data, at)


def _format4(data: bytes, at: int) -> set[int]:
    segs = struct.unpack_from(">H", data, at + 6)[0] // 2
    ends = struct.unpack_from(f">{segs}H", data, at + 14)
    starts = struct.unpack_from(f">{segs}H", data, at + 16 + 2 * segs)
    deltas = struct.unpack_from(f">{segs}h", data, at + 16 + 4 * segs)
    range_at = at + 16 + 6 * segs
    offsets = struct.unpack_from(f">{segs}H", data, range_at)
    out: set[int] = set()
    for i in range(segs):
        for cp in range(starts[i], ends[i] + 1):
            if cp == 0xFFFF:
                continue
            if offsets[i] == 0:
                glyph = (cp + deltas[i]) & 0xFFFF
            else:
                where = range_at + 2 * i + offsets[i] + 2 * (cp - starts[i])
                glyph = struct.unpack_from(">H", data, where)[0]
                glyph = (glyph + deltas[i]) & 0xFFFF if glyph else 0
            if glyph:
                out.add(cp)
    return out


def _format12(data: bytes, at: int) -> set[int]:
    groups = struct.unpack_from(">L", data, at + 12)[0]
    out: set[int] = set()
    for i in range(groups):
        start, end, glyph = struct.unpack_from(">LLL", data, at + 16 + 12 * i)
        out.update(range(start, end + 1) if glyph else range(start + 1, end + 1))
    return out
