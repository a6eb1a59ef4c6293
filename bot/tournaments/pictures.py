"""A tournament's standings as a picture spec (drawn at delivery by bot/render/tournament.py) and its
caption (the same facts as text), in the group's language. Pure: standings in, spec and caption out."""

from __future__ import annotations

from typing import Any

import games
from bot.tournaments.standings import Standing
from bot.ui import words
from bot.ui.i18n import t
from bot.ui.names import plain_name

CAPTION_ROWS = 12


def format_name(fmt: str, lang: str) -> str:
    return {"swiss": t(lang, "Swiss"), "robin": t(lang, "round robin"), "knockout": t(lang, "knockout")}[fmt]


def points_text(value: float) -> str:
    return f"{value:g}"


def standings_picture(lang: str, game: str, fmt: str, rounds: int, table: list[Standing],
                      final: bool) -> tuple[dict[str, Any], str]:
    """After round ``rounds`` (or the final standings): rank, player, points, opponents' points, tables
    played, byes; withdrawn players marked."""
    title = t(lang, "Final standings") if final else t(lang, "Standings after round {n}", n=rounds)
    title = f"{title} — {words.title(game, lang)}"
    subtitle = t(lang, "{format} · tiebreaks: opponents' points, head to head, rating", format=format_name(fmt, lang))
    rows: list[dict[str, Any]] = [
        {"rank": s.rank, "name": plain_name(s.name), "points": points_text(s.points),
         "opponents": points_text(s.opponents), "played": s.played, "byes": s.byes, "out": s.withdrawn} for s in table]
    spec = {"kind": "tournament", "title": title, "subtitle": subtitle, "rows": rows,
            "labels": ["#", t(lang, "Player"), t(lang, "Points"), t(lang, "Opp."), t(lang, "Played"),
                       t(lang, "Byes")],
            "footer": t(lang, "✖ withdrawn")}
    lines = [("🏆 " if final else "📋 ") + f"<b>{words.name(title)}</b>"]
    for s in table[:CAPTION_ROWS]:
        line = t(lang, "{rank}. {name} — {points} ({opponents})", rank=s.rank, name=words.name(s.name),
                 points=points_text(s.points), opponents=points_text(s.opponents))
        lines.append(line + (" ✖" if s.withdrawn else ""))
    return spec, "\n".join(lines)


def example() -> tuple[dict[str, Any], str]:
    """A sample for the gallery (python -m bot.gallery)."""
    names = ["Ann", "Борис", "Chen Wei", "Dora", "אליעזר", "Fyodor Konstantinovich", "Gus", "Hal", "Ivy"]
    table = [Standing(i, n, points=6.0 - i * 0.5, opponents=20.0 - i, played=3 - (i == 8), byes=int(i % 4 == 3),
                      withdrawn=i == 8, rank=i + 1) for i, n in enumerate(names)]
    return standings_picture("en", games.REGISTERED[0], "swiss", 3, table, final=True)
