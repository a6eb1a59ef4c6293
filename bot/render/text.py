"""Measuring, fitting and drawing one line of text with the shipped fonts.

Pillow has no font fallback, so a string is split into runs: text runs use DejaVu Sans, emoji
runs use Noto Color Emoji (a bitmap font with one 109 px strike, rendered once per run and
scaled). Fitting shortens a string at grapheme boundaries, by measured width, adding "…",
so a long, Cyrillic or emoji name never leaves its cell. Every drawing function returns the
box it drew into, so layouts can report them and tests can check them.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Any, NamedTuple

from PIL import Image, ImageColor, ImageDraw, ImageFont

from bot.render import fonts

Box = tuple[int, int, int, int]
ELLIPSIS = "…"

_JOINERS = {0x200D, 0xFE0F, 0xFE0E, 0x20E3}


def _is_modifier(cp: int) -> bool:
    """Code points that attach to the previous character (never start a grapheme)."""
    return (
        cp in _JOINERS
        or 0x1F3FB <= cp <= 0x1F3FF  # skin tones
        or 0xE0020 <= cp <= 0xE007F  # tag sequences (subdivision flags)
        or unicodedata.combining(chr(cp)) != 0
    )


def graphemes(text: str) -> list[str]:
    """Approximate grapheme clusters: combining marks, ZWJ sequences, skin tones, flag pairs."""
    out: list[str] = []
    join_next = False
    for ch in text:
        cp = ord(ch)
        regional = 0x1F1E6 <= cp <= 0x1F1FF
        if out and (join_next or _is_modifier(cp)):
            out[-1] += ch
        elif out and regional and len(out[-1]) == 1 and 0x1F1E6 <= ord(out[-1]) <= 0x1F1FF:
            out[-1] += ch
        else:
            out.append(ch)
        join_next = cp == 0x200D
    return out


def _wants_emoji(cluster: str) -> bool:
    """True if the cluster should come from the colour emoji font."""
    emoji = fonts.emoji_coverage()
    if not emoji:
        return False
    cp = ord(cluster[0])
    if cp not in emoji:
        return False
    if len(cluster) > 1 and any(ord(c) in _JOINERS or 0x1F3FB <= ord(c) <= 0x1F3FF for c in cluster[1:]):
        return True
    return cp >= 0x1F000 or cp not in fonts.text_coverage()


@lru_cache(maxsize=4096)
def runs(text: str) -> tuple[tuple[str, bool], ...]:
    """``text`` as (run, is_emoji) pieces."""
    out: list[list] = []
    for cluster in graphemes(text):
        kind = _wants_emoji(cluster)
        if out and out[-1][1] == kind:
            out[-1][0] += cluster
        else:
            out.append([cluster, kind])
    return tuple((t, k) for t, k in out)


def _simple(text: str) -> bool:
    """Latin/Cyrillic/Greek and symbols: the fast basic layout is enough (no shaping, no bidi)."""
    return all(ord(c) < 0x0590 or 0x2000 <= ord(c) < 0x2E00 for c in text)


def _font_for(text: str, size: int, bold: bool) -> ImageFont.FreeTypeFont:
    return fonts.font(size, bold, _simple(text))


@lru_cache(maxsize=1024)
def _emoji_strip(run: str, size: int) -> Image.Image:
    """An emoji run drawn in colour and scaled so one emoji is about ``size`` px wide."""
    efont = fonts.emoji_font()
    assert efont is not None
    width = int(efont.getlength(run)) + 2
    big = Image.new("RGBA", (width, 128), (0, 0, 0, 0))
    ImageDraw.Draw(big).text((0, 0), run, font=efont, embedded_color=True)
    scale = size * 1.1 / 136
    return big.resize((max(1, round(width * scale)), max(1, round(128 * scale))), Image.Resampling.LANCZOS)


@lru_cache(maxsize=4096)
def _text_mask(run: str, size: int, bold: bool) -> tuple[Image.Image | None, int, int, float]:
    """The antialiased coverage mask of a text run, its offset from the (left, middle) anchor, its advance.

    Rendering glyphs is the costly part of a picture; the same names and numbers recur in
    every picture of a table, so their masks are kept.
    """
    f = _font_for(run, size, bold)
    left, top, right, bottom = (int(v) for v in f.getbbox(run, anchor="lm"))  # whole pixels for a TrueType font
    advance = f.getlength(run)
    if right <= left or bottom <= top:
        return None, 0, 0, advance
    mask = Image.new("L", (right - left, bottom - top), 0)
    ImageDraw.Draw(mask).text((-left, -top), run, font=f, fill=255, anchor="lm")
    return mask, left, top, advance


@lru_cache(maxsize=8192)
def text_width(text: str, size: int, bold: bool = False) -> int:
    """Advance width of ``text`` in pixels, emoji included."""
    total = 0.0
    for run, is_emoji in runs(text):
        if is_emoji:
            total += _emoji_strip(run, size).width
        else:
            total += _font_for(run, size, bold).getlength(run)
    return int(round(total))


@lru_cache(maxsize=8192)
def fit(text: str, size: int, max_width: int, bold: bool = False) -> str:
    """``text`` itself if it fits ``max_width`` px, else its longest prefix that fits with "…"."""
    if text_width(text, size, bold) <= max_width:
        return text
    clusters = graphemes(text)
    lo, hi = 0, len(clusters)  # lo fits (the bare ellipsis), hi does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        candidate = "".join(clusters[:mid]).rstrip() + ELLIPSIS
        if text_width(candidate, size, bold) <= max_width:
            lo = mid
        else:
            hi = mid
    result = "".join(clusters[:lo]).rstrip() + ELLIPSIS
    return result if text_width(result, size, bold) <= max_width else ""


def fit_size(text: str, size: int, max_width: int, bold: bool = False, min_size: int | None = None) -> tuple[str, int]:
    """Shrink the font down to ``min_size`` before ellipsizing; returns (text, size)."""
    low = min_size or size
    s = size
    while s > low and text_width(text, s, bold) > max_width:
        s -= 1
    return fit(text, s, max_width, bold), s


class _Line(NamedTuple):
    """A line ready to paste: its advance width, half its line height, and its pieces in order, each
    (pen offset from the line's left edge, image, dx, dy, is_emoji); a text piece's image is its mask."""

    width: int
    half: int
    pieces: tuple[tuple[float, Image.Image, int, int, bool], ...]


@lru_cache(maxsize=8192)
def _line(text: str, size: int, bold: bool) -> _Line:
    """Everything ``draw_text`` needs that does not depend on where the line goes, worked out once.

    Offsets are sums of FreeType advances (multiples of 1/64) and whole emoji widths, so ``x0 + offset``
    is exactly the pen position that adding the advances one by one to ``x0`` gave.
    """
    pieces: list[tuple[float, Image.Image, int, int, bool]] = []
    pen = 0.0
    for run, is_emoji in runs(text):
        if is_emoji:
            strip = _emoji_strip(run, size)
            pieces.append((pen, strip, 0, 0, True))
            pen += strip.width
        else:
            mask, dx, dy, advance = _text_mask(run, size, bold)
            if mask is not None:
                pieces.append((pen, mask, dx, dy, False))
            pen += advance
    return _Line(text_width(text, size, bold), line_height(size) // 2, tuple(pieces))


@lru_cache(maxsize=4096)
def _inked(text: str, size: int, bold: bool, ink: tuple[int, ...],
           bg: tuple[int, ...]) -> tuple[Any, int, int, int, int] | None:
    """A one-run line in ``ink`` over the flat colour ``bg``, as pixels (the image core, dx, dy, width,
    height), or None for a line of emoji or of several runs. Pasting it costs a copy, where pasting ink
    through the mask blends every pixel; the pixels are the same where the ground is ``bg``."""
    pieces = _line(text, size, bold).pieces
    if len(pieces) != 1 or pieces[0][4]:
        return None
    _, mask, dx, dy, _ = pieces[0]
    tile = Image.new("RGB", mask.size, bg)
    tile.paste(ink, (0, 0), mask)
    return tile.im, dx, dy, mask.width, mask.height


def line_height(size: int) -> int:
    ascent, descent = fonts.font(size).getmetrics()
    return ascent + descent


Paste = tuple[object, Box, object]  # (ink or image core, box, mask core or None) for the image core's paste


def _placed(x: float, y: float, text: str, size: int, ink: tuple[int, ...], bold: bool, align: str,
            bg: tuple[int, ...] | None) -> tuple[tuple[Paste, ...], Box]:
    """The pastes that draw one line with its vertical middle at ``y`` (``align`` says where ``x`` is:
    left/center/right), and the box the text occupies (its advance width times the font's line height).

    ``bg``: the flat colour under the whole line, when the caller knows it (a grid's cells): a one-run
    line is then an inked copy (``_inked``) instead of ink through its mask.
    """
    line = _line(text, size, bold)
    width = line.width
    if align == "center":
        x -= width / 2
    elif align == "right":
        x -= width
    x0 = int(round(x))
    box = (x0, int(y) - line.half, x0 + width, int(y) + line.half)
    inked = _inked(text, size, bold, ink, bg) if bg is not None else None
    if inked is not None:
        tile, dx, dy, w, h = inked
        left, top = x0 + dx, int(round(y)) + dy
        return ((tile, (left, top, left + w, top + h), None),), box
    pastes: list[Paste] = []
    for offset, image, dx, dy, is_emoji in line.pieces:
        if is_emoji:
            left, top = int(round(x0 + offset)), int(round(y - image.height / 2))
            pastes.append((image.im, (left, top, left + image.width, top + image.height), image.im))
        else:
            left, top = int(round(x0 + offset)) + dx, int(round(y)) + dy
            pastes.append((ink, (left, top, left + image.width, top + image.height), image.im))
    return tuple(pastes), box


@lru_cache(maxsize=16384)
def _fitted_pastes(cell: Box, text: str, size: int, ink: tuple[int, ...], bold: bool, align: str, pad: int,
                   min_size: int | None, bg: tuple[int, ...] | None) -> tuple[tuple[Paste, ...], Box]:
    """``draw_fitted``'s work for one call, kept: a table's pictures repeat the same texts in the same
    cells (a grid ~370 of them), so fitting, measuring and placing each is done once."""
    x0, y0, x1, y1 = cell
    shown, s = fit_size(text, size, max(1, x1 - x0 - 2 * pad), bold, min_size)
    if align == "center":
        x = (x0 + x1) / 2
    elif align == "right":
        x = x1 - pad
    else:
        x = x0 + pad
    return _placed(x, (y0 + y1) / 2, shown, s, ink, bold, align, bg)


def draw_fitted(
    img: Image.Image,
    cell: Box,
    text: str,
    size: int,
    fill: tuple[int, ...] | str,
    *,
    bold: bool = False,
    align: str = "center",
    pad: int = 4,
    min_size: int | None = None,
    bg: tuple[int, int, int] | None = None,
) -> Box:
    """Draw ``text`` vertically centred in ``cell``, shrunk/ellipsized to fit inside its padding
    (``bg``: the cell's flat colour, see ``_placed``); returns the box the text occupies."""
    ink = ImageColor.getcolor(fill, img.mode) if isinstance(fill, str) else fill
    pastes, box = _fitted_pastes(cell, text, size, ink, bold, align, pad, min_size,
                                 bg if img.mode == "RGB" else None)
    # Straight to the image core (``img`` is a canvas from Image.new, never a lazily read file):
    # Image.paste's own checks cost more than these small pastes (bench/render.py).
    core = img.im
    for source, where, mask in pastes:
        if mask is None:
            core.paste(source, where)
        else:
            core.paste(source, where, mask)
    return box


@lru_cache(maxsize=16384)
def fitted_tile(cell: Box, text: str, size: int, ink: tuple[int, ...], bold: bool, align: str, pad: int,
                min_size: int | None, bg: tuple[int, int, int]) -> tuple[Image.Image, tuple[int, int], Box]:
    """What ``draw_fitted`` draws on the flat colour ``bg``, as one RGB tile: the tile (``bg`` under the
    line, covering the text's box and every paste), where its top-left goes, and the text's box.

    Pasting it gives the pixels ``draw_fitted`` gives where the ground is ``bg``; a picture drawn on a
    palette (the grid) maps each tile onto the palette once instead of mapping the whole picture."""
    pastes, box = _fitted_pastes(cell, text, size, ink, bold, align, pad, min_size, bg)
    left, top = min([box[0], *(w[0] for _, w, _ in pastes)]), min([box[1], *(w[1] for _, w, _ in pastes)])
    right, bottom = max([box[2], *(w[2] for _, w, _ in pastes)]), max([box[3], *(w[3] for _, w, _ in pastes)])
    tile = Image.new("RGB", (max(1, right - left), max(1, bottom - top)), bg)
    for source, (x0, y0, x1, y1), mask in pastes:
        where = (x0 - left, y0 - top, x1 - left, y1 - top)
        if mask is None:
            tile.im.paste(source, where)
        else:
            tile.im.paste(source, where, mask)
    return tile, (left, top), box
