"""Write one example of every picture to a folder, for a reviewer: ``python -m bot.gallery OUT_DIR``.

Also writes each caption next to its picture (``.txt``). A developer's tool: the examples
(``bot/render/examples.py``) are Carnival's views, drawn through Carnival's presentation (the game whose
score picture is a grid of its own, found in the registry), plus a table and a grid of a real game
played by random players.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

import games
from bot.presentation.registry import presentation
from bot.render import examples as ex
from bot.render.captions import caption_standings
from bot.render.cards import ALL_FACES, card_back, card_image, card_width
from bot.render.layout import to_png
from bot.render.standings import render_standings

GAME = next(d.id for d in games.declarations() if d.score_sheet == "grid")  # the examples' game


def faces_sheet(height: int = 120, cols: int = 13) -> Image.Image:
    """All card faces and the back on felt."""
    w = card_width(height)
    items = [*ALL_FACES, "back"]
    rows = (len(items) + cols - 1) // cols
    sheet = Image.new("RGB", (cols * (w + 10) + 10, rows * (height + 10) + 10), (14, 84, 52))
    for i, card in enumerate(items):
        face = card_back(height) if card == "back" else card_image(card, height)
        sheet.paste(face, (10 + (i % cols) * (w + 10), 10 + (i // cols) * (height + 10)), face)
    return sheet


def real_game(players: int, steps: int, seed: int = 7):
    """A state of the examples' game after ``steps`` random actions, or None without the engine."""
    try:
        from engine import get_game
        from engine.ai.random import RandomPlayer
        game = get_game(GAME)
    except Exception:
        return None
    state = game.new(players, seed=seed)
    bot = RandomPlayer(seed)
    for _ in range(steps):
        seat = state.to_act
        if state.over or seat is None:
            break
        state.act(seat, bot.choose(state))
    return state


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(name: str, png: bytes, caption: str | None = None) -> None:
        path = out / f"{name}.png"
        path.write_bytes(png)
        written.append(path)
        if caption is not None:
            (out / f"{name}.txt").write_text(caption + "\n", encoding="utf-8")

    shown = presentation(GAME)

    def render_table(view: dict, names: list[str], lang: str = "en") -> bytes:
        return shown.draw_table(view, names, lang)

    def caption_table(view: dict, names: list[str], lang: str = "en") -> str:
        return shown.table_caption(view, names, lang)

    def render_grid(sheet: dict, names: list[str], current: int | None = None, lang: str = "en") -> bytes:
        return shown.draw_score(sheet, names, lang, None, current)

    def caption_grid(sheet: dict, names: list[str], lang: str = "en") -> str:
        return shown.score_caption(sheet, names, lang)

    v3 = ex.table_example(3)
    save("table_3_joker_en", render_table(v3, ex.NAMES_3), caption_table(v3, ex.NAMES_3))
    v6 = ex.table_example(6, carnival=True)
    save("table_6_carnival_pair_ru", render_table(v6, ex.NAMES_6, "ru"), caption_table(v6, ex.NAMES_6, "ru"))
    v7 = ex.table_example(7)
    names7 = [*ex.NAMES_6, "Gustav"]
    save("table_7_en", render_table(v7, names7), caption_table(v7, names7))
    v4 = ex.last_trick_example(4)
    save("table_4_last_trick_low_joker_en", render_table(v4, ex.NAMES_6[:4]), caption_table(v4, ex.NAMES_6[:4]))
    vb = ex.bid_example(5)
    save("table_5_bidding_en", render_table(vb, ex.NAMES_6[:5]), caption_table(vb, ex.NAMES_6[:5]))
    v2 = ex.table_example(2)
    save("table_2_en", render_table(v2, ["Ann", "Бо"]), caption_table(v2, ["Ann", "Бо"]))
    full = ex.sheet_example(6, 24)
    save("grid_6_full_ru", render_grid(full, ex.NAMES_6, None, "ru"), caption_grid(full, ex.NAMES_6, "ru"))
    save("grid_6_full_en", render_grid(full, ex.NAMES_6, None, "en"), caption_grid(full, ex.NAMES_6, "en"))
    part = ex.sheet_example(3, 4)
    save("grid_3_current_deal_5_en", render_grid(part, ex.NAMES_3, 5), caption_grid(part, ex.NAMES_3))
    totals = full["totals"]
    save("standings_6_en", render_standings(ex.NAMES_6, totals), caption_standings(ex.NAMES_6, totals))
    tied = [120, 300, 300, -40]
    save("standings_4_tie_ru", render_standings(ex.NAMES_6[:4], tied, "ru"),
         caption_standings(ex.NAMES_6[:4], tied, "ru"))
    save("card_faces_120", to_png(faces_sheet(120)))
    save("card_faces_64", to_png(faces_sheet(64)))
    state = real_game(4, 45)
    if state is not None:
        names = ["Ann", "Борис", "Chen", "Dora"]
        view = state.view(None)
        save("real_table_4_en", render_table(view, names), caption_table(view, names))
        done = real_game(3, 10_000, seed=11)
        sheet = done.sheet()
        save("real_grid_3_full_en", render_grid(sheet, names[:3]), caption_grid(sheet, names[:3]))
    from bot.league.examples import league_pictures  # the league's pictures (bot/render/league.py)
    from bot.render.league import render_league

    for name, spec, caption in league_pictures():
        save(name, render_league(spec), caption)
    from bot.render.tournament import render_tournament
    from bot.tournaments.pictures import example

    spec, caption = example()
    save("tournament_standings_en", render_tournament(spec), caption)
    for path in written:
        print(path, path.stat().st_size, "bytes")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m bot.gallery OUT_DIR")
    main(Path(sys.argv[1]))
