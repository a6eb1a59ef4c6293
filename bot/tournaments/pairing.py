"""Who sits with whom: Swiss over multiplayer tables, round robin schedules and knockout rounds.

Pure functions over plain data (ids, scores, ratings, who met whom): no I/O, no clock. Every choice
that is not decided by the data is decided by ``random.Random(seed)``, so the stored tournament (its
seed, entrants and results) reproduces each round's pairing exactly.
"""

from __future__ import annotations

import math
import random
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

Pair = tuple[int, int]
SEARCH_NODES = 20_000  # steps of the exact seating search before the greedy repair takes over


@dataclass(frozen=True)
class Player:
    """One active entrant as the pairing sees them."""

    id: int
    score: float = 0.0
    rating: float = 0.0
    byes: int = 0


@dataclass
class Pairing:
    """One round: the tables (player ids, best first) and who sits out with a bye."""

    tables: list[list[int]]
    byes: list[int] = field(default_factory=list)

    def players(self) -> list[int]:
        return [p for table in self.tables for p in table] + list(self.byes)


def pair(a: int, b: int) -> Pair:
    return (a, b) if a < b else (b, a)


def meetings(tables: Iterable[Sequence[int]]) -> Counter[Pair]:
    """How often each pair of players sat at one table."""
    met: Counter[Pair] = Counter()
    for table in tables:
        for a, b in combinations(table, 2):
            met[pair(a, b)] += 1
    return met


def repeats(tables: Iterable[Sequence[int]], met: Counter[Pair]) -> int:
    """Pairs at these tables that had already met (counted once per earlier meeting)."""
    return sum(met.get(pair(a, b), 0) for table in tables for a, b in combinations(table, 2))


def _neighbours(met: Counter[Pair]) -> dict[int, set[int]]:
    seen: dict[int, set[int]] = {}
    for (a, b), n in met.items():
        if n > 0:
            seen.setdefault(a, set()).add(b)
            seen.setdefault(b, set()).add(a)
    return seen


def choose_byes(players: Sequence[Player], count: int, rng: random.Random) -> list[int]:
    """Who sits out: the fewest byes so far first (byes are spread), then the lowest score, then the
    lowest rating; ties by the seed."""
    if count <= 0:
        return []
    tie = {p.id: rng.random() for p in players}
    ranked = sorted(players, key=lambda p: (p.byes, p.score, p.rating, tie[p.id]))
    return [p.id for p in ranked[:count]]


def _search(order: list[int], size: int, seen: dict[int, set[int]], budget: int) -> list[list[int]] | None:
    """The first seating in score order with no repeat meeting (depth first: the top player takes the
    nearest players they have not met). None when there is none, or when the budget runs out."""
    nodes = 0
    tables: list[list[int]] = []

    class OutOfBudget(Exception):
        pass

    def fill(table: list[int], rest: list[int], start: int) -> bool:
        nonlocal nodes
        if len(table) == size:
            tables.append(table)
            if seat(rest):
                return True
            tables.pop()
            return False
        for i in range(start, len(rest)):
            nodes += 1
            if nodes > budget:
                raise OutOfBudget
            candidate = rest[i]
            if any(candidate in seen.get(member, ()) for member in table):
                continue
            if fill(table + [candidate], rest[:i] + rest[i + 1:], i):
                return True
            if len(rest) - i < size - len(table):
                break
        return False

    def seat(rest: list[int]) -> bool:
        if not rest:
            return True
        return fill([rest[0]], rest[1:], 0)

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * len(order) + 1000))  # one frame per seat
    try:
        return tables if seat(order) else None
    except OutOfBudget:
        return None
    except RecursionError:
        return None


def _greedy(order: list[int], size: int, met: Counter[Pair]) -> list[list[int]]:
    """Seat in score order, each next player the nearest one (within a window of the next few) with the
    fewest earlier meetings at the table."""
    rest = list(order)
    tables = []
    window = 8 * size
    while rest:
        table = [rest.pop(0)]
        while len(table) < size:
            best, fewest = 0, None
            for i in range(min(window, len(rest))):
                count = sum(met.get(pair(rest[i], m), 0) for m in table)
                if fewest is None or count < fewest:
                    best, fewest = i, count
                    if count == 0:
                        break
            table.append(rest.pop(best))
        tables.append(table)
    return tables


def _repair(tables: list[list[int]], met: Counter[Pair], rank: dict[int, int]) -> None:
    """Swap players between tables while that lowers the repeat meetings (nearest tables first, so the
    score groups move as little as possible)."""

    def cost(table: list[int]) -> int:
        return sum(met.get(pair(a, b), 0) for a, b in combinations(table, 2))

    improved = True
    while improved:
        improved = False
        for ti, table in enumerate(tables):
            if cost(table) == 0:
                continue
            others = sorted((tj for tj in range(len(tables)) if tj != ti), key=lambda tj: abs(tj - ti))
            for tj in others:
                other = tables[tj]
                before = cost(table) + cost(other)
                for a in range(len(table)):
                    for b in range(len(other)):
                        x, y = table[a], other[b]
                        table[a], other[b] = y, x
                        if cost(table) + cost(other) < before:
                            improved = True
                            break
                        table[a], other[b] = x, y
                    if improved:
                        break
                if improved:
                    break
            if improved:
                break
    for table in tables:
        table.sort(key=lambda p: rank[p])
    tables.sort(key=lambda tb: rank[tb[0]])


def swiss(players: Sequence[Player], size: int, met: Counter[Pair], seed: int,
          budget: int = SEARCH_NODES) -> Pairing:
    """A Swiss round: tables of ``size`` by score, then rating, with no two players who met before at
    one table wherever the search finds such a seating; the remainder (``len % size``) gets byes.

    The exact search (depth first in score order) finds a seating without repeats whenever one exists
    and the search fits its budget (always for fields up to a dozen or so); beyond the budget the
    greedy seating is repaired by swaps, which lowers the repeats without promising the minimum."""
    rng = random.Random(seed)
    byes = choose_byes(players, len(players) % size, rng)
    out = set(byes)
    tie = {p.id: rng.random() for p in players}
    playing = sorted((p for p in players if p.id not in out), key=lambda p: (-p.score, -p.rating, tie[p.id]))
    order = [p.id for p in playing]
    rank = {pid: i for i, pid in enumerate(order)}
    tables = _search(order, size, _neighbours(met), budget) if order else []
    if tables is None:
        tables = _greedy(order, size, met)
        _repair(tables, met, rank)
    return Pairing(tables=tables, byes=byes)


# -- round robin ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Balance:
    """How evenly a schedule lets players meet: every pair meets between ``low`` and ``high`` times;
    ``ideal`` is the tightest range the table size allows (the average meetings per pair rounded down
    and up)."""

    low: int
    high: int
    ideal: tuple[int, int]
    at_high: int  # pairs that meet ``high`` times

    @property
    def optimal(self) -> bool:
        return (self.low, self.high) == self.ideal or self.low == self.high

    def describe(self) -> str:
        if self.low == self.high:
            return f"every pair meets {self.low} time(s)"
        return f"every pair meets {self.low}–{self.high} times ({self.at_high} pairs {self.high} times)"


@dataclass
class Schedule:
    rounds: list[Pairing]
    balance: Balance


def robin_rounds(n: int, size: int) -> int:
    """The fewest rounds in which a player can meet everyone once (byes counted)."""
    if n <= size:
        return 1
    seated = n - n % size
    return math.ceil((n - 1) / (size - 1) * n / seated)


def balance(ids: Sequence[int], rounds: Sequence[Pairing]) -> Balance:
    met = meetings(table for r in rounds for table in r.tables)
    counts = [met.get(pair(a, b), 0) for a, b in combinations(sorted(ids), 2)] or [0]
    total, pairs = sum(counts), len(counts)
    low, high = min(counts), max(counts)
    return Balance(low, high, (total // pairs, -(-total // pairs)), counts.count(high))


def _anneal(people: list[int], size: int, n_rounds: int, rng: random.Random, steps: int) -> list[Pairing]:
    """One seeded simulated annealing run: byes spread first, then swaps of two players of one round
    between tables, judged by (pairs never met) x 1000 + the sum of 4 ** meetings over the pairs (least
    when the counts are narrowest); a worse swap is taken with a probability that cools."""
    n = len(people)
    n_byes = n % size
    byes_so_far = [0] * n
    plan: list[list[list[int]]] = []  # positions 0..n-1, not ids
    plan_byes: list[list[int]] = []
    for _r in range(n_rounds):
        order = sorted(range(n), key=lambda p: (byes_so_far[p], rng.random()))
        out = order[:n_byes]
        for p in out:
            byes_so_far[p] += 1
        seated = order[n_byes:]
        rng.shuffle(seated)
        plan.append([seated[i:i + size] for i in range(0, len(seated), size)])
        plan_byes.append(sorted(out))
    met = [[0] * n for _ in range(n)]
    for rnd in plan:
        for table in rnd:
            for a, b in combinations(table, 2):
                met[a][b] += 1
                met[b][a] += 1

    def weight(c: int) -> int:
        return 4 ** c + (1000 if c == 0 else 0)  # steep: one pair met often costs more than many a little

    cost = sum(weight(met[a][b]) for a, b in combinations(range(n), 2))
    best_cost, best = cost, [[list(t) for t in rnd] for rnd in plan]
    movable = [r for r in range(n_rounds) if len(plan[r]) > 1]
    for step in range(steps if movable else 0):
        temp = 3.0 * (1 - step / steps) + 0.05
        rnd = plan[movable[rng.randrange(len(movable))]]
        ti, tj = rng.sample(range(len(rnd)), 2)
        a, b = rng.randrange(size), rng.randrange(size)
        ta, tb = rnd[ti], rnd[tj]
        x, y = ta[a], tb[b]
        delta = 0
        for p in ta:
            if p != x:
                delta += weight(met[x][p] - 1) - weight(met[x][p]) + weight(met[y][p] + 1) - weight(met[y][p])
        for q in tb:
            if q != y:
                delta += weight(met[y][q] - 1) - weight(met[y][q]) + weight(met[x][q] + 1) - weight(met[x][q])
        if delta <= 0 or rng.random() < math.exp(-delta / temp):
            for p in ta:
                if p != x:
                    met[x][p] -= 1
                    met[p][x] -= 1
                    met[y][p] += 1
                    met[p][y] += 1
            for q in tb:
                if q != y:
                    met[y][q] -= 1
                    met[q][y] -= 1
                    met[x][q] += 1
                    met[q][x] += 1
            ta[a], tb[b] = y, x
            cost += delta
            if cost < best_cost:
                best_cost, best = cost, [[list(t) for t in r] for r in plan]
    return [Pairing([sorted(people[p] for p in t) for t in rnd], [people[p] for p in b])
            for rnd, b in zip(best, plan_byes, strict=True)]


def _fitness(b: Balance) -> tuple[int, int, int]:
    return (-min(b.low, 1), b.high - b.low, b.at_high)


def _done(b: Balance) -> bool:
    """Nothing better to look for: everyone meets and the counts differ by at most one."""
    return b.low >= 1 and b.high - b.low <= 1


def round_robin(ids: Sequence[int], size: int, seed: int, rounds: int | None = None,
                restarts: int = 4, steps: int = 3000) -> Schedule:
    """All the rounds at once: tables of ``size`` (byes for the remainder, spread), chosen so that every
    pair meets and pairs meet as evenly as possible (seeded annealing, the best of a few runs). Without
    ``rounds``, the fewest rounds from the least that could work up to three more whose schedule lets
    everyone meet everyone with the narrowest range of meetings. For small fields (3–6-player tables,
    a few dozen players)."""
    rng = random.Random(seed)
    people = sorted(ids)
    choices = [rounds] if rounds else [robin_rounds(len(people), size) + k for k in range(4)]
    chosen: Schedule | None = None
    for n_rounds in choices:
        best: list[Pairing] | None = None
        for _ in range(restarts):
            plan = _anneal(people, size, n_rounds, rng, steps)
            if best is None or _fitness(balance(people, plan)) < _fitness(balance(people, best)):
                best = plan
            if _done(balance(people, best)):
                break
        assert best is not None
        found = Schedule(best, balance(people, best))
        if chosen is None or _fitness(found.balance)[:2] < _fitness(chosen.balance)[:2]:
            chosen = found  # more rounds only for a narrower range
        if _done(chosen.balance):
            break
    assert chosen is not None
    return chosen


# -- knockout ------------------------------------------------------------------------------------------
def split_sizes(n: int, size: int, min_size: int) -> list[int]:
    """Table sizes for ``n`` players in as few tables of at most ``size`` as possible, as even as possible;
    empty when even tables would fall below ``min_size``."""
    if n <= 0:
        return []
    count = math.ceil(n / size)
    base, extra = divmod(n, count)
    if base < min_size:
        return []
    return [base + 1] * extra + [base] * (count - extra)


def knockout(seeded: Sequence[int], size: int, min_size: int) -> Pairing:
    """A knockout round: players in seed order dealt to tables in a snake (1, 2, 3, 3, 2, 1 ...) so each
    table gets an even share of the strong. When even tables cannot be made, the top seeds get byes."""
    people = list(seeded)
    byes: list[int] = []
    sizes = split_sizes(len(people), size, min_size)
    while not sizes and people:
        byes.append(people.pop(0))
        sizes = split_sizes(len(people), size, min_size)
    tables: list[list[int]] = [[] for _ in sizes]
    order = list(range(len(sizes)))
    i = 0
    for p in people:
        while True:
            lap, pos = divmod(i, len(order))
            ti = order[pos] if lap % 2 == 0 else order[-1 - pos]
            i += 1
            if len(tables[ti]) < sizes[ti]:
                tables[ti].append(p)
                break
    return Pairing(tables=tables, byes=byes)


def advancing(size: int, final_size: int) -> int:
    """How many of each knockout table go through: half of it, at least one."""
    return max(1, size // 2) if size > final_size else 0
