"""What the league's pictures show, and their captions (the same facts as text), in the reader's language.

Pure functions from query results to a picture spec (drawn later by bot/render/league.py, at delivery)
and a caption in Telegram HTML; names are cleaned here and escaped in the captions.
"""

from __future__ import annotations

from typing import Any

from bot.league import names, queries
from bot.league.matches import is_ai
from bot.ui import words
from bot.ui.i18n import t

CAPTION_ROWS = 10
ARROWS = {1: "▲", -1: "▼", 0: "=", 2: "•"}


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
        lang, "Season {season} · rating = mu − 3·sigma · ? provisional (fewer than 5 games)", season=season)
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
        lines.append(t(lang, "{rank}. {name} — {rating}{mark} ({games} games, {wins} wins) {trend}",
                       rank=row["rank"], name=words.name(row["name"][:32]), rating=row["rating"],
                       mark="?" if row["provisional"] else "", games=row["games"], wins=row["wins"],
                       trend=ARROWS[row["trend"]]))
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
        lines.append(t(lang, "{game}: {games} games, {wins} wins, average place {avg}, best score {best}, "
                             "rating {rating}", game=row["title"], games=g.games, wins=g.wins, avg=avg,
                       best=g.best_score, rating=rating))
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
            "labels": [t(lang, "Game"), t(lang, "Matches"), a_name[:12], b_name[:12], t(lang, "Level")]}
    caption = "⚔️ " + t(lang, "{a} {x} : {y} {b} (finished ahead; level {level}) in {meetings} matches",
                       a=words.name(a_name[:32]), b=words.name(b_name[:32]), x=result.a_ahead, y=result.b_ahead,
                       level=result.level, meetings=result.meetings)
    return spec, caption
