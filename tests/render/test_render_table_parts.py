"""The table picture pastes parts drawn once (``table._felt``, ``table._plate``), cards cut into parts
(``cards.paste_card``) and texts inked on the colour said to be under them: they must be the pixels that
drawing the same shapes straight onto the table, pasting the faces through their alpha and the texts'
ink through their masks gave (every seat position for 2 to 7 seats, every face, every kind of text)."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops, ImageDraw

from bot.render import canvas, table
from bot.render import examples as ex
from bot.render.cards import ALL_FACES, card_image, card_width, paste_card
from bot.render.table import (
    CENTER,
    FELT,
    FELT_DARK,
    GOLD,
    HEADER,
    MARGIN,
    PLATE,
    TOP_PLATES,
    WHITE,
    H,
    W,
)
from bot.render.text import draw_fitted


def straight(slots: list[tuple[int, int, bool]], acting: int, dealer: int) -> Image.Image:
    """Felt, bands and plates drawn in place, shape by shape."""
    img = Image.new("RGB", (W, H), FELT)
    draw = ImageDraw.Draw(img)
    draw.rectangle(HEADER, fill=FELT_DARK)
    draw.rounded_rectangle((MARGIN, CENTER[0], W - MARGIN, CENTER[1]), radius=14, fill=FELT_DARK)
    for seat, slot in enumerate(slots):
        px0, y0, px1, y1 = table.plate_box(slot)
        on = seat == acting
        draw.rounded_rectangle((px0, y0, px1, y1), radius=12, fill=PLATE,
                               outline=GOLD if on else (90, 140, 110), width=4 if on else 2)
        draw.rounded_rectangle((px0 + 8, y0 + 8, px0 + 40, y0 + 36), radius=8, fill=GOLD if on else (60, 110, 80))
        if seat == dealer:
            draw.ellipse((px1 - 38, y0 + 8, px1 - 8, y0 + 36), fill=WHITE)
    return img


@pytest.mark.parametrize("n", range(2, 8))
def test_cached_plates_are_the_shapes_drawn_in_place(n: int) -> None:
    slots = table.seat_slots(n)
    for acting in range(n):
        dealer = (acting + n - 1) % n
        pasted = table._felt().copy()
        for seat, slot in enumerate(slots):
            px0, y0, px1, y1 = table.plate_box(slot)
            pasted.paste(table._plate(px1 - px0, y1 - y0, seat == acting, seat == dealer), (px0, y0))
        assert ImageChops.difference(pasted, straight(slots, acting, dealer)).getbbox() is None, (n, acting)


def test_table_picture_keeps_its_plates() -> None:
    """The whole table: the plates' frames and chips are where the straight drawing puts them."""
    view = ex.table_example(6, carnival=True)
    image = table.layout_table(view, ex.NAMES_6).image
    reference = straight(table.seat_slots(6), view["to_act"], view["dealer"])
    frame = (0, TOP_PLATES[0], W, TOP_PLATES[0] + 6)  # the top edge of the top plates: no text there
    assert ImageChops.difference(image.crop(frame), reference.crop(frame)).getbbox() is None


@pytest.mark.parametrize("height", [64, 96, 116, 120])
def test_pasted_cards_are_the_faces_through_their_alpha(height: int) -> None:
    """``paste_card`` (corners blended, the rest copied) against Image.paste through the face's alpha, on a
    ground of many colours, cards overlapping as in a trick."""
    ground = Image.linear_gradient("L").resize((1200, 200)).convert("RGB")
    ground.paste((255, 205, 60), (0, 0, 1200, 40))
    pasted, through_alpha = ground.copy(), ground.copy()
    step = card_width(height) * 62 // 100
    for i, card in enumerate(ALL_FACES):
        xy = (-20 + i * step % 1240, 10 + (i * 7) % 60)  # some hang over the edges
        paste_card(pasted, card, height, xy)
        face = card_image(card, height)
        through_alpha.paste(face, xy, face)
    assert ImageChops.difference(pasted, through_alpha).getbbox() is None


def _views() -> list[dict[str, object]]:
    """Every phase and mark a table shows: bids, a trick (the best play gold), the last trick and its winner,
    each seat to act and dealing, the game over, no trump."""
    views: list[dict[str, object]] = []
    for n in range(2, 8):
        shown = [ex.table_example(n), ex.table_example(n, joker=False), ex.bid_example(n)]
        shown += [ex.table_example(n, carnival=True), ex.last_trick_example(n)] if n >= 3 else []
        for i, view in enumerate(shown):
            view.update(to_act=i % n, dealer=(i + 1) % n)
            views.append(view)
    views.append({**ex.table_example(4), "over": True, "phase": "over", "trump": None, "trump_card": None})
    return views


@pytest.mark.parametrize("names", [ex.NAMES_6 + ["Gus"], ["Ann", "Борис", "Chen", "Dora", "Екатерина", "F", "G"]])
def test_texts_inked_on_their_ground_are_the_texts_through_their_masks(
        names: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Each text of the table names the flat colour under it (``ground``) and is pasted inked on that colour;
    the same picture with every text blended through its mask instead must not differ by a pixel."""
    views = _views()
    inked = [table.layout_table(view, names, lang).image for view in views for lang in ("en", "ru")]

    def through_mask(*args: object, **kwargs: object) -> object:
        kwargs.pop("bg")
        return draw_fitted(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(canvas, "draw_fitted", through_mask)  # the table's RGB drawing is its canvas replayed
    blended = [table.layout_table(view, names, lang).image for view in views for lang in ("en", "ru")]
    for i, (a, b) in enumerate(zip(inked, blended, strict=True)):
        assert ImageChops.difference(a, b).getbbox() is None, i
