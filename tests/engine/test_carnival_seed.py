"""The seed's worked example (RULES.md 1.4), every card of its three deals, through the public API.

Two OCR slips are read as RULES.md 1.3 item 9 decides: deal 1 trick 2 "5 бубен" is 8D, deal 2 trick 1
"валета червей" is AH. Seats: P1 = 0, P2 = 1, P3 = 2.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.record import load, replay, start

ROOT = Path(__file__).resolve().parents[2]
RECORD = Path(__file__).parent / "data" / "carnival_seed_example.json"
BIDS_0_6 = {f"bid {b}" for b in range(7)}


def _both(card: str) -> set[str]:
    return {f"play {card} over", f"play {card} under"}


# (seat, action, the legal set the seed implies or None). A set is asserted exactly.
DEAL_1 = [  # dealer P3, trump clubs, P1 leads
    (0, "bid 2", BIDS_0_6),
    (1, "bid 2", BIDS_0_6),
    (2, "bid 3", BIDS_0_6 - {"bid 2"}),  # "третий игрок не имеет права записать 2"
    # trick 1
    (0, "play AH", None),
    (1, "play JC", {"play JC"}),  # must trump: no hearts
    (2, "play 6H", {"play 6H"}),
    # trick 2 (P3's "5 бубен" read as 8D)
    (1, "play KD", None),
    (2, "play 8D", {"play 8D"}),
    (0, "play 9D", {"play 9D"} | _both("JK")),  # "может положить 9 бубен или джокер"
    # trick 3
    (1, "play 6D", None),
    (2, "play 10C", {"play KC", "play 10C", "play 6C"}),  # any trump, not KS
    (0, "play JK over", {"play 9C"} | _both("JK")),
    # trick 4
    (0, "play 7S", None),
    (1, "play 10S", {"play KS", "play QS", "play 10S"}),
    (2, "play KS", {"play KS"}),
    # trick 5
    (2, "play KC", None),
    (0, "play 9C", {"play 9C"}),  # "нельзя класть 10 пик"
    (1, "play KS", {"play KS", "play QS"}),  # no trumps: any card
    # trick 6
    (2, "play 6C", None),
    (0, "play 10S", {"play 10S"}),
    (1, "play QS", {"play QS"}),
]
DEAL_2 = [  # dealer P1, trump diamonds, P2 leads; P1 holds KH KH, P3 holds 9H 9H
    (1, "bid 0", BIDS_0_6),
    (2, "bid 4", BIDS_0_6),
    (0, "bid 3", BIDS_0_6 - {"bid 2"}),  # "нельзя 2"
    # trick 1 (P3's "валета червей" read as AH; 9H is legal too: the pair may be used singly)
    (1, "play AH", None),
    (2, "play JK over", _both("JK") | _both("AH") | {"play 9H"}),
    (0, "play QD", {"play KH", "play QD"}),  # KH KH set aside as a Carnival: must trump
    # tricks 2-3: the Carnival of nines, taken by the kings
    (2, "carnival 9H 9H", None),
    (0, "give KH KH", None),
    (1, "give 7H 8C", None),
    # trick 4
    (0, "play AS", None),
    (1, "play 8S", {"play 8S"}),
    (2, "play 6C", {"play AH", "play 10C", "play 6C"}),  # no spades, no trumps: any card
    # trick 5
    (0, "play QC", None),
    (1, "play JC", {"play JC"}),
    (2, "play 10C", {"play 10C"}),
    # trick 6
    (0, "play JS", None),
    (1, "play QH", {"play QH"}),
    (2, "play AH", {"play AH"}),
]
DEAL_3 = [  # dealer P2, trump spades, P3 leads
    (2, "bid 5", BIDS_0_6),
    (0, "bid 2", BIDS_0_6),
    (1, "bid 2", BIDS_0_6),  # 5 + 2 > 6: no restriction
    # trick 1
    (2, "play QC", None),
    (0, "play AC", {"play AC", "play 9C", "play 7C"}),  # "может положить только трефу"
    (1, "play AC over", _both("JK") | _both("AC")),  # over to take, under to give
    # trick 2
    (1, "play 10S", None),
    (2, "play JK over", _both("JK") | {"play AS", "play JS"}),  # only a spade or the joker
    (0, "play 7S", {"play 7S"}),
    # trick 3
    (2, "play AS", None),
    (0, "play 7C", {"play 7H", "play 9C", "play 7C", "play QD"}),  # any card
    (1, "play 6S", _both("JK") | {"play KS", "play 6S"}),  # only a trump or the joker
    # trick 4
    (2, "play JS", None),
    (0, "play 7H", None),
    (1, "play KS", None),
    # trick 5: the joker led low; the two non-trump queens are equal
    (1, "play JK low", None),
    (2, "play QH", {"play QH", "play KC"}),  # anything after a joker lead
    (0, "play QD over", {"play 9C"} | _both("QD")),
    # trick 6
    (0, "play 9C", None),
    (1, "play JD", None),
    (2, "play KC", None),
]
SCRIPT = DEAL_1 + DEAL_2 + DEAL_3
WINNERS = [[1, 1, 0, 2, 2, 2], [2, 0, 0, 0, 0], [1, 2, 2, 1, 0, 2]]  # per deal, in trick order
COUNTS = [[1] * 6, [1, 2, 1, 1, 1], [1] * 6]
POINTS = [[1, 20, 30], [-10, 5, 1], [1, 20, 3]]
BIDS = [[2, 2, 3], [3, 0, 4], [2, 2, 5]]
TRICKS = [[1, 2, 3], [5, 0, 1], [1, 2, 3]]
TRUMPS = ["C", "D", "S"]
DEALERS = [2, 0, 1]


@pytest.fixture(scope="module")
def record() -> dict:
    return load(RECORD)


def test_record_is_the_script(record: dict) -> None:
    assert record["game"] == "carnival" and record["players"] == ["P1", "P2", "P3"]
    assert record["options"]["quarters"] == 1
    assert [[s, a] for s, a, _ in SCRIPT] == record["actions"]


def test_every_legal_set_and_trick(record: dict) -> None:
    state = start(record)
    deal_events: list[list[dict]] = [[]]
    everything: list[dict] = []
    for seat, action, legal in SCRIPT:
        assert state.to_act == seat, action
        for other in range(3):
            if other != seat:
                assert state.legal_actions(other) == []
        if legal is not None:
            assert set(state.legal_actions(seat)) == legal, action
        events = state.act(seat, action)
        everything.extend(events)
        for event in events:
            deal_events[-1].append(event)
            if event["type"] == "deal_end":
                deal_events.append([])
    assert state.over
    for k in range(3):
        events = deal_events[k]
        deal = [e for e in events if e["type"] == "deal"]
        if k:  # deal 1 is announced at the start, before any action
            assert deal[0]["trump"] == TRUMPS[k] and deal[0]["dealer"] == DEALERS[k]
            assert deal[0]["leader"] == k
        tricks = [e for e in events if e["type"] == "trick"]
        assert [t["winner"] for t in tricks] == WINNERS[k]
        assert [t["count"] for t in tricks] == COUNTS[k]
        end = next(e for e in events if e["type"] == "deal_end")
        assert end["bids"] == BIDS[k] and end["tricks"] == TRICKS[k] and end["points"] == POINTS[k]
    assert [e["type"] for e in everything[-3:]] == ["deal_end", "quarter_end", "game_over"]
    assert sum(e["type"] == "quarter_end" for e in everything) == 1
    quarter = everything[-2]
    assert quarter["raw"] == [-8, 45, 34]
    assert quarter["final"] == [-68, 105, 34]
    over = everything[-1]
    assert over["scores"] == [-68, 105, 34] and over["winners"] == [1]


def test_first_deal_view(record: dict) -> None:
    state = start(record)
    view = state.view(0)
    assert view["trump"] == "C" and view["dealer"] == 2 and view["leader"] == 0
    assert view["hand"] == ["JK", "10S", "7S", "AH", "9D", "9C"]
    assert view["hand_counts"] == [6, 6, 6] and view["deals_total"] == 3


def test_replay_gives_the_quarter(record: dict) -> None:
    state = replay(record)
    assert state.over
    assert state.scores() == [-68, 105, 34]
    sheet = state.sheet()
    assert [d["points"] for d in sheet["deals"]] == POINTS
    assert [d["bids"] for d in sheet["deals"]] == BIDS
    assert [d["tricks"] for d in sheet["deals"]] == TRICKS
    assert [d["trump"] for d in sheet["deals"]] == TRUMPS
    assert [d["dealer"] for d in sheet["deals"]] == DEALERS
    (quarter,) = sheet["quarter_results"]
    assert quarter == {"quarter": 1, "raw": [-8, 45, 34], "premium": [0, 60, 0], "penalty": [-60, 0, 0],
                       "final": [-68, 105, 34]}
    assert sheet["totals"] == [-68, 105, 34]


def test_cli_replay_prints_the_quarter() -> None:
    done = subprocess.run([sys.executable, "-m", "engine", "replay", str(RECORD)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["over"] is True and out["scores"] == [-68, 105, 34]
    (quarter,) = out["sheet"]["quarter_results"]
    assert quarter["raw"] == [-8, 45, 34] and quarter["final"] == [-68, 105, 34]
    assert quarter["premium"] == [0, 60, 0] and quarter["penalty"] == [-60, 0, 0]
