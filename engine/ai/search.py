"""The normal and strong levels: information-set Monte Carlo tree search (single-observer ISMCTS).

Each iteration deals the cards the seat cannot see afresh (``State.determinize``), walks the one
shared tree down the moves legal in that deal (UCB1 with availability counts, so a move seen in few
deals is not over-trusted), adds one node, plays the rest of the deal out at random and credits
every move on the path with its mover's result. A search ends with the deal in play: the result
is the mover's points this deal minus the others' average, on the game's scale (``Knowledge``). The
answer is the most visited move at the root.

Budget: ``budget_ms`` of thinking and at most ``max_iterations`` iterations, whichever ends first;
the tree grows by one node per iteration, so memory is bounded by the iteration cap.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.ai.knowledge import Knowledge, knowledge_of
from engine.core import State

# UCB's exploration (on the results' scale): in Oh Hell 0.35 played worse than 0.7, -0.49 per deal
# [-1.14, +0.15] over 100 deals at 300 iterations.
EXPLORATION = 0.7
MAX_ITERATIONS = 20_000
MAX_BRANCH = 40  # more moves than this (a thousand-odd discards): the root keeps the heuristic's picks
ROOT_KEEP = 12


def supports(state: State) -> bool:
    """Whether this game can be searched: it deals hidden cards afresh and has a deal counter."""
    return knowledge_of(state).deal_field is not None and type(state).determinize is not State.determinize


def searched_phase(state: State) -> bool:
    """Whether search plays this phase (a game may leave some to its heuristic: random roll-outs judge an
    auction by random tricks, noise where a count of trumps and aces is sound)."""
    return getattr(state, "phase", None) not in knowledge_of(state).heuristic_phases


class Node:
    __slots__ = ("mover", "visits", "avail", "total", "children")

    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.visits = 0
        self.avail = 1
        self.total = 0.0
        self.children: dict[int, Node] = {}


@dataclass
class SearchResult:
    action: str
    iterations: int
    nodes: int
    elapsed_ms: float
    visits: dict[str, int] = field(default_factory=dict)


def _rollout(state: State, deal: int, rng: random.Random, field_name: str, knows: Knowledge) -> list[int]:
    """Play to the end of deal number ``deal`` (or the game's horizon) on the integer fast path, by the
    game's roll-out policy (random where it has none); the scores then."""
    horizon = knows.horizon
    plies = horizon.plies * state.n if horizon else -1
    greedy = knows.greedy or None
    policy = knows.rollout
    while True:
        seat = state.current
        if seat is None or getattr(state, field_name) != deal:
            return state.scores()
        if horizon is not None and plies == 0:
            return horizon.outlook(state)
        plies -= 1
        actions = state.fast_legal()
        if policy is not None:
            state.fast_apply(policy(state, seat, actions, rng))
            continue
        if greedy is not None:
            better = [a for a in actions if state.action_to_text(a).startswith(greedy)]
            if better:
                actions = better
        state.fast_apply(actions[rng.randrange(len(actions))])


def _utilities(before: list[int], after: list[int], scale: float) -> list[float]:
    """Each seat's result: its points this deal minus the others' average, on the game's scale (a
    seat's own points alone played Oh Hell worse: -0.75 points per deal [-1.53, +0.03], 60 deals)."""
    delta = [a - b for a, b in zip(after, before, strict=True)]
    n = len(delta)
    total = sum(delta)
    return [(d - (total - d) / (n - 1)) / scale for d in delta] if n > 1 else [d / scale for d in delta]


def ismcts(
    state: State,
    seat: int,
    *,
    budget_ms: float,
    max_iterations: int = MAX_ITERATIONS,
    rng: random.Random | None = None,
    candidates: list[str] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """Search the move for ``seat`` (the seat to act) within the budget; see the module docstring.
    ``candidates`` restricts the root's moves (all legal moves by default)."""
    rng = rng or random.Random(0)
    legal = state.legal_actions(seat)
    if not legal:
        raise ValueError("no legal action for this seat")
    roots = candidates or legal
    started = clock()
    if len(roots) == 1:
        return SearchResult(roots[0], 0, 1, (clock() - started) * 1000)
    allowed_root = {state.text_to_action(a) for a in roots}
    knows = knowledge_of(state)
    if knows.deal_field is None:
        raise ValueError(f"{state.GAME_ID} names no deal field: search cannot play it")
    field_name = knows.deal_field
    scale = knows.scale
    deadline = started + budget_ms / 1000.0
    root = Node(seat)
    before = knows.horizon.outlook(state) if knows.horizon else state.scores()
    deal = getattr(state, field_name)
    nodes = 1
    iterations = 0
    max_iterations = min(max_iterations, MAX_ITERATIONS)
    while iterations < max_iterations and (iterations == 0 or clock() < deadline):
        iterations += 1
        sim = state.determinize(seat, rng)
        node = root
        path: list[Node] = []
        while True:  # the tree walk, on the integer fast path (fast_legal's list is read, never kept)
            mover = sim.current
            if mover is None or getattr(sim, field_name) != deal:
                break
            actions = sim.fast_legal()
            if node is root:
                actions = [a for a in actions if a in allowed_root]
            elif len(actions) > MAX_BRANCH:
                break
            children = node.children
            untried = [a for a in actions if a not in children]
            if untried:
                action = untried[rng.randrange(len(untried))]
                child = children[action] = Node(mover)
                nodes += 1
                for a in actions:
                    if a != action and a in children:
                        children[a].avail += 1
                sim.fast_apply(action)
                path.append(child)
                break
            best_value = -math.inf
            best_action = actions[0]
            for a in actions:  # UCB1 over the moves available in this deal, each by its own availability
                ch = children[a]
                ch.avail += 1
                value = ch.total / ch.visits + EXPLORATION * math.sqrt(math.log(ch.avail) / ch.visits)
                if value > best_value:
                    best_value, best_action = value, a
            node = children[best_action]
            sim.fast_apply(best_action)
            path.append(node)
        utility = _utilities(before, _rollout(sim, deal, rng, field_name, knows), scale)
        for visited in path:
            visited.visits += 1
            visited.total += utility[visited.mover]
    text = state.action_to_text
    visits = {text(a): ch.visits for a, ch in root.children.items()}
    totals = {text(a): ch.total for a, ch in root.children.items()}
    best = max(roots, key=lambda a: (visits.get(a, 0), totals.get(a, 0.0)))
    return SearchResult(best, iterations, nodes, (clock() - started) * 1000, visits)
