"""Sample league pictures (for ``python -m bot.gallery`` and the render tests): hard names, both languages."""

from __future__ import annotations

from typing import Any

from bot.league import pictures
from bot.league.queries import GameStats, HeadToHead, Row

NAMES = ["Ann", "Александр Сергеевич Пушкин-Длинноимённый 🎉", "Chen 🎉🔥", "شهرزاد", "\u202eevil name",
         "X" * 64, "👨‍👩‍👧🇷🇺 Ёж", "🤖 Ada", "Daria & <Co>", "Борис"]


def top_rows(n: int = 12) -> list[Row]:
    return [Row(i + 1, -11 if NAMES[i % len(NAMES)].startswith("🤖") else 100 + i, NAMES[i % len(NAMES)],
                round(24.6 - i * 2.3, 1), 90 - 6 * i, 30 - 2 * i, i >= 9, (1, -1, 0, 2)[i % 4]) for i in range(n)]


def league_pictures() -> list[tuple[str, dict[str, Any], str]]:
    """(file name, spec, caption) of each league picture, in English and Russian."""
    out = []
    stats = [GameStats("carnival", 42, 15, 2.31, 412, 18.4, False, [0.0, 2.1, 4.0, 3.2, 7.5, 9.9, 12.0, 18.4]),
             GameStats("klaberjass", 9, 5, 1.44, 1520, 6.1, False, [0.0, 1.0, 3.5, 6.1]),
             GameStats("pyanitsa", 3, 0, 2.67, 0, None, True, [])]
    meetings = HeadToHead(11, 6, 4, 1, {"carnival": [8, 4, 3, 1], "oh_hell": [3, 2, 1, 0]})
    for lang in ("en", "ru"):
        out.append((f"league_top_{lang}", *pictures.top_picture(lang, None, "2026-11", top_rows())))
        out.append((f"league_final_{lang}", *pictures.top_picture(lang, "carnival", "2026-10", top_rows(5),
                                                                  final=True)))
        out.append((f"league_stats_{lang}", *pictures.stats_picture(lang, NAMES[1], "2026-11", stats)))
        out.append((f"league_h2h_{lang}", *pictures.h2h_picture(lang, NAMES[0], NAMES[1], meetings)))
    return out
