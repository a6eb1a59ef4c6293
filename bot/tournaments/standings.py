"""Points per table place, byes, and the standings with their tiebreaks. Pure: the stored results in,
the ranked table out.

Tiebreaks, in order (for multiplayer tables): the sum of the points of every opponent met (each
meeting counts), then head to head among the players still tied (places above a tied player at a
shared table, minus places below), then rating, then the entrant's number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

FAMILIES = ("solo", "teams")


def default_points(family: str, size: int) -> tuple[float, ...]:
    """Points per place at a table of ``size``: each player beaten is a point (solo games: 2, 1, 0 at a
    table of three); partnerships: 2 for the winning side, 0 for the other (a draw is a shared place)."""
    if family == "teams":
        return (2.0, 0.0)
    return tuple(float(size - place) for place in range(1, size + 1))


def default_bye(points: Sequence[float]) -> float:
    """A bye is worth a middling result: the average of the place points."""
    return sum(points) / len(points) if points else 0.0


def place_points(places: dict[int, int], points: Sequence[float]) -> dict[int, float]:
    """Each player's points at one table from their place (1 the best; shared places share the points
    of the places they span, averaged). A place beyond the list scores 0."""
    def at(place: int) -> float:
        return float(points[place - 1]) if 0 < place <= len(points) else 0.0

    out: dict[int, float] = {}
    for player, place in places.items():
        shared = sum(1 for q in places.values() if q == place)
        out[player] = sum(at(place + k) for k in range(shared)) / shared
    return out


def forfeit(places: dict[int, int], out: set[int]) -> dict[int, int]:
    """A table's places when some of its players had withdrawn before it ended (the AI played their seat):
    they take the table's last place (no points, shared or not), whatever the AI made of it, and the others
    are ranked among themselves as the game placed them, as if the withdrawn seats had lost to everyone.
    The opponents lose nothing by someone's leaving, and the one who left gains nothing from the AI's play."""
    gone = out & places.keys()
    if not gone:
        return places
    kept = {p: q for p, q in places.items() if p not in gone}
    ranked = {p: 1 + sum(1 for r in kept.values() if r < q) for p, q in kept.items()}
    last = len(places)
    return {**ranked, **{p: last for p in gone}}


@dataclass(frozen=True)
class Entry:
    id: int
    name: str
    rating: float = 0.0
    joined: int = 0  # the first round (0-based) they could be paired in
    withdrawn: int | None = None  # the round from which they are out


@dataclass(frozen=True)
class TableResult:
    round: int
    places: dict[int, int]  # player -> place (1 the best)


@dataclass
class Standing:
    id: int
    name: str
    points: float = 0.0
    opponents: float = 0.0  # tiebreak 1: the sum of the opponents' points
    h2h: float = 0.0  # tiebreak 2: head to head among the tied
    rating: float = 0.0
    played: int = 0
    wins: int = 0
    byes: int = 0
    withdrawn: bool = False
    rank: int = 0
    met: list[int] = field(default_factory=list)


def standings(entries: Sequence[Entry], results: Sequence[TableResult], byes: Sequence[tuple[int, int]],
              points: Sequence[float], bye_points: float, late_rounds: int = 0) -> list[Standing]:
    """The ranked standings. ``byes`` are (round, player); a late joiner gets half a bye for each round
    played before they joined (``joined`` rounds, counted up to ``late_rounds`` rounds that had started)."""
    table = {e.id: Standing(e.id, e.name, rating=e.rating, withdrawn=e.withdrawn is not None) for e in entries}
    for e in entries:
        table[e.id].points += min(e.joined, late_rounds) * bye_points / 2
    for _rnd, player in byes:
        if player in table:
            table[player].points += bye_points
            table[player].byes += 1
    for result in results:
        got = place_points(result.places, points)
        for player, pts in got.items():
            if player not in table:
                continue
            s = table[player]
            s.points += pts
            s.played += 1
            s.wins += result.places[player] == 1
            s.met.extend(q for q in result.places if q != player)
    for s in table.values():
        s.opponents = sum(table[q].points for q in s.met if q in table)
    groups: dict[tuple[float, float], list[Standing]] = {}
    for s in table.values():
        groups.setdefault((round(s.points, 6), round(s.opponents, 6)), []).append(s)
    for tied in groups.values():
        if len(tied) < 2:
            continue
        ids = {s.id for s in tied}
        for result in results:
            here = [p for p in result.places if p in ids]
            for a in here:
                for b in here:
                    if a != b:
                        diff = result.places[b] - result.places[a]
                        table[a].h2h += (diff > 0) - (diff < 0)
    ranked = sorted(table.values(), key=lambda s: (-s.points, -s.opponents, -s.h2h, -s.rating, s.id))
    for i, s in enumerate(ranked):
        prev = ranked[i - 1] if i else None
        same = prev is not None and (prev.points, prev.opponents, prev.h2h, prev.rating) == \
            (s.points, s.opponents, s.h2h, s.rating)
        s.rank = prev.rank if same and prev else i + 1
    return ranked


def knockout_order(entries: Sequence[Entry], results: Sequence[TableResult]) -> list[Entry]:
    """Knockout standings: the later a player's last round, the higher; within a round by their place
    there, then rating."""
    last: dict[int, tuple[int, int]] = {}
    for result in results:
        for player, place in result.places.items():
            if result.round >= last.get(player, (-1, 0))[0]:
                last[player] = (result.round, place)
    return sorted(entries, key=lambda e: (-last.get(e.id, (-1, 99))[0], last.get(e.id, (-1, 99))[1],
                                          -e.rating, e.id))
