"""The Karusele table picture (it was text while every other game had a picture)."""

from __future__ import annotations

from bot.services.pictures import Pictures
from engine.ai.random import RandomPlayer
from engine.core import get_game
from games.karusele.picture import layout_karusele


def _midgame(players: int, seed: int, want_build: bool = True) -> dict:
    state = get_game("karusele").new(players, seed=seed)
    for n in range(400):
        state.act(state.to_act, RandomPlayer(n).choose(state, state.to_act))
        view = state.view(None)
        if n > 5 and (not want_build or any(i.get("build") for i in view["table"])):
            return view
    raise AssertionError("no build in 400 moves")


def test_the_picture_draws_the_table_and_the_builds_and_never_a_hand() -> None:
    view = _midgame(3, 3)
    names = ["Ann", "Борис", "<b>Chen</b>"]
    layout = layout_karusele(view, names, "en")
    table_cards = sorted(c for item in view["table"] for c in item["cards"])
    assert sorted(layout.cards) == table_cards
    builds = [i for i in view["table"] if i.get("build")]
    labels = [d.text for d in layout.texts if d.kind == "build"]
    assert len(labels) == len(builds)
    assert all(f"= {b['value']} · {names[b['owner']]}" in labels for b in builds)
    shown = [d.text.removeprefix("▶ ").removesuffix(" 🂠") for d in layout.texts if d.kind == "name"]
    assert shown == names, "each name drawn once, raw (a picture needs no HTML escaping)"
    with_hand = {**view, "hand": ["AS", "2C"]}
    assert layout_karusele(with_hand, names, "en").image.tobytes() == layout.image.tobytes()


def test_pictures_service_draws_karusele_with_its_own_caption() -> None:
    view = _midgame(2, 5)
    pictures = Pictures()
    assert pictures.has_table("karusele")
    png = pictures.render({"kind": "table", "view": view, "names": ["A", "B"], "lang": "ru"})
    assert png.startswith(b"\x89PNG") and len(png) < 60_000
    caption = pictures.table_caption(view, ["A", "B"], "ru")
    assert "Карусель" in caption and len(caption) <= 1024


def test_the_time_control_the_bot_sets_is_drawn_in_the_header_and_the_header_still_fits() -> None:
    view = _midgame(4, 7, want_build=False)
    clock = "⏱ 7 д на ход + запас 1 д"
    texts = layout_karusele({**view, "clock": clock}, ["A", "B", "C", "D"], "ru").texts
    drawn = {d.kind: d for d in texts}
    assert drawn["clock"].text == clock
    header, shown = drawn["header"], drawn["clock"]
    assert header.box[2] <= shown.cell[0], "the header's line stops where the clock's cell begins"
    assert "clock" not in {d.kind for d in layout_karusele(view, ["A", "B", "C", "D"], "ru").texts}
