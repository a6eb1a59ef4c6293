"""From the stored tournament to the next round and the standings: the glue between the store's rows and
the pure pairing and standings. Pure as well (rows in, plain data out), so a restart that reads the same
rows pairs the same round."""

from __future__ import annotations

import math
from collections import Counter

from bot.store.rows import BoardRow, EntrantRow
from bot.tournaments.pairing import Pairing, Player, meetings, round_robin, swiss
from bot.tournaments.settings import TournamentSettings
from bot.tournaments.standings import Entry, Standing, TableResult, knockout_order, standings

Stored = list[tuple[int, int, int, int]]  # (round, board, player, place)


def table_results(stored: Stored) -> list[TableResult]:
    grouped: dict[tuple[int, int], dict[int, int]] = {}
    for rnd, board, player, place in stored:
        grouped.setdefault((rnd, board), {})[player] = place
    return [TableResult(rnd, places) for (rnd, _), places in sorted(grouped.items())]


def byes(boards: list[BoardRow]) -> list[tuple[int, int]]:
    return [(b.round, p) for b in boards if b.kind == "bye" for p in b.players]


def entries(entrants: list[EntrantRow]) -> list[Entry]:
    return [Entry(e.user_id, e.name, e.rating, e.joined_round, e.withdrawn) for e in entrants]


def ranking(fmt: str, settings: TournamentSettings, entrants: list[EntrantRow], boards: list[BoardRow],
            stored: Stored, started: int) -> list[Standing]:
    """The standings now. Knockout: by the round reached, then the place there (points kept for show)."""
    results = table_results(stored)
    table = standings(entries(entrants), results, byes(boards), settings.points, settings.bye, late_rounds=started)
    if fmt != "knockout":
        return table
    order = {e.id: i for i, e in enumerate(knockout_order(entries(entrants), results))}
    table.sort(key=lambda s: order[s.id])
    for i, s in enumerate(table):
        s.rank = i + 1
    return table


def robin_schedule(ids: list[int], settings: TournamentSettings, seed: int) -> list[Pairing]:
    schedule = round_robin(ids, settings.size, seed, settings.rounds or None)
    return schedule.rounds


def active(entrants: list[EntrantRow], round_no: int) -> list[EntrantRow]:
    return [e for e in entrants if e.joined_round <= round_no and (e.withdrawn is None or e.withdrawn > round_no)]


def swiss_round(settings: TournamentSettings, seed: int, round_no: int, entrants: list[EntrantRow],
                boards: list[BoardRow], stored: Stored) -> Pairing | None:
    """The next Swiss round, or None when too few players are left to fill a table."""
    playing = active(entrants, round_no)
    if len(playing) < settings.size:
        return None
    points = {s.id: s.points for s in ranking("swiss", settings, entrants, boards, stored, round_no)}
    had_byes = Counter(p for _, p in byes(boards))
    met = meetings(b.players for b in boards if b.kind == "table")
    players = [Player(e.user_id, points.get(e.user_id, 0.0), e.rating, had_byes[e.user_id]) for e in playing]
    return swiss(players, settings.size, met, seed * 1009 + round_no)


def knockout_round(settings: TournamentSettings, round_no: int, entrants: list[EntrantRow],
                   boards: list[BoardRow], stored: Stored) -> Pairing | None:
    """The next knockout round, or None once the final table has been played."""
    from bot.tournaments.pairing import knockout

    rating = {e.user_id: e.rating for e in entrants}
    out = {e.user_id for e in entrants if e.withdrawn is not None and e.withdrawn <= round_no}
    if round_no == 0:
        field = sorted((e.user_id for e in entrants if e.user_id not in out), key=lambda p: (-rating[p], p))
    else:
        last = [b for b in boards if b.round == round_no - 1]
        tables = [b for b in last if b.kind == "table"]
        if len(tables) <= 1 and not any(b.kind == "bye" for b in last):
            return None  # the final was played
        places = {(rnd, p): place for rnd, _, p, place in stored}

        def going(keep: int) -> list[tuple[int, float, int]]:
            """The top ``keep`` of each table, and those who had a bye, best first."""
            rows = [(places.get((round_no - 1, p), 99), -rating.get(p, 0.0), p) for b in tables
                    for p in sorted(b.players, key=lambda q: places.get((round_no - 1, q), 99))[:keep]]
            return rows + [(0, -rating.get(p, 0.0), p) for b in last if b.kind == "bye" for p in b.players]

        keep = max(1, settings.size // 2)
        while len(going(keep)) < settings.min_size and keep < settings.size:
            keep += 1
        through = going(keep)
        field = [p for _, _, p in sorted(through) if p not in out]
    if len(field) < max(settings.min_size, 2):
        return None
    if len(field) <= settings.max_size:
        return Pairing(tables=[field])  # the final table
    return knockout(field, settings.size, settings.min_size)


def planned_rounds(fmt: str, settings: TournamentSettings, n: int) -> int:
    """How many rounds the format plays for ``n`` entrants (knockout: an estimate, for the text)."""
    if fmt == "swiss":
        return settings.rounds
    if fmt == "robin":
        return len(settings.robin_rounds) or settings.rounds
    count, rounds = n, 1
    while count > settings.max_size:
        count = math.ceil(count / settings.size) * max(1, settings.size // 2)
        rounds += 1
    return rounds
