"""The score sheet of Oh Hell, Klaberjass, Calabrasella and Variety: every name and number drawn in its cell."""

from __future__ import annotations

import time

import pytest

from bot.presentation.registry import presentation
from bot.render import caption_sheet, layout_sheet, render_sheet
from bot.render.palette import WIN
from bot.render.words import num
from bot.services.pictures import Pictures
from engine.selfplay import play_game
from tests.render.test_render_pictures import NAMES, check_boxes, drawn, png_info, shown

GAMES = [
    ("oh_hell", 4, {"hand_sizes": "3,2,1"}),
    ("oh_hell", 7, {"hand_sizes": "3,2,1"}),
    ("klaberjass", 2, {"target": 150}),
    ("calabrasella", 3, {"deals": 2}),
    ("variety", 4, {"deals": 2}),
]


def name_shown(full: str, parts: list[str]) -> bool:
    """The name drawn on one line (maybe ellipsized), or on two lines whose first is a prefix of it."""
    if len(parts) == 1:
        return shown(full, parts[0])
    first, second = parts
    return full.startswith(first.rstrip()) and bool(second.strip())


@pytest.mark.parametrize(("game", "n", "options"), GAMES)
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_sheet_draws_every_name_and_number_in_its_cell(game: str, n: int, options: dict, lang: str) -> None:
    state, _ = play_game(game, n, seed=5, options=options)
    sheet, totals, names = state.sheet(), state.scores(), NAMES[:n]
    deals = sheet["deals"]
    assert deals
    layout = layout_sheet(presentation(game), sheet, names, totals, lang)
    check_boxes(layout)
    assert layout.image.width <= 1000
    for seat in range(n):
        assert name_shown(names[seat], drawn(layout, "name", seat))
        points = drawn(layout, "points", seat)
        assert points == [num(d["points"][seat]) for d in deals]
        assert drawn(layout, "total", seat) == [num(totals[seat])]
    labels = drawn(layout, "deal")
    assert [label.split(" ")[0] for label in labels] == [str(d["deal_no"]) for d in deals]
    marks = [d for d in layout.texts if d.kind == "mark"]
    if game == "oh_hell":
        assert len(marks) == n * len(deals)
    elif game == "variety":
        assert [label.split(" · ")[1].split(" ")[0] for label in labels] == [d["contract_name"] for d in deals]
        assert len(marks) == 2 * len(deals)
    else:
        played = [d for d in deals if not d.get("annulled")]
        assert len(marks) == len(played) and all(m.text == "★" for m in marks)
    data = render_sheet(presentation(game), sheet, names, totals, lang)
    assert png_info(data) == layout.image.size
    assert len(data) < 150_000
    caption = caption_sheet(presentation(game), sheet, names, totals, lang)
    assert len(caption) <= 1024
    if n >= 5:
        assert "Daria &amp; &lt;Co&gt;" in caption and "<Co>" not in caption
    last = caption.splitlines()[-1]
    assert all(num(t) in last for t in totals)


def test_sheet_grows_with_deals_and_keeps_a_big_oh_hell_readable() -> None:
    sizes = "1,2,3,4,5,6,7,7,7,6,5,4,3,2,1"
    state, _ = play_game("oh_hell", 7, seed=2, options={"hand_sizes": sizes})
    sheet = state.sheet()
    assert len(sheet["deals"]) == 15
    started = time.perf_counter()
    data = render_sheet(presentation("oh_hell"), sheet, NAMES, state.scores())
    assert time.perf_counter() - started < 2.0
    layout = layout_sheet(presentation("oh_hell"), sheet, NAMES, state.scores())
    check_boxes(layout)
    assert layout.image.width <= 1000 and len(data) < 150_000
    short = layout_sheet(presentation("oh_hell"), {"deals": sheet["deals"][:3]}, NAMES, state.scores())
    assert short.image.height < layout.image.height
    # 30 deals still fit the limits, and the text stays readable (≥ 13 px rows)
    many = {"deals": [dict(d, deal_no=i + 1) for i, d in enumerate(sheet["deals"] * 2)]}
    big = layout_sheet(presentation("oh_hell"), many, NAMES, state.scores())
    check_boxes(big)
    assert all(d.box[3] - d.box[1] >= 13 for d in big.texts if d.kind == "points")
    assert len(big.png()) < 150_000
    caption = caption_sheet(presentation("oh_hell"), many, NAMES, state.scores(), "ru")
    lines = caption.splitlines()
    assert len(caption) <= 1024 and 2 < len(lines) < 32  # the latest deals that fit, then the totals
    assert lines[-1].startswith("<b>ВСЕГО</b>") and all(num(t) in lines[-1] for t in state.scores())
    assert lines[-2].startswith("30 ")


def test_leader_total_is_highlighted() -> None:
    state, _ = play_game("variety", 4, seed=3, options={"deals": 2})
    totals = state.scores()
    layout = layout_sheet(presentation("variety"), state.sheet(), NAMES[:4], totals)
    for d in layout.texts:
        if d.kind == "total":
            lit = layout.image.getpixel((d.cell[0] + 4, d.cell[1] + 4)) == WIN
            assert lit == (totals[d.seat] == max(totals)), (d, totals)


def test_empty_sheet() -> None:
    layout = layout_sheet(presentation("calabrasella"), {"deals": []}, NAMES[:3], [0, 0, 0], "ru")
    check_boxes(layout)
    assert drawn(layout, "points") == []
    assert drawn(layout, "total") == ["0", "0", "0"]


@pytest.mark.parametrize(("game", "n", "options"), GAMES[1:])
def test_pictures_service_draws_the_sheet_for_every_trick_game(game: str, n: int, options: dict) -> None:
    pictures = Pictures()
    assert pictures.has_grid(game) and pictures.has_grid("carnival")
    state, _ = play_game(game, n, seed=9, options=options)
    spec = {"kind": "grid", "game": game, "sheet": state.sheet(), "names": NAMES[:n], "lang": "en",
            "totals": state.scores(), "current": None}
    data = Pictures.render(spec)
    assert data == render_sheet(presentation(game), state.sheet(), NAMES[:n], state.scores())
    caption = pictures.grid_caption(state.sheet(), NAMES[:n], "en", game, state.scores())
    assert caption == caption_sheet(presentation(game), state.sheet(), NAMES[:n], state.scores())
