"""Meld rules per variant (RULES.md 8-9), the joker rules of a move, the solver's choices and
the ``python -m engine meld`` door."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import cards
from engine.melds import (
    best_subset,
    check_layout,
    explain_no_solution,
    is_placed_joker,
    is_valid,
    parse_hand,
    parse_meld,
    parse_table,
    parse_table_card,
    placed_joker,
    registered_variants,
    solve,
    stands_for,
    table_card_str,
    table_str,
    why_invalid,
)

VARIANTS = registered_variants()  # every rummy's meld rules, by name

ROOT = Path(__file__).resolve().parents[2]
T = parse_table
H = parse_hand


# -- RULES.md 9.7: the run validity table ---------------------------------------------

@pytest.mark.parametrize(("run", "valid_in", "invalid_in"), [
    ("QH KH AH", ["carousel", "machiavelli", "manipulation"], ["shanghai"]),
    ("AH 2H 3H", ["carousel", "machiavelli", "shanghai"], ["manipulation"]),
    ("KH AH 2H", [], list(VARIANTS)),
])
def test_run_validity_table_of_rules_9_7(run: str, valid_in: list[str], invalid_in: list[str]) -> None:
    meld = parse_meld(run)
    for name in valid_in:
        assert is_valid(VARIANTS[name], meld), name
    for name in invalid_in:
        reason = why_invalid(VARIANTS[name], meld)
        assert reason is not None and "not a run" in reason, name


def test_ace_rules_of_the_other_variants() -> None:
    for name in ("carousel_culbertson", "tahiti", "guadalupe", "vatican"):  # high or low, never around
        v = VARIANTS[name]
        assert is_valid(v, parse_meld("QS KS AS")) and is_valid(v, parse_meld("AS 2S 3S"))
        assert not is_valid(v, parse_meld("KS AS 2S"))
    assert not is_valid(VARIANTS["carousel"], parse_meld("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"))


def test_sets_and_their_limits() -> None:
    v = VARIANTS["machiavelli"]
    assert is_valid(v, parse_meld("7S 7H 7D")) and is_valid(v, parse_meld("7S 7H 7D 7C"))
    assert "twice" in str(why_invalid(v, parse_meld("7S 7H 7H")))  # double pack: identical cards never share a set
    assert "at least 3" in str(why_invalid(v, parse_meld("7S 7H")))
    assert "neither a set" in str(why_invalid(v, parse_meld("7S 8H 9D")))
    assert "7S-8S-10S" in str(why_invalid(v, parse_meld("7S 8S 10S")))


def test_joker_meld_rules() -> None:
    assert "has no jokers" in str(why_invalid(VARIANTS["machiavelli"], parse_meld("7S 8S JK=9S")))
    assert is_valid(VARIANTS["carousel"], parse_meld("7S JK=8S JK=9S"))
    assert "at most 1" in str(why_invalid(VARIANTS["tahiti"], parse_meld("7S JK=8S JK=9S")))
    assert "must say what it stands for" in str(why_invalid(VARIANTS["carousel"], [cards.JOKER, 23, 24]))
    assert "twice" in str(why_invalid(VARIANTS["carousel"], parse_meld("7S 7H JK=7H")))


def test_placed_joker_notation_round_trips() -> None:
    x = parse_table_card("JK=7H")
    assert is_placed_joker(x) and stands_for(x) == cards.parse_card("7H") and x == placed_joker(stands_for(x))
    assert table_card_str(x) == "JK=7H" and table_card_str(cards.JOKER) == "JK"
    text = "7H-8H-JK=9H | 5S-5H-5D"
    assert table_str(parse_table(text)) == text


# -- the joker rules of a move ----------------------------------------------------------

def test_carousel_joker_is_released_only_by_its_real_card() -> None:
    v = VARIANTS["carousel"]
    table = T("8H 9H JK=10H")
    # RULES 8.2 / seed: 6H cannot be added by turning the joker into a 7H...
    assert solve(v, table, H("6H")) is None
    assert "keeps its meaning" in str(check_layout(v, table, H("6H"), T("6H JK=7H 8H 9H")))
    # ...but a player with the real 10H may release it and use the joker elsewhere
    sol = solve(v, table, H("10H 6H"))
    assert sol is not None and sol.released_jokers == [cards.parse_card("10H")]
    assert check_layout(v, table, H("10H 6H"), sol.table) is None
    # the seed's alternative: 7H, 10S, 10D laid with the joker moved (meaning kept) to a set of tens
    sol = solve(v, table, H("7H 10S 10D"))
    assert sol is not None and sorted(map(sorted, sol.table)) == sorted(map(sorted, T("7H 8H 9H | 10S JK=10H 10D")))


def test_carousel_real_card_may_come_from_the_table() -> None:
    v = VARIANTS["carousel"]
    table = T("8H 9H JK=10H | 10H 10S 10D 10C")
    assert check_layout(v, table, H("6S 7S"), T("8H 9H 10H | 10S 10D 10C | 6S 7S JK=8S")) is None


def test_tahiti_joker_meld_is_frozen_and_swap_card_comes_from_hand() -> None:
    v = VARIANTS["tahiti"]
    table = T("8H 9H JK=10H | 10S 10D 10C")
    # the 10H on the table cannot release the joker (hand only)...
    assert solve(v, T("8H 9H JK=10H | 10H 10S 10D 10C"), H("6S 7S")) is None
    # ...and the frozen meld cannot be rearranged
    assert "cannot change" in str(check_layout(v, table, H("7H"), T("7H 8H 9H JK=10H | 10S 10D 10C")))
    assert solve(v, table, H("7H")) is None
    assert solve(VARIANTS["carousel"], table, H("7H")) is not None
    # with the real 10H from hand the joker is released and used elsewhere
    sol = solve(v, table, H("10H 6S 7S"))
    assert sol is not None and check_layout(v, table, H("10H 6S 7S"), sol.table) is None
    assert any(stands_for(x) == cards.parse_card("8S") for m in sol.table for x in m if is_placed_joker(x))


def test_tahiti_loose_singles_may_stay_or_be_used() -> None:
    v = VARIANTS["tahiti"]
    table = T("5S | KD | 9C")
    sol = solve(v, table, H("5H 5D"))
    assert sol is not None and sorted(map(sorted, sol.table)) == sorted(map(sorted, T("5S 5H 5D | KD | 9C")))
    assert "8S alone is not a meld" in str(check_layout(v, table, H("6S 7S 8S"), T("5S 6S 7S | KD | 9C | 8S")))
    assert check_layout(v, T("5S 6S 7S"), H("9C"), T("5S 6S 7S | 9C")) is not None


def test_vatican_joker_stays_in_its_meld_unless_replaced() -> None:
    v = VARIANTS["vatican"]
    table = T("8H 9H JK=10H")
    assert solve(v, table, H("7H 10S 10D")) is None  # the joker may not move to a set of tens
    assert solve(VARIANTS["carousel"], table, H("7H 10S 10D")) is not None  # in Carousel it may
    assert "cannot leave its meld" in str(check_layout(v, table, H("10S 10D 7H"), T("7H 8H 9H | 10S JK=10H 10D")))
    sol = solve(v, table, H("10H 10S 10D"))
    assert sol is not None and check_layout(v, table, H("10H 10S 10D"), sol.table) is None


# -- the solver's choices ---------------------------------------------------------------

def test_solver_keeps_old_melds_when_it_can() -> None:
    v = VARIANTS["machiavelli"]
    table = T("5S 6S 7S | 9H 10H JH | 2C 2D 2H")
    sol = solve(v, table, H("KD KC KS"))
    assert sol is not None and sol.kept == 3
    sol = solve(v, table, H("8S 8H"))  # 8S and 8H each extend a run: the set of twos stays
    assert sol is not None and sol.kept == 1 and check_layout(v, table, H("8S 8H"), sol.table) is None
    big = T("5S 6S 7S | 9H 10H JH | 2C 2D 2H | 4D 5D 6D 7D | QC QS QH | 8C 9C 10C JC")
    assert solve(v, big, H("4D")) is None  # a second 4D fits nowhere (no 3D, no other fours)
    sol = solve(v, big, H("3D"))
    assert sol is not None and sol.kept == 5 and parse_meld("3D 4D 5D 6D 7D") in sol.table


def test_solver_rearranges_the_whole_table_when_needed() -> None:
    v = VARIANTS["machiavelli"]
    table = T("5S 6S 7S | 5H 6H 7H | 5D 6D 7D")
    sol = solve(v, table, H("5C"))
    want = T("5S 5H 5D 5C | 6S 6H 6D | 7S 7H 7D")
    assert sol is not None and sorted(map(sorted, sol.table)) == sorted(map(sorted, want))
    assert check_layout(v, table, H("5C"), sol.table) is None
    assert solve(v, T("5S 6S 7S | 5H 6H 7H"), H("5C")) is None


def test_solver_is_deterministic() -> None:
    v = VARIANTS["carousel"]
    table = T("5S 6S 7S 8S | 5H 6H 7H | JK=5D 5C 5H | 9D 10D JD QD")
    added = H("8D 8H 4S")
    first = solve(v, table, added)
    assert first is not None
    for _ in range(3):
        again = solve(v, [list(m) for m in table], list(added))
        assert again is not None and again.table == first.table


def test_explain_names_a_card() -> None:
    v = VARIANTS["shanghai"]
    reason = explain_no_solution(v, T("5S 6S 7S"), H("KD"))
    assert "KD" in reason
    reason = explain_no_solution(v, T("JS QS KS"), H("AS"))
    assert "AS" in reason  # Shanghai: the ace is low only, Q-K-A does not exist


def test_best_subset() -> None:
    v = VARIANTS["manipulation"]
    table = T("5S 6S 7S | 9H 9D 9C")
    assert best_subset(v, table, H("8S 9S 2D KD QS")) == sorted(H("8S 9S"))
    assert best_subset(v, table, H("2D 3C KH")) == []
    assert sorted(best_subset(v, table, H("9S 4S 2D 2C 2H"))) == sorted(H("9S 4S 2D 2C 2H"))


# -- the command line -------------------------------------------------------------------

def _cli(*args: str) -> tuple[int, dict]:
    proc = subprocess.run([sys.executable, "-m", "engine", "meld", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout
    return proc.returncode, json.loads(lines[0])


def test_cli_solves_and_refuses() -> None:
    code, out = _cli("--variant", "carousel", "--table", '[["8H","9H","JK=10H"]]', "--add", "10H 6H")
    assert code == 0 and out["ok"] and out["released_jokers"] == ["10H"]
    assert sorted(map(sorted, out["table"])) == [sorted(["6H", "JK=7H", "8H", "9H", "10H"])]
    code, out = _cli("--variant", "carousel", "--table", '["8H-9H-JK=10H"]', "--add", "6H")
    assert code == 1 and out == {"ok": False, "reason": out["reason"]} and "6H" in out["reason"]
    code, out = _cli("--variant", "shanghai", "--table", '[["5S","6S","7S"]]', "--best-subset", "--hand", "8S 9S 2C")
    assert code == 0 and out["subset"] == ["8S", "9S"]


@pytest.mark.parametrize(("args", "needle"), [
    (["--variant", "bridge", "--add", "7H"], "bridge"),
    (["--variant", "carousel", "--table", "[[", "--add", "7H"], "not valid JSON"),
    (["--variant", "carousel", "--table", '[["8H","9H"]]', "--add", "7H"], "8H-9H"),
    (["--variant", "carousel", "--add", "7X"], "7X"),
    (["--variant", "carousel", "--add", "7H 8H", "--hand", "7H 9H"], "8H is not in the hand"),
])
def test_cli_bad_input_is_one_line_naming_the_part(args: list[str], needle: str) -> None:
    code, out = _cli(*args)
    assert code == 2 and out["ok"] is False and needle in out["error"]


@pytest.mark.parametrize(("layout", "needle"), [
    ('[["5S","6S","7S"]]', "8S is missing"),  # not a partition
    ('[["5S","6S","7S","8S"],["9S"]]', "9S is on the new table"),  # a card from nowhere
    ('[["5S","6S"],["7S","8S"]]', "5S-6S has 2 cards"),  # under the minimum
])
def test_cli_layout_refusals(layout: str, needle: str) -> None:
    code, out = _cli("--variant", "shanghai", "--table", '[["5S","6S","7S"]]', "--add", "8S", "--layout", layout)
    assert code == 1 and needle in out["reason"]


def test_cli_layout_joker_swap_against_the_rule() -> None:
    code, out = _cli("--variant", "tahiti", "--table", '[["8H","9H","JK=10H"],["10H","10S","10D"]]',
                     "--add", "6S 7S", "--layout", '[["8H","9H","10H"],["10S","10D","10C"],["6S","7S","JK=8S"]]')
    assert code == 1 and "10C" in out["reason"]
    code, out = _cli("--variant", "tahiti", "--table", '[["8H","9H","JK=10H"],["10H","10S","10D"]]',
                     "--add", "6S 7S", "--layout", '[["8H","9H","10H"],["10S","10D"],["6S","7S","JK=8S"]]')
    assert code == 1


@pytest.mark.parametrize("enabled", [True, False])
def test_solver_leaves_the_garbage_collector_as_it_found_it(enabled: bool) -> None:
    """The searches run with the collector paused (solver.gc_paused) and give it back."""
    import gc

    table = T("5S-6S-7S | 9H-9D-9C")
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        assert solve(VARIANTS["machiavelli"], table, H("8S 9S")) is not None
        assert gc.isenabled() is enabled
        assert best_subset(VARIANTS["machiavelli"], table, H("8S 9S KD")) == H("8S 9S")
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_overlapping_searches_in_threads_keep_the_collector_off_until_the_last_ends() -> None:
    """The bot searches in worker threads: when a search ends while another still runs, the collector stays
    off for the one still running (a plain save-and-restore switched it on under it), and the last search
    to end switches it back on."""
    import gc
    import threading

    from engine.melds.solver import gc_paused

    first_in, second_in, first_done = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    @gc_paused
    def first_search() -> None:
        first_in.set()
        second_in.wait(5)

    @gc_paused
    def second_search() -> None:
        second_in.set()
        first_done.wait(5)
        seen.append(gc.isenabled())  # the first search has ended; this one still runs

    was = gc.isenabled()
    gc.enable()
    try:
        first = threading.Thread(target=first_search)
        first.start()
        assert first_in.wait(5)
        second = threading.Thread(target=second_search)
        second.start()
        first.join(5)
        first_done.set()
        second.join(5)
        assert seen == [False]
        assert gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
