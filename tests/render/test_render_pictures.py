"""The pictures: valid PNGs of sane size, every fact drawn inside its cell, only public cards drawn."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.render import (
    card_back,
    card_image,
    layout_standings,
    layout_table,
    render_standings,
    render_table,
)
from bot.render import examples as ex
from bot.render.cards import ALL_FACES
from bot.render.layout import Layout
from bot.render.standings import places
from bot.render.text import ELLIPSIS, graphemes
from bot.render.words import num
from games.carnival.grid import layout_grid, render_grid

LONG = "Александр Сергеевич Пушкин-Длинноимённый 🎉 and the rest of the very long name"
NAMES = ["Ann", "Борис", "Chen 🎉🔥", LONG, "Daria & <Co>", "X" * 45, "👨‍👩‍👧🇷🇺 Ёж"]


def png_info(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    img = Image.open(io.BytesIO(data))
    img.verify()
    return Image.open(io.BytesIO(data)).size


def has_ink(img: Image.Image, box: tuple[int, int, int, int]) -> bool:
    crop = img.crop(box)
    colors = crop.getcolors(1 << 16)
    return colors is None or len(colors) > 1


def check_boxes(layout: Layout) -> None:
    """Every drawn text has ink and stays inside its cell (and inside the picture)."""
    w, h = layout.image.size
    for d in layout.texts:
        x0, y0, x1, y1 = d.box
        c0, c1, c2, c3 = d.cell
        assert c0 <= x0 and x1 <= c2, f"{d.kind} {d.text!r} box {d.box} leaves its cell {d.cell}"
        assert 0 <= x0 and x1 <= w and 0 <= y0 and y1 <= h, d
        if d.text.strip():
            assert has_ink(layout.image, d.box), f"{d.kind} {d.text!r} drew nothing"


def drawn(layout: Layout, kind: str, seat: int | None = None) -> list[str]:
    return [d.text for d in layout.texts if d.kind == kind and (seat is None or d.seat == seat)]


def shown(full: str, drawn_text: str) -> bool:
    """``drawn_text`` is ``full`` or a prefix of it (whole graphemes) ending in the ellipsis."""
    if drawn_text == full:
        return True
    assert drawn_text.endswith(ELLIPSIS), drawn_text
    stem = drawn_text[: -len(ELLIPSIS)]
    return full.startswith(stem) and len(graphemes(stem)) >= 1


def _pixels(img):
    """Every pixel: Pillow >= 12.1 names it get_flattened_data (getdata is deprecated); the floor, 10.3, has getdata."""
    return img.get_flattened_data() if hasattr(img, "get_flattened_data") else img.getdata()


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
@pytest.mark.parametrize("carnival", [False, True])
def test_table_draws_every_seat_fact(n: int, carnival: bool) -> None:
    view = ex.table_example(n, carnival=carnival)
    names = NAMES[:n]
    layout = layout_table(view, names)
    check_boxes(layout)
    assert 800 <= layout.image.width <= 1000
    for seat in range(n):
        (name,) = drawn(layout, "name", seat)
        assert shown(names[seat], name)
        (line,) = drawn(layout, "bid_tricks", seat)
        assert f"bid {view['bids'][seat]}" in line and f"took {view['tricks'][seat]}" in line
        (score,) = drawn(layout, "score", seat)
        assert num(view["scores"][seat]) in score
        assert drawn(layout, "seat_no", seat) == [str(seat + 1)]
    assert drawn(layout, "dealer", view["dealer"]) == ["D"]
    played = {p["seat"] for p in view["trick"]["plays"]}
    tags = {d.seat for d in layout.texts if d.kind == "play_tag"}
    assert tags == played
    assert any("to play" in t for t in drawn(layout, "to_act"))
    data = render_table(view, names)
    assert png_info(data) == layout.image.size
    assert len(data) < 150_000


def public_cards(view: dict, trick_key: str) -> list[str]:
    cards = [c for p in view[trick_key]["plays"] for c in p["cards"]]
    return cards + ([view["trump_card"]] if view.get("trump_card") else [])


@pytest.mark.parametrize("n", [3, 6])
def test_table_draws_only_public_cards(n: int) -> None:
    view = ex.table_example(n, carnival=n == 6)
    view["hand"] = ["AD", "AD", "7C"]  # nowhere else in the view
    layout = layout_table(view, NAMES[:n])
    assert sorted(layout.cards) == sorted(public_cards(view, "trick"))
    assert "AD" not in layout.cards
    without = dict(view)
    del without["hand"]
    assert layout_table(without, NAMES[:n]).image.tobytes() == layout.image.tobytes()


def test_table_shows_last_trick_with_winner_when_trick_empty() -> None:
    view = ex.last_trick_example(4)
    layout = layout_table(view, NAMES[:4])
    assert sorted(layout.cards) == sorted(public_cards(view, "last_trick"))
    winner = view["last_trick"]["winner"]
    winner_tags = [d.text for d in layout.texts if d.kind == "play_tag" and d.seat == winner]
    # under the winner's own card: "★ won it" (a dangling "★ won by" named nobody)
    assert winner_tags and "★ won it" in winner_tags[0] and "over" in winner_tags[0]
    others = [d.text for d in layout.texts if d.kind == "play_tag" and d.seat != winner]
    assert others and not any("★" in t for t in others)
    lead = view["last_trick"]["plays"][0]["seat"]
    assert "low" in drawn(layout, "play_tag", lead)[0]
    assert any("Last trick" in t for t in drawn(layout, "trick_label"))


def test_table_bidding_shows_pending_bids_and_hook() -> None:
    view = ex.bid_example(5)
    layout = layout_table(view, NAMES[:5])
    assert layout.cards == [view["trump_card"]]
    pending = [s for s in range(5) if view["bids"][s] is None]
    assert all("bid –" in drawn(layout, "bid_tricks", s)[0] for s in pending)
    assert any(f"may not bid {view['forbidden_bid']}" in t for t in drawn(layout, "to_act"))


def test_table_generic_view_with_unknown_and_missing_keys() -> None:
    view = {"game": "oh_hell", "players": 4, "to_act": 2, "phase": "play", "dealer": 0, "trump": None,
            "trick": {"leader": 1, "plays": [{"seat": 1, "cards": ["KS"]}]}, "mystery": {"x": 1}}
    layout = layout_table(view, ["a", "b", "c", "d"])
    check_boxes(layout)
    assert layout.cards == ["KS"]
    assert not drawn(layout, "bid_tricks")


def test_grid_full_six_player_game() -> None:
    sheet = ex.sheet_example(6, 24)
    layout = layout_grid(sheet, NAMES[:6], current_deal=None, lang="ru")
    check_boxes(layout)
    points = [d for d in layout.texts if d.kind == "points"]
    assert len(points) == 24 * 6
    for seat in range(6):
        expected = [num(deal["points"][seat]) for deal in sheet["deals"]]
        assert [d.text for d in points if d.seat == seat] == expected
        assert drawn(layout, "bid", seat) == [str(deal["bids"][seat]) for deal in sheet["deals"]]
        finals = [num(r["final"][seat]) for r in sheet["quarter_results"]]
        assert drawn(layout, "quarter_final", seat) == finals
        assert drawn(layout, "total", seat) == [num(sheet["totals"][seat])]
        lines = drawn(layout, "name", seat)
        if len(lines) == 1:
            assert shown(NAMES[seat], lines[0])
        else:  # wrapped on two lines: the first is a plain prefix, the second the fitted rest
            first, second = lines
            assert NAMES[seat].startswith(first)
            assert shown(NAMES[seat][len(first):].strip(), second)
    # the seed's notes for the penalty and the premium
    assert "−8; штр.−60" in drawn(layout, "quarter_note", 0)
    assert "45; прем.60" in drawn(layout, "quarter_note", 1)
    assert drawn(layout, "hand_size")[0].startswith("6") and drawn(layout, "hand_size")[-1].startswith("12")
    assert len(render_grid(sheet, NAMES[:6])) < 150_000


def test_grid_keeps_full_shape_and_marks_current_deal() -> None:
    sheet = ex.sheet_example(3, 4)
    layout = layout_grid(sheet, NAMES[:3], current_deal=5)
    check_boxes(layout)
    assert len(drawn(layout, "hand_size")) == 4 * 3  # all rows, played or not
    assert len(drawn(layout, "points")) == 4 * 3
    marked = [t for t in drawn(layout, "hand_size") if t.startswith("▶")]
    assert marked == ["▶ 8"]


def test_standings_places_and_ties() -> None:
    assert places([120, 300, 300, -40]) == [3, 1, 1, 4]
    layout = layout_standings(NAMES[:4], [120, 300, 300, -40], "ru")
    check_boxes(layout)
    assert drawn(layout, "place") == ["🏆 1", "🏆 1", "3", "4"]
    assert drawn(layout, "total") == ["300", "300", "120", "−40"]
    png_info(render_standings(NAMES[:4], [1, 2, 3, 4], title="Game 7"))


def test_card_faces_cached_and_coloured() -> None:
    assert card_image("AS", 100) is card_image("AS", 100)
    assert card_back(90) is card_back(90)
    for face in ALL_FACES:
        img = card_image(face, 80)
        assert img.size == (56, 80)

    def reddish(img: Image.Image) -> int:
        return sum(1 for r, g, b, a in _pixels(img) if a > 200 and r > 150 and g < 90 and b < 90)

    assert reddish(card_image("AH", 100)) > 100
    assert reddish(card_image("AS", 100)) == 0
    assert card_image("10D", 100).tobytes() != card_image("10H", 100).tobytes()
    assert len({card_image(c, 60).tobytes() for c in ["JK", "J11", "J15", "J20", "BR"]}) == 5


def test_no_trump_label_is_whole_and_one_quarter_draws_one_quarter() -> None:
    from bot.render.text import fit
    from games.carnival.grid import caption_grid, layout_grid

    view = ex.last_trick_example(4)
    view = {**view, "trump": None, "trump_card": None}
    for lang, label in (("en", "No trump"), ("ru", "Без козыря")):
        drawn_label = [d for d in layout_table(view, NAMES[:4], lang).texts if d.kind == "trump"]
        assert [d.text for d in drawn_label] == [label]
        box = drawn_label[0].cell
        assert fit(label, 24, box[2] - box[0], True) == label, "the label fits its box uncut"
    sheet = {"players": 3, "quarters": 1, "deals": [{"quarter": 1, "hand_size": 6, "bids": [1, 2, 3],
                                                      "points": [5, -30, 3], "tricks": [1, 0, 2]}],
             "quarter_results": [], "totals": [0, 0, 0]}
    one = layout_grid(sheet, NAMES[:3], 2, "en", [5, -30, 3])
    assert [d.text for d in one.texts if d.kind == "quarter"] == ["1 Q"]
    assert [d.text for d in one.texts if d.kind == "total"] == ["5", "−30", "3"]
    total = caption_grid(sheet, NAMES[:3], "en", [5, -30, 3]).split("TOTAL")[1]
    assert "5" in total and "−30" in total and " 0" not in total
