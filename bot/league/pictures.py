"""What the league's pictures show, and their captions (the same facts as text), in the reader's language.

Pure functions from query results to a picture spec (drawn later by bot/render/league.py, at delivery)
and a caption in Telegram HTML; names are cleaned here and escaped in the captions.
"""

from __future__ import annotations

from typing import Any

from bot.league import model, names, queries
from bot.league.matches import is_ai
from bot.ui import words
from bot.ui.i18n import nt, t

CAPTION_ROWS = 10
NAME_CHARS = 32  # a name in a caption line, "…" included
ARROWS = {1: "▲", -1: "▼", 0: "=", 2: "•"}


def games_n(lang: str, n: int) -> str:
    return nt(lang, "{n} game", "{n} games", n)


def wins_n(lang: str, n: int) -> str:
    return nt(lang, "{n} win", "{n} wins", n)


def legend(lang: str) -> str:
    """What the ? after a rating means (the rating of a player with few games is still unsure)."""
    return nt(lang, "? provisional: fewer than {n} game so far", "? provisional: fewer than {n} games so far",
              model.PROVISIONAL_GAMES)


def game_title(lang: str, game: str | None) -> str:
    return words.title(game, lang) if game else t(lang, "All games")


def player_name(player: int, name: str) -> str:
    """A cleaned name; AI players always show the robot."""
    clean = names.clean(name)
    return ("🤖 " if is_ai(player) and not clean.startswith("🤖") else "") + clean


def top_picture(lang: str, game: str | None, season: str, rows: list[queries.Row],
                final: bool = False) -> tuple[dict[str, Any], str]:
    """/top, or a season's final table when it ends."""
    title = (t(lang, "Season {season} is over: the final table", season=season) if final
             else t(lang, "League table") + " — " + game_title(lang, game))
    subtitle = (game_title(lang, game) + " · " if final else "") + t(
        lang, "Season {season} · rating: the skill results have proven", season=season) + " · " + legend(lang)
    shown = []
    for r in rows:
        row = r.as_dict()
        row["name"] = player_name(r.player, r.name)
        shown.append(row)
    spec = {"kind": "league_top", "title": title, "subtitle": subtitle, "rows": shown,
            "labels": ["#", t(lang, "Player"), t(lang, "Rating"), t(lang, "Games"), t(lang, "Wins"), t(lang, "Week")],
            "footer": t(lang, "▲▼ since a week ago, • new this week")}
    lines = [f"🏆 <b>{words.name(title)}</b>"]
    for row in shown[:CAPTION_ROWS]:
        lines.append(t(lang, "{rank}. {name} — {rating}{mark} ({games}, {wins}) {trend}",
                       rank=row["rank"], name=words.name(names.short(row["name"], NAME_CHARS)),
                       rating=row["rating"], mark="?" if row["provisional"] else "",
                       games=games_n(lang, row["games"]), wins=wins_n(lang, row["wins"]), trend=ARROWS[row["trend"]]))
    if any(row["provisional"] for row in shown[:CAPTION_ROWS]):
        lines.append(legend(lang))
    return spec, "\n".join(lines)


def stats_picture(lang: str, name: str, season: str, games: list[queries.GameStats]) -> tuple[dict[str, Any], str]:
    """/stats: one row per game the player played in this league."""
    rows = []
    lines = [f"📊 <b>{words.name(name)}</b>"]
    for g in games:
        row = g.as_dict()
        row["title"] = words.title(g.game, lang)
        rows.append(row)
        rating = "—" if g.rating is None else f"{g.rating}{'?' if g.provisional else ''}"
        avg = f"{g.avg_place:.2f}"
        lines.append(t(lang, "{game}: {games}, {wins}, average place {avg}, best score {best}, "
                             "rating {rating}", game=row["title"], games=games_n(lang, g.games),
                       wins=wins_n(lang, g.wins), avg=avg, best=g.best_score, rating=rating))
    if any(g.rating is not None and g.provisional for g in games):
        lines.append(legend(lang))
    spec = {"kind": "league_stats", "title": name,
            "subtitle": t(lang, "All seasons; rating and chart: season {season}", season=season),
            "games": rows, "labels": [t(lang, "Game"), t(lang, "Games"), t(lang, "Wins"), t(lang, "Avg place"),
                                      t(lang, "Best"), t(lang, "Rating"), t(lang, "Rating history")]}
    return spec, "\n".join(lines)


def h2h_picture(lang: str, a_name: str, b_name: str, result: queries.HeadToHead) -> tuple[dict[str, Any], str]:
    """/h2h: who finished ahead of whom, overall and per game."""
    per_game = [[words.title(game, lang), *cell] for game, cell in sorted(result.per_game.items())]
    title = t(lang, "Head to head: {meetings} matches", meetings=result.meetings)
    spec = {"kind": "league_h2h", "title": title, "a": a_name, "b": b_name, "a_ahead": result.a_ahead,
            "b_ahead": result.b_ahead, "level": result.level, "per_game": per_game,
            "labels": [t(lang, "Game"), t(lang, "Matches"), names.short(a_name, 12), names.short(b_name, 12),
                       t(lang, "Level")]}
    caption = "⚔️ " + t(lang, "{a} {x} : {y} {b} (finished ahead; level {level}) in {meetings} matches",
                       a=words.name(names.short(a_name, NAME_CHARS)), b=words.name(names.short(b_name, NAME_CHARS)),
                       x=result.a_ahead, y=result.b_ahead,
                       level=result.level, meetings=result.meetings)
    return spec, caption
