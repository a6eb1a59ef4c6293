"""League pictures: long, Cyrillic, emoji and RTL names stay inside their cells; every row and number is drawn;
names are neutralised before drawing; the outbox's renderer draws the league's specs."""

from __future__ import annotations

from bot.league.names import clean
from bot.render.league import layout_h2h, layout_stats, layout_top, render_league
from bot.services.pictures import Pictures
from tests.render.test_render_pictures import check_boxes, drawn, png_info

NAMES = ["Ann", "Александр Сергеевич Пушкин-Длинноимённый 🎉 и ещё очень длинная фамилия", "Chen 🎉🔥",
         "شهرزاد الحكواتية", "עמית הגדול", "X" * 64, "👨‍👩‍👧🇷🇺 Ёж", "🤖 Ada"]


def top_spec(n: int) -> dict:
    rows = [{"rank": i + 1, "player": i + 1, "name": clean(NAMES[i % len(NAMES)]), "rating": 31.5 - i * 1.7,
             "games": 120 - i, "wins": 40 - i, "provisional": i % 5 == 4, "trend": (1, -1, 0, 2)[i % 4]}
            for i in range(n)]
    return {"kind": "league_top", "title": "Таблица лиги — Все игры " * 3, "subtitle": "Сезон 2026-11 · рейтинг",
            "rows": rows, "labels": ["#", "Игрок", "Рейтинг", "Игры", "Победы", "Неделя"], "footer": "▲▼ • new"}


def test_top_fits_twenty_rows_of_hard_names():
    layout = layout_top(top_spec(20))
    check_boxes(layout)
    assert drawn(layout, "rank") == [str(i) for i in range(1, 21)]
    assert drawn(layout, "name") == [r["name"] for r in top_spec(20)["rows"]]
    ratings = drawn(layout, "rating")
    assert ratings[0] == "31.5" and ratings[4].endswith("?") and ratings[19] == "−0.8?"  # provisional; a true minus
    assert drawn(layout, "trend")[:4] == ["▲", "▼", "=", "•"]
    # The fitted text of the longest names was shortened inside its cell, not allowed to run over.
    long = [d for d in layout.texts if d.kind == "name" and d.text.startswith("X")][0]
    assert long.box[2] <= long.cell[2]
    w, h = png_info(render_league(top_spec(20)))
    assert w == 860 and h > 20 * 40


def test_stats_and_h2h_fit_and_draw_every_number():
    games = [{"title": t, "games": 12, "wins": 5, "avg_place": 1.83, "best_score": -120, "rating": 12.3,
              "provisional": False, "history": [0.0, 3.1, 2.5, 6.0, 12.3]}
             for t in ("Carnival", "Калабраселла", "Oh Hell")]
    games.append({"title": "Pyanitsa", "games": 1, "wins": 0, "avg_place": 2.0, "best_score": 0, "rating": None,
                  "provisional": True, "history": [-1.2]})
    spec = {"kind": "league_stats", "title": clean("\u202eAlice " + "Ω" * 80), "subtitle": "All seasons",
            "games": games, "labels": ["Game", "Games", "Wins", "Avg place", "Best", "Rating", "History"]}
    layout = layout_stats(spec)
    check_boxes(layout)
    assert drawn(layout, "game") == ["Carnival", "Калабраселла", "Oh Hell", "Pyanitsa"]
    assert drawn(layout, "best")[0] == "−120" and drawn(layout, "rating") == ["12.3", "12.3", "12.3", "—"]
    assert drawn(layout, "title")[0].startswith("Alice")
    h2h = {"kind": "league_h2h", "title": "Head to head: 7 matches", "a": NAMES[1], "b": NAMES[3], "a_ahead": 4,
           "b_ahead": 2, "level": 1, "per_game": [["Carnival", 5, 3, 1, 1], ["Klaberjass", 2, 1, 1, 0]],
           "labels": ["Game", "Matches", NAMES[1][:12], NAMES[3][:12], "Level"]}
    layout = layout_h2h(h2h)
    check_boxes(layout)
    assert drawn(layout, "score") == ["4", ":", "2"]
    assert drawn(layout, "name") == [NAMES[1], NAMES[3]]
    for spec_ in (spec, h2h, top_spec(0) | {"empty": "nobody yet"}):
        png_info(Pictures.render(spec_))  # the outbox's renderer knows the league's kinds


def test_names_are_neutralised():
    assert clean("\u202eevil\u202c\u2066 name\u2069\n\tx\u200b") == "evil name x"
    assert clean("\u200f") == "?"
    assert clean("👨‍👩‍👧 Семья") == "👨‍👩‍👧 Семья"  # emoji joiners survive
    assert len(clean("я" * 500)) == 64 and clean("я" * 500).endswith("…")


def test_every_league_picture_in_both_languages_fits():
    from bot.league.examples import league_pictures
    from bot.render.league import layout_league

    made = league_pictures()
    assert {name for name, _, _ in made} >= {"league_top_ru", "league_stats_en", "league_h2h_ru", "league_final_en"}
    for name, spec, caption in made:
        layout = layout_league(spec)
        check_boxes(layout)
        if spec["kind"] == "league_top":
            assert all("\u202e" not in text for text in drawn(layout, "name")), name  # neutralised before drawing
            assert "🤖 Ada" in drawn(layout, "name") or len(spec["rows"]) < 8
        if name.endswith("_ru"):
            assert any(ch in caption for ch in "абвгдежзийклмнопрстуфхцчшщыэюя"), name
            assert "Рейтинг" in drawn(layout, "head") or spec["kind"] == "league_h2h", name
        assert "<Co>" not in caption  # names are escaped in captions
