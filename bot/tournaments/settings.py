"""A tournament's settings: what ``/tournament GAME key=value ...`` asks for, checked, with defaults.
Pure: the game's player range and family come in as plain values; errors are ValueErrors whose text
says what to write instead."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from bot.tournaments.standings import default_bye, default_points

FORMATS = ("swiss", "robin", "knockout")
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhd])$")
OWN_KEYS = {"format", "rounds", "size", "clock", "strikes", "register", "bye", "points", "withdraw", "topic"}


def duration(text: str) -> float:
    """``90s``, ``5m``, ``2h``, ``3d`` -> seconds."""
    found = DURATION.match(text.strip().lower())
    if not found:
        raise ValueError(f"{text!r}: write a time like 90s, 5m, 2h or 3d")
    return float(found.group(1)) * UNITS[found.group(2)]


@dataclass
class TournamentSettings:
    size: int  # players per table
    rounds: int  # 0: decided by the format (round robin's schedule, knockout's field)
    points: list[float]
    bye: float
    per_move: float  # the tables' time per move, seconds
    strikes: int = 1  # missed deadlines before the AI takes the seat
    register: float = 86400.0  # the registration window, seconds
    withdraw: bool = True  # a player who misses a whole round is withdrawn
    topic: bool = False  # in a forum: the tournament gets a topic of its own
    min_size: int = 0  # the game's fewest players (knockout's uneven tables)
    max_size: int = 0  # the game's most players (a knockout final may seat more than ``size``)
    robin_rounds: list[Any] = field(default_factory=list)  # the round robin's schedule, once made

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TournamentSettings:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


def _flag(key: str, value: str) -> bool:
    if value.lower() in ("on", "yes", "true", "1"):
        return True
    if value.lower() in ("off", "no", "false", "0"):
        return False
    raise ValueError(f"{key}={value}: write {key}=on or {key}=off")


def parse(args: dict[str, str], players: tuple[int, int], family: str, default_per_move: float
          ) -> tuple[str, TournamentSettings, dict[str, str]]:
    """The format, the settings, and what is left (the game's own house rules)."""
    low, high = players
    fmt = args.get("format", "swiss").lower()
    if fmt not in FORMATS:
        raise ValueError(f"format={fmt}: write format=swiss, format=robin or format=knockout")
    try:
        size = int(args.get("size", str(min(high, max(low, 3)))))
        rounds = int(args.get("rounds", "3" if fmt == "swiss" else "0"))
        strikes = int(args.get("strikes", "1"))
    except ValueError as exc:
        raise ValueError("size, rounds and strikes are whole numbers, like size=3 rounds=5") from exc
    if not low <= size <= high:
        raise ValueError(f"size={size}: this game seats {low} to {high} players")
    if fmt == "robin" and not 3 <= size <= 6 and size != 2:
        raise ValueError("round robin groups are tables of 2 to 6 players")
    if not 0 <= rounds <= 30 or (fmt == "swiss" and rounds < 1):
        raise ValueError(f"rounds={rounds}: between 1 and 30")
    if not 0 <= strikes <= 10:
        raise ValueError(f"strikes={strikes}: between 0 and 10")
    if "points" in args:
        try:
            points = [float(p) for p in args["points"].split(",")]
        except ValueError as exc:
            raise ValueError("points: numbers per place, best first, like points=3,1,0") from exc
        if not points or len(points) > high:
            raise ValueError(f"points: one number per place, at most {high}")
    else:
        points = list(default_points(family, size))
    try:
        bye = float(args["bye"]) if "bye" in args else default_bye(points)
    except ValueError as exc:
        raise ValueError("bye: the points a bye is worth, like bye=1") from exc
    per_move = duration(args["clock"]) if "clock" in args else default_per_move
    register = duration(args["register"]) if "register" in args else 86400.0
    if not 1 <= per_move <= 30 * 86400 or not 1 <= register <= 30 * 86400:
        raise ValueError("clock and register: from 1s to 30d")
    settings = TournamentSettings(
        size=size, rounds=rounds, points=points, bye=bye, per_move=per_move, strikes=strikes, register=register,
        withdraw=_flag("withdraw", args.get("withdraw", "on")), topic=_flag("topic", args.get("topic", "off")),
        min_size=low, max_size=high)
    rest = {k: v for k, v in args.items() if k not in OWN_KEYS}
    return fmt, settings, rest
