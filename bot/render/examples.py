"""Synthetic Carnival views and sheets in the engine's format, for the gallery, tests and benchmark.

They follow the view format of the brief (engine/tricks.py keys plus Carnival's), so the
pictures can be built and checked before (and independently of) the engine's own views.
"""

from __future__ import annotations

import random
from typing import Any

NAMES_3 = ["Alice", "Борис", "Chen 🎉"]
NAMES_6 = [
    "Alice",
    "Борис Длинноимённый-Преоченьдлинный Третий",
    "Chen 🎉🔥",
    "Daria & <Co>",
    "Екатерина",
    "Frank the extraordinarily long-named player of cards",
]


PAIR = "carnival"  # the engine's ``kind`` of a Carnival pair trick: draw the examples with ``pair_kind=PAIR``


def carnival_points(bid: int, took: int) -> int:
    """Seed scoring (RULES.md 1.2), only to make plausible synthetic sheets."""
    if took == bid:
        return 10 * bid if bid else 5
    if took < bid:
        return took
    return 10 * bid - 20 * (took - bid)


def sheet_example(n: int, deals_played: int, seed: int = 1) -> dict[str, Any]:
    """A sheet after ``deals_played`` finished deals of an n-player game (4 quarters of n deals)."""
    rng = random.Random(seed)
    deals: list[dict[str, Any]] = []
    quarter_results: list[dict[str, Any]] = []
    totals = [0] * n
    for k in range(deals_played):
        quarter, in_q = divmod(k, n)
        hand = 6 + 2 * quarter
        tricks = [0] * n
        for _ in range(hand):
            tricks[rng.randrange(n)] += 1
        bids = [max(0, min(hand, t + rng.choice([0, 0, 0, -1, 1, 2]))) for t in tricks]
        points = [carnival_points(b, t) for b, t in zip(bids, tricks, strict=True)]
        deals.append({"quarter": quarter + 1, "deal_no": k + 1, "hand_size": hand, "dealer": (in_q - 1) % n,
                      "leader": in_q, "trump": "SHDC"[rng.randrange(4)], "bids": bids, "tricks": tricks,
                      "points": points})
        if in_q == n - 1:
            q_deals = deals[-n:]
            raw = [sum(d["points"][s] for d in q_deals) for s in range(n)]
            premium = [60 if all(d["bids"][s] == d["tricks"][s] for d in q_deals) else 0 for s in range(n)]
            penalty = [-60 if raw[s] < 0 else 0 for s in range(n)]
            final = [raw[s] + premium[s] + penalty[s] for s in range(n)]
            quarter_results.append({"quarter": quarter + 1, "raw": raw, "premium": premium, "penalty": penalty,
                                    "final": final})
            totals = [t + f for t, f in zip(totals, final, strict=True)]
    if quarter_results:
        # make sure the seed's two special cases show up: a penalty and a premium
        qr = quarter_results[0]
        qr["raw"][0], qr["penalty"][0], qr["premium"][0] = -8, -60, 0
        qr["raw"][1 % n], qr["premium"][1 % n], qr["penalty"][1 % n] = 45, 60, 0
        qr["final"] = [r + p + q for r, p, q in zip(qr["raw"], qr["premium"], qr["penalty"], strict=True)]
        totals = [sum(q["final"][s] for q in quarter_results) for s in range(n)]
    return {"players": n, "quarters": 4, "deals": deals, "quarter_results": quarter_results, "totals": totals}


def table_example(n: int, *, carnival: bool = False, joker: bool = True) -> dict[str, Any]:
    """A view in the middle of a trick: a joker played over (or a Carnival pair led), one seat to play."""
    hand = 8
    leader = 1 % n
    order = [(leader + i) % n for i in range(n)]
    if carnival:
        plays = [{"seat": order[0], "cards": ["QS", "QS"], "place": None}]
        responses = [["7H", "9C"], ["KS", "KS"], ["JK", "6D"], ["8C", "8D"], ["AH", "10C"]]
        for i, seat in enumerate(order[1:-1]):
            plays.append({"seat": seat, "cards": responses[i % len(responses)], "place": None})
        best = order[2] if n > 3 else order[0]
        trick = {"leader": leader, "kind": "carnival", "lead_mode": None, "plays": plays, "best": best}
    else:
        cards = ["10S", "JK" if joker else "KS", "AS", "6S", "10S", "QS", "9S"]
        plays = []
        for i, seat in enumerate(order[:-1]):
            place = "over" if cards[i] == "JK" else ("under" if i == 4 else None)
            plays.append({"seat": seat, "cards": [cards[i]], "place": place})
        best = order[1] if n > 2 else order[0]
        trick = {"leader": leader, "kind": "single", "lead_mode": None, "plays": plays, "best": best}
    bids = [(i * 2 + 1) % 4 for i in range(n)]
    return {
        "game": "carnival", "players": n, "seat": None, "to_act": order[-1], "over": False,
        "scores": [40 * i - 30 for i in range(n)], "phase": "play", "quarter": 2, "deal_in_quarter": 2,
        "deal_no": n + 2, "deals_total": 4 * n, "hand_size": hand, "dealer": leader - 1 if leader else n - 1,
        "leader": leader, "trump": "H", "trump_card": "9H", "bids": bids, "tricks": [i % 3 for i in range(n)],
        "forbidden_bid": None, "hand_counts": [5 if s in order[:-1] else 6 for s in range(n)],
        "hand": ["AS", "AS"],  # a viewer's hand: the group picture must never show it
        "trick": trick, "last_trick": None,
    }


def last_trick_example(n: int) -> dict[str, Any]:
    """Between tricks: the current trick is empty, the last one (a low-joker lead) is shown with its winner."""
    view = table_example(n)
    order = [(1 + i) % n for i in range(n)]
    cards = ["JK", "QH", "QD", "AC", "7S", "8S", "6C"]
    plays = [{"seat": s, "cards": [cards[i]], "place": "over" if i == 2 else None} for i, s in enumerate(order)]
    view["last_trick"] = {"leader": order[0], "kind": "single", "lead_mode": "low", "plays": plays,
                          "best": order[2], "winner": order[2]}
    view["trick"] = {"leader": order[2], "kind": "single", "lead_mode": None, "plays": [], "best": None}
    view["to_act"] = order[2]
    return view


def bid_example(n: int) -> dict[str, Any]:
    """The bidding phase: some bids made, the last bidder hooked."""
    view = table_example(n)
    view.update(phase="bid", trick=None, last_trick=None, tricks=[0] * n, to_act=(view["leader"] - 1) % n,
                hand_counts=[8] * n)
    bids: list[int | None] = [None] * n
    for i in range(n - 1):
        bids[(view["leader"] + i) % n] = i % 3
    view["bids"] = bids
    view["forbidden_bid"] = 8 - sum(b for b in bids if b is not None)
    return view
