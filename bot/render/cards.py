"""Card faces and the card back, drawn by our own code and cached per (card, height).

Faces are drawn at 3x and scaled down (Pillow's shapes are not antialiased), then kept in
an ``lru_cache``: the returned image is shared, so callers paste it and never modify it.
Design for small sizes on a phone: a big bold rank in the corner, a big suit symbol in the
middle, red hearts/diamonds and black spades/clubs on white, a dark border that shows on
both dark and light backgrounds.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from bot.render import fonts
from engine.cards import JOKER, JOKER11, JOKER15, JOKER20, RANK_NAMES, SPECIAL_NAMES, SUIT_SYMBOLS, SUITS, parse_card

SS = 3  # supersampling factor
RED = (200, 30, 40)
BLACK = (20, 20, 24)
BORDER = (30, 30, 36)
WHITE = (255, 255, 255)
JOKER_COLORS = {JOKER: (110, 40, 150), JOKER11: (20, 100, 180), JOKER15: (20, 130, 70), JOKER20: (200, 100, 0)}
BROOM_COLOR = (120, 70, 20)
ASPECT = 0.7


def card_width(height: int) -> int:
    return round(height * ASPECT)


def _canvas(height: int) -> tuple[Image.Image, ImageDraw.ImageDraw, int, int]:
    w, h = card_width(height) * SS, height * SS
    img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    radius = max(2, round(h * 0.07))
    draw.rounded_rectangle((0, 0, w - 1, h - 1), radius=radius, fill=BORDER)
    edge = max(SS, round(h * 0.012))
    draw.rounded_rectangle((edge, edge, w - 1 - edge, h - 1 - edge), radius=max(1, radius - edge), fill=WHITE)
    return img, draw, w, h


def _finish(img: Image.Image, height: int) -> Image.Image:
    return img.resize((card_width(height), height), Image.Resampling.LANCZOS)


def _corner(draw: ImageDraw.ImageDraw, w: int, h: int, top: str, sub: str, color: tuple[int, int, int]) -> None:
    """The index (rank over a small suit) in the top-left corner, and the same in the bottom-right."""
    size = round(h * (0.2 if len(top) == 1 else 0.16 if len(top) == 2 else 0.13))
    small = round(h * 0.14)
    big = fonts.font(size, True)
    margin = w * 0.07
    cx = max(w * 0.15, margin + big.getlength(top) / 2)
    y = round(h * 0.035)
    draw.text((cx, y), top, font=big, fill=color, anchor="ma")
    if sub:
        draw.text((cx, y + size * 1.05), sub, font=fonts.font(small), fill=color, anchor="ma")
    draw.text((w - cx, h - y), top, font=big, fill=color, anchor="md")
    if sub:
        draw.text((w - cx, h - y - size * 1.05), sub, font=fonts.font(small), fill=color, anchor="md")


def _suit_face(draw: ImageDraw.ImageDraw, w: int, h: int, rank: int, suit: str) -> None:
    color = RED if suit in "HD" else BLACK
    symbol = SUIT_SYMBOLS[suit]
    _corner(draw, w, h, RANK_NAMES[rank], symbol, color)
    if rank >= 11 and rank <= 13:  # J Q K: a framed letter with the suit, no artwork
        fx0, fy0, fx1, fy1 = round(w * 0.3), round(h * 0.22), round(w * 0.7), round(h * 0.78)
        draw.rounded_rectangle((fx0, fy0, fx1, fy1), radius=round(w * 0.05), outline=color, width=max(SS, h // 90))
        draw.text((w / 2, h * 0.42), RANK_NAMES[rank], font=fonts.font(round(h * 0.26), True), fill=color, anchor="mm")
        draw.text((w / 2, h * 0.64), symbol, font=fonts.font(round(h * 0.2)), fill=color, anchor="mm")
    else:
        big = round(h * (0.56 if rank == 14 else 0.44))
        draw.text((w / 2, h / 2), symbol, font=fonts.font(big), fill=color, anchor="mm")


def _joker_face(draw: ImageDraw.ImageDraw, w: int, h: int) -> None:
    color = JOKER_COLORS[JOKER]
    _corner(draw, w, h, "JK", "", color)
    draw.text((w / 2, h * 0.45), "★", font=fonts.font(round(h * 0.42)), fill=color, anchor="mm")
    draw.text((w / 2, h * 0.68), "JOKER", font=fonts.font(round(h * 0.085), True), fill=color, anchor="mm")


def _numbered_joker_face(draw: ImageDraw.ImageDraw, w: int, h: int, code: int) -> None:
    color = JOKER_COLORS[code]
    number = SPECIAL_NAMES[code][1:]
    _corner(draw, w, h, number, "", color)
    r = round(w * 0.3)
    draw.ellipse((w / 2 - r, h / 2 - r, w / 2 + r, h / 2 + r), outline=color, width=max(SS, h // 60))
    draw.text((w / 2, h / 2), number, font=fonts.font(round(h * 0.22), True), fill=color, anchor="mm")


def _broom_face(draw: ImageDraw.ImageDraw, w: int, h: int) -> None:
    color = BROOM_COLOR
    _corner(draw, w, h, "BR", "", color)
    stick = max(SS, round(w * 0.05))
    draw.line((w * 0.62, h * 0.2, w * 0.45, h * 0.58), fill=color, width=stick)
    bristles = [(w * 0.36, h * 0.55), (w * 0.52, h * 0.61), (w * 0.5, h * 0.82), (w * 0.2, h * 0.7)]
    draw.polygon(bristles, fill=(210, 160, 60), outline=color, width=max(1, stick // 2))
    for i in range(1, 5):
        t = i / 5
        x0 = bristles[0][0] + (bristles[1][0] - bristles[0][0]) * t
        y0 = bristles[0][1] + (bristles[1][1] - bristles[0][1]) * t
        x1 = bristles[3][0] + (bristles[2][0] - bristles[3][0]) * t
        y1 = bristles[3][1] + (bristles[2][1] - bristles[3][1]) * t
        draw.line((x0, y0, x1, y1), fill=color, width=max(1, stick // 3))


@lru_cache(maxsize=512)
def card_image(card: str, height: int) -> Image.Image:
    """The face of ``card`` (text notation: "AS", "10H", "JK", "J15", "BR") ``height`` px tall, RGBA.

    Cached: the same object is returned for the same arguments; do not modify it.
    """
    code = parse_card(card)
    img, draw, w, h = _canvas(height)
    if code == JOKER:
        _joker_face(draw, w, h)
    elif code in JOKER_COLORS:
        _numbered_joker_face(draw, w, h, code)
    elif code >= 64:
        _broom_face(draw, w, h)
    else:
        _suit_face(draw, w, h, code & 15, SUITS[code >> 4])
    return _finish(img, height)


def paste_card(img: Image.Image, card: str, height: int, xy: tuple[int, int]) -> None:
    """Paste the face of ``card`` onto the RGB canvas ``img`` at ``xy``: the pixels of pasting it through its
    own alpha, but only the rounded corners are blended and the opaque rest is copied (~4x cheaper a card)."""
    x, y = xy
    core = img.im  # a canvas from Image.new
    for dx, dy, w, h, pixels, mask in _face_parts(card, height):
        box = (x + dx, y + dy, x + dx + w, y + dy + h)
        if mask is None:
            core.paste(pixels, box)
        else:
            core.paste(pixels, box, mask)


@lru_cache(maxsize=512)
def _face_parts(card: str, height: int) -> tuple[tuple[int, int, int, int, Any, Any], ...]:
    """The face cut into opaque bands to copy and four corner squares to blend, each (dx, dy, width,
    height, RGB pixels, alpha or None) as image cores; the squares are as small as the translucent pixels allow."""
    face = card_image(card, height)
    w, h = face.size
    translucent = face.getchannel("A").point([255] * 255 + [0])
    r = 0
    while r * 2 < min(w, h):
        rest = translucent.copy()
        for box in ((0, 0, r, r), (w - r, 0, w, r), (0, h - r, r, h), (w - r, h - r, w, h)):
            rest.paste(0, box)
        if rest.getbbox() is None:
            break
        r += 1
    rgb, alpha = face.convert("RGB"), face.getchannel("A")
    if r * 2 >= min(w, h):  # translucent inside: blend it all
        return ((0, 0, w, h, rgb.im, alpha.im),)
    parts = []
    for x0, y0, x1, y1, blend in ((r, 0, w - r, h, False), (0, r, r, h - r, False), (w - r, r, w, h - r, False),
                                  (0, 0, r, r, True), (w - r, 0, w, r, True), (0, h - r, r, h, True),
                                  (w - r, h - r, w, h, True)):
        if x1 > x0 and y1 > y0:
            box = (x0, y0, x1, y1)
            parts.append((x0, y0, x1 - x0, y1 - y0, rgb.crop(box).im, alpha.crop(box).im if blend else None))
    return tuple(parts)


@lru_cache(maxsize=32)
def card_back(height: int) -> Image.Image:
    """The back of a card: a navy lattice inside a white margin. Cached like ``card_image``."""
    img, draw, w, h = _canvas(height)
    m = round(w * 0.08)
    draw.rounded_rectangle((m, m, w - m, h - m), radius=round(h * 0.04), fill=(25, 45, 110))
    step = max(4, round(w * 0.12))
    line = max(1, SS)
    for k in range(-h, w + h, step):
        draw.line((k, m, k + (h - 2 * m), h - m), fill=(70, 100, 180), width=line)
        draw.line((k, h - m, k + (h - 2 * m), m), fill=(70, 100, 180), width=line)
    # re-draw the white margin over the lattice ends
    draw.rounded_rectangle((m, m, w - m, h - m), radius=round(h * 0.04), outline=WHITE, width=max(SS, m // 3))
    edge = max(SS, round(h * 0.012))
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).rounded_rectangle((m, m, w - m, h - m), radius=round(h * 0.04), fill=255)
    white = Image.new("RGBA", (w, h), WHITE + (255,))
    border = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    bdraw = ImageDraw.Draw(border)
    radius = max(2, round(h * 0.07))
    bdraw.rounded_rectangle((0, 0, w - 1, h - 1), radius=radius, fill=BORDER)
    bdraw.rounded_rectangle((edge, edge, w - 1 - edge, h - 1 - edge), radius=max(1, radius - edge), fill=WHITE)
    inner = Image.composite(img, white, mask)
    border.paste(inner, (0, 0), Image.composite(mask, Image.new("L", (w, h), 0), mask))
    return _finish(border, height)


ALL_FACES: list[str] = [r + s for s in SUITS for r in RANK_NAMES.values()] + list(SPECIAL_NAMES.values())
