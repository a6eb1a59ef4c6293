"""Karusele: the RULES.md section 7 acceptance cases, explicit-deal replays, and random games
checked move by move against an independent brute-force validator written here (it shares no
code with the engine's move generator: it works on the text view and plain Python sets)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from engine.cards import cards_str, deck, parse_card
from engine.core import GameError, IllegalAction, OptionsError, get_game
from engine.record import make_record, replay
from engine.selfplay import play_game

DATA = Path(__file__).parent / "data"
GAME = get_game("karusele")

# -- the independent rules, on card texts --------------------------------------------------

VALUES = {"A": 1, **{str(n): n for n in range(2, 11)}}
JOKERS = {"J11": 11, "J15": 15, "J20": 20}


def val(card: str) -> int | None:
    if card in JOKERS:
        return JOKERS[card]
    if card == "BR":
        return None
    return VALUES.get(card[:-1])


def court(card: str) -> bool:
    return card not in JOKERS and card != "BR" and card[:-1] in ("J", "Q", "K")


def item_val(cards: tuple[str, ...]) -> int | None:
    if len(cards) == 1:
        return val(cards[0])
    return sum(val(c) for c in cards)  # type: ignore[misc]


def has_sum(values: list[int], target: int) -> bool:
    """Is there a non-empty sub-multiset of ``values`` adding up to ``target``?"""
    sums = {0}
    for x in values:
        sums |= {s + x for s in sums if s + x <= target}
    return target in sums


def splits_into(values: list[int], target: int) -> bool:
    """Can ``values`` be split into groups each adding up to ``target``? (brute force)"""
    if not values:
        return True
    first, rest = values[0], values[1:]
    for r in range(len(rest) + 1):
        for combo in itertools.combinations(range(len(rest)), r):
            if first + sum(rest[i] for i in combo) == target:
                left = [x for i, x in enumerate(rest) if i not in combo]
                if splits_into(left, target):
                    return True
    return False


def capture_ok(card: str, table: list[tuple[str, ...]], taken: list[tuple[str, ...]]) -> bool:
    """Is taking exactly the items ``taken`` with ``card`` legal? Every item of the card's value,
    builds whole, the loose rest split into groups of the value (a product decision: the groups are the
    player's choice, so loose cards that would still make a group may stay behind)."""
    if court(card):
        same = [it for it in table if len(it) == 1 and court(it[0]) and it[0][:-1] == card[:-1]]
        return all(it in same for it in taken) and (len(taken) == 1 or (len(taken) == 3 == len(same)))
    v = val(card)
    if v is None or not taken:
        return False
    rest = [it for it in table if it not in taken]
    if any(item_val(it) == v for it in rest):  # everything of the card's value goes
        return False
    loose_taken = []
    for it in taken:
        iv = item_val(it)
        if iv is None or iv > v or (len(it) > 1 and iv != v):
            return False  # courts never, builds only whole and equal
        if iv < v:
            loose_taken.append(iv)
    return splits_into(sorted(loose_taken, reverse=True), v)


def parse_groups(words: list[str]) -> list[tuple[str, ...]]:
    return [tuple(w.strip("()").split("+")) for w in words]


def check_move(view: dict[str, Any], hand: list[str], action: str, after: dict[str, Any], seat: int) -> None:
    """Validate one applied move from the public table before and after, and the mover's hand."""
    table = [tuple(it["cards"]) for it in view["table"]]
    builds = {tuple(it["cards"]): it for it in view["table"] if it.get("build")}
    verb, card, *rest = action.split()
    assert card in hand, action
    new_table = [tuple(it["cards"]) for it in after["table"]]
    if verb == "trail":
        assert card != "BR"
        if after["deal_no"] == view["deal_no"] and after["table"]:
            assert new_table == [*table, (card,)]
        return
    if verb == "sweep":
        assert card == "BR" and not rest
        return
    if verb == "take":
        groups = parse_groups(rest)
        taken: list[tuple[str, ...]] = []
        for g in groups:
            if g in table:
                taken.append(g)  # one card or one build
            else:
                assert all((c,) in table for c in g), f"{action}: {g} not loose on the table"
                assert len(g) >= 2 and sum(val(c) for c in g) == val(card), f"{action}: bad sum group {g}"  # type: ignore[misc]
                taken.extend((c,) for c in g)
        assert len(set(taken)) == len(taken), f"{action}: groups overlap"
        assert capture_ok(card, table, taken), f"{action} is not a legal capture on {table}"
        return
    assert verb == "build", action
    base, extras = parse_groups(rest[:1])[0], parse_groups(rest[1:])
    assert base in table, action
    v, bv = val(card), item_val(base)
    assert v is not None and bv is not None
    total = v + bv
    assert any(val(c) == total for c in hand if c != card), f"{action}: no card of {total} kept in hand"
    used = {base}
    for g in extras:
        assert len(g) >= 2 and all((c,) in table for c in g) and sum(val(c) for c in g) == total  # type: ignore[misc]
        assert not used & {(c,) for c in g}
        used |= {(c,) for c in g}
    if extras:
        leftover = [item_val(it) for it in table if it not in used and len(it) == 1 and (item_val(it) or 99) < total]
        assert not has_sum(leftover, total), f"{action}: a further group of {total} was left loose"  # type: ignore[arg-type]
    if after["deal_no"] == view["deal_no"] and after["table"]:
        made = [it for it in after["table"] if it.get("build") and tuple(it["cards"]) not in builds]
        want = {(*base, card), *extras}
        assert {tuple(it["cards"]) for it in made} >= want, f"{action}: builds not on the table"
        for it in made:
            if tuple(it["cards"]) in want:
                assert it["owner"] == seat and it["value"] == total


def all_captures(card: str, table: list[tuple[str, ...]]) -> set[frozenset[str]]:
    """Every legal capture of ``card`` as a set of cards, by trying every subset of the table."""
    out = set()
    loose = [it for it in table if len(it) == 1]
    builds = [it for it in table if len(it) > 1]
    for r in range(1, len(loose) + 1):
        for combo in itertools.combinations(loose, r):
            for rb in range(len(builds) + 1):
                for bcombo in itertools.combinations(builds, rb):
                    taken = list(combo) + list(bcombo)
                    if capture_ok(card, table, taken):
                        out.add(frozenset(c for it in taken for c in it))
    for rb in range(1, len(builds) + 1):
        for bcombo in itertools.combinations(builds, rb):
            if capture_ok(card, table, list(bcombo)):
                out.add(frozenset(c for it in bcombo for c in it))
    return out


def deal_points(piles: list[list[str]], per: str) -> list[int]:
    """Independent scoring of one deal from the capture piles (one per side)."""
    pts = [0] * len(piles)
    specials = {"J20": 10, "J15": 5, "J11": 3, "10D": 2, "2S": 2}
    for i, pile in enumerate(piles):
        pts[i] += sum(specials.get(c, 0) for c in pile)
        pts[i] += sum(1 for c in pile if (c.endswith("S") if per == "spade" else c.startswith("A")) and c != "BR")
    for counts in ([len(p) for p in piles], [sum(1 for c in p if c.endswith("S") and c != "BR") for p in piles]):
        best = max(counts)
        leaders = [i for i, c in enumerate(counts) if c == best]
        for i in leaders:
            pts[i] += {1: 2, 2: 1}.get(len(leaders), 0)
    return pts


# -- building positions ----------------------------------------------------------------------

def start(hands: list[str], table: str, dealer: int | None = None, **options: Any):
    deal: dict[str, Any] = {"hands": [h.split() for h in hands], "table": table.split()}
    deal["dealer"] = len(hands) - 1 if dealer is None else dealer
    return GAME.new(len(hands), seed=7, options=options, deals=[deal])


def takes_for(state, card: str) -> list[str]:
    return [a for a in state.legal_actions() if a.split()[1] == card and a.split()[0] != "trail"]


# -- acceptance cases (RULES.md 7.4 and 15.7) ---------------------------------------------------

def test_ace_and_five_taken_by_six():
    s = start(["6S 2C 3C 4C", "KS KD KC QS"], "AD 5C 9H KH QH QD 8D 7D")
    assert takes_for(s, "6S") == ["take 6S AD+5C"]
    s.act(0, "take 6S AD+5C")
    assert sorted(s.piles[0]) == sorted(s.piles[0]) and len(s.piles[0]) == 3
    assert {c for c in s.view(0)["table"][0]["cards"]} == {"9H"}
    assert s.view(None)["captured"][0]["cards"] == 3 and s.view(None)["last_capturer"] == 0


def test_fifteen_joker_takes_eleven_joker_and_four():
    s = start(["J11 2C 3C 5S", "J15 KD KC QS"], "4D KH QH QD KS JH JD JC")
    s.act(0, "trail J11")
    assert takes_for(s, "J15") == ["take J15 4D+J11"]
    s.act(1, "take J15 4D+J11")
    assert sorted(c for c in s.view(None)["captured"][1]["specials"]) == ["J11", "J15"]


def test_court_cards_one_or_all_three():
    s = start(["JS 2C 3C 4C", "KS KD KC QS"], "JD JC JH 9H 9D 8D 8C QH")
    assert takes_for(s, "JS") == ["take JS JH JD JC", "take JS JH", "take JS JD", "take JS JC"]
    s = start(["JC 2C 3C 4C", "KS KD QC QS"], "JD JH 9H 9D 8D 8C QH 7C")
    moves = takes_for(s, "JC")
    assert moves == ["take JC JH", "take JC JD"]  # one of the two, never both


def test_equal_values_and_several_groups_at_once():
    s = start(["6S 2C 3C 4C", "KS KD KC QS"], "6D AH 5C 4H 2S KH QH QD")
    # 6D is taken with any capture (same value); the loose A 5 4 2 split as A+5 and 2+4.
    assert takes_for(s, "6S") == ["take 6S 6D AH+5C 2S+4H"]
    s.act(0, "take 6S 6D AH+5C 2S+4H")
    assert len(s.piles[0]) == 6


def test_capture_groups_are_the_players_choice():
    # The sample lists the largest captures; a smaller set of groups is legal as well.
    s = start(["6S KC KD KS", "QS QC QD JS"], "AD 5C 2H 3H 9H 9D 8D 8C")
    assert sorted(takes_for(s, "6S")) == ["take 6S AD+2H+3H", "take 6S AD+5C"]
    s = start(["6S 2C 3C 4C", "KS KD KC QS"], "6D AH 5C 4H 2S KH QH QD")
    assert s.is_legal(0, "take 6S 6D AH+5C") and s.is_legal(0, "take 6S 6D 2S+4H") and s.is_legal(0, "take 6S 6D")
    assert "6D is worth 6 too" in s.why_illegal("take 6S AH+5C")  # equal cards always go
    events = s.act(0, "take 6S 4H+2S 6D")
    assert events[0]["action"] == "take 6S 6D 2S+4H"
    assert sorted(it["cards"][0] for it in s.view(None)["table"]) == sorted(["AH", "5C", "KH", "QH", "QD"])


def _six_trails_position():
    """The 14-card table players met: 2C AC 4C 3C 6C 5C and AH-8H (six of the hearts trailed)."""
    s = start(["3H 5H 7H 10S", "4H 6H 8H KS"], "2C AC 4C 3C 6C 5C AH 2H")
    for action in ("trail 3H", "trail 4H", "trail 5H", "trail 6H", "trail 7H", "trail 8H"):
        s.act(s.to_act, action)
    return s


def test_issue13_capture_on_fourteen_cards_is_accepted():
    s = _six_trails_position()
    assert len(s.table) == 14
    action = "take 10S 2C+8H 3H+7H 4C+6H 5H+5C AC+3C+6C"
    assert s.is_legal(0, action)
    taken = {"2C", "8H", "3H", "7H", "4C", "6H", "5H", "5C", "AC", "3C", "6C"}
    left = {"AH", "2H", "4H"}
    for written in (action, "take 10s 6C+AC+3C 5C+5H 8H+2C 7H+3H 6H+4C",
                    "take 10S 2C 8H 3H 7H 4C 6H 5H 5C AC 3C 6C"):  # any order, grouping or case
        state = s.clone()
        events = state.act(0, written)
        assert events[0]["action"] == action and set(events[0]["cards"]) == taken
        assert {it["cards"][0] for it in state.view(None)["table"]} == left


def test_issue13_fifteen_joker_leaves_what_it_chooses():
    s = start(["J11 2C 3C 5S", "J15 KD KC QS"], "AH 5C JD 10C 8D 4D KH QH")
    s.act(0, "trail J11")
    assert s.why_illegal("take J15 5C+4D") == "5C+4D adds up to 9, not 15"
    events = s.act(1, "take J15 4D+J11")
    assert sorted(events[0]["cards"]) == ["4D", "J11"]
    left = {it["cards"][0] for it in s.view(None)["table"]}
    assert {"5C", "10C"} <= left and not {"4D", "J11"} & left


def test_refusals_name_what_is_wrong():
    s = _six_trails_position()
    cases = {
        "take 10S": "name the table cards that 10S takes",
        "take 10S 9D": "9D is not on the table",
        "take 10S 2C+8H 8H+2H": "8H is named twice",
        "take 10S AH+2H": "AH+2H adds up to 3, not 10",
        "take 10S AH 2H": "AH+2H add up to 3, which is not whole groups of 10",
        "take 10S 8H 6C 6H": "6H+6C+8H cannot be split into groups of 10 each",
        "take 9S 2C+7H": "9S is not in your hand",
        "take 10S X9": "X9 is not a card",
        "fish 10S 2C+8H": "unknown verb fish (take / sweep / build / trail)",
        "trail 10S 2C": "a trail is one card: write just trail 10S",
    }
    for action, reason in cases.items():
        before = s.to_json()
        with pytest.raises(IllegalAction) as err:
            s.act(0, action)
        assert err.value.reason == reason, action
        assert s.to_json() == before  # nothing changed
    b = start(["AH 6S 2C 3C", "AS 7C 5D KC"], "5C 9H KH QH JD JC QD KD")
    b.act(0, "build AH 5C")
    assert b.why_illegal("take 5D 5C") == "the build (5C+AH) is taken whole and on its own"
    assert b.why_illegal("build AS (AH+5C)") == "legal"  # a build named in any card order
    assert b.why_illegal("build 5D (5C+AH)") == "you need another card worth 11 in your hand to build 11"
    assert "worth 6 too" in start(["6S 2C 3C 4C", "KS KD KC QS"], "6D AH 5C 4H 2S KH QH QD").why_illegal(
        "take 6S AH+5C")


def test_broom_sweeps_and_is_never_trailed():
    s = start(["BR 2C 3C 4C", "KS KD KC QS"], "AD 5C 9H KH QH QD 8D 7D")
    moves = [a for a in s.legal_actions() if a.split()[1] == "BR"]
    assert moves == ["sweep BR"]
    assert "broom" in s.why_illegal("trail BR")
    s.act(0, "sweep BR")
    assert s.view(None)["table"] == [] and len(s.piles[0]) == 9 and s.last_capturer == 0


def test_broom_on_an_empty_table_takes_nothing():
    s = start(["6S BR 3C 4C", "KS KD KC 9S"], "AD 5C 9H KH QH QD 8D 7D")
    s.act(0, "take 6S AD+5C")
    s.act(1, "take 9S 9H")
    s.table = []  # as if everything had been taken
    s._legal_cache = None
    assert [a for a in s.legal_actions() if "BR" in a] == ["sweep BR"]
    s.last_capturer = 1
    s.act(0, "sweep BR")
    assert s.piles[0][-1] == _code("BR") and len(s.piles[0]) == 4
    assert s.last_capturer == 1  # took no card, so the table's rest would still go to seat 1


def test_seed_double_build_then_capture_next_turn():
    # RULES 7.2: table 4, 6, 5 and hand 5 + 10: one card makes two builds of 10.
    s = start(["5H 10S 2C 3C", "KS KD KC QS"], "4D 6C 5C 9H KH QH JD JC")
    legal = s.legal_actions()
    assert "build 5H 5C 4D+6C" in legal and "build 5H 5C" in legal
    s.act(0, "build 5H 5C 4D+6C")
    table = s.view(1)["table"]
    builds = [it for it in table if it.get("build")]
    assert {tuple(b["cards"]) for b in builds} == {("5C", "5H"), ("4D", "6C")}
    assert all(b["value"] == 10 and b["owner"] == 0 and b["since_turn"] == 1 for b in builds)
    s.act(1, "trail QS")
    assert "take 10S (4D+6C) (5C+5H)" in s.legal_actions()
    s.act(0, "take 10S (4D+6C) (5C+5H)")
    assert len(s.piles[0]) == 5


def test_builds_are_whole_and_can_be_raised_by_anyone_holding_the_total():
    s = start(["AH 6S 2C 3C", "AS 7C 5D KC"], "5C 9H KH QH JD JC QD KD")
    assert "build AH 5C" in s.legal_actions()
    assert "build 2C 3C" not in s.legal_actions()  # 3C is in hand, not on the table
    s.act(0, "build AH 5C")
    # the opponent's ace may not take the ace out of the build; 5D cannot take the 5 in it either
    assert not [a for a in s.legal_actions() if a.startswith(("take AS", "take 5D"))]
    assert "build AS (5C+AH)" in s.legal_actions()  # raise to 7: he holds 7C
    s.act(1, "build AS (5C+AH)")
    b = [it for it in s.view(0)["table"] if it.get("build")][0]
    assert b == {"cards": ["5C", "AH", "AS"], "value": 7, "build": True, "owner": 1, "since_turn": 2}
    assert not [a for a in s.legal_actions() if a.startswith("take 6S")]  # 6 no longer takes it


def test_build_needs_the_total_in_hand():
    s = start(["AH 5D 2C 3C", "AS 7C 8D KC"], "5C 9H KH QH JD JC QD KD")
    assert not [a for a in s.legal_actions() if a.startswith("build AH")]  # no 6 held
    assert "build AH 5C" in start(["AH 6D 2C 3C", "AS 7C 8D KC"], "5C 9H KH QH JD JC QD KD").legal_actions()


def test_scoring_39_and_30_and_ties():
    s = start(["6S 2C 3C 4C", "KS KD KC QS"], "AD 5C 9H KH QH QD 8D 7D")
    everything = cards_str(deck(56))
    spades = [c for c in everything if c.endswith("S")]
    rest = [c for c in everything if not c.endswith("S")]
    # seat 0: all 13 spades and 17 other cards (30 cards: most cards); seat 1 the other 26
    s.piles = [[_code(c) for c in spades + rest[:17]], [_code(c) for c in rest[17:]]]
    d = s._deal_points()
    extra = sum({"J20": 10, "J15": 5, "J11": 3, "10D": 2}.get(c, 0) for c in rest[:17])
    assert d["side_points"][0] == 13 + 2 + 2 + 2 + extra  # spades, 2S, most spades, most cards
    assert sum(d["side_points"]) == 39
    # exactly half the cards each: the most-cards 2 points are split 1 and 1
    s.piles = [[_code(c) for c in everything[:28]], [_code(c) for c in everything[28:]]]
    d = s._deal_points()
    assert d["categories"]["most_cards"] == [1, 1] and sum(d["side_points"]) == 39
    ace = start(["6S 2C 3C 4C", "KS KD KC QS"], "AD 5C 9H KH QH QD 8D 7D", point_per="ace")
    ace.piles = s.piles
    assert sum(ace._deal_points()["side_points"]) == 30
    assert ace._deal_points()["categories"]["aces"] == [2, 2]  # deck order: all S, all H, then D and C


def test_three_way_tie_on_most_scores_nothing():
    s = start(["6S 2C 3C 4C", "KS KD KC QS", "2H 3H 4H 5H"], "AD 5C 9H KH QH QD 8D 7D")
    from engine.cards import deck

    cards = deck(56)
    s.piles = [cards[0:18], cards[18:36], cards[36:54]]
    s.stock, s.hands, s.table = [], [[], [], []], []
    d = s._deal_points()
    assert d["categories"]["most_cards"] == [0, 0, 0]


def _code(text: str) -> int:
    return parse_card(text)


# -- deals, options, game end ------------------------------------------------------------------

def test_no_joker_or_broom_face_up_and_redeals():
    for seed in range(60):
        s = GAME.new(2 + seed % 3, seed=seed)
        table = [it["cards"][0] for it in s.view(None)["table"]]
        assert len(table) == 8 and not set(table) & {"J11", "J15", "J20", "BR"}
        assert s.view(0)["stock_count"] == 56 - 8 - 4 * s.n
    with pytest.raises(GameError):
        start(["6S 2C 3C 4C", "KS KD KC QS"], "J11 5C 9H KH QH QD 8D 7D")
    with pytest.raises(GameError):
        start(["6S 2C 3C 4C", "KS KD KC 6S"], "AD 5C 9H KH QH QD 8D 7D")


def test_options_and_player_counts():
    with pytest.raises(GameError):
        GAME.new(3, seed=1, options={"teams": True})
    with pytest.raises(OptionsError):
        GAME.new(2, seed=1, options={"point_per": "heart"})
    with pytest.raises(GameError):
        GAME.new(5, seed=1)
    s = GAME.new(4, seed=1, options={"teams": True, "target": 60})
    assert s.view(0)["teams"] == [[0, 2], [1, 3]]


def test_view_hides_other_hands():
    s = GAME.new(3, seed=3)
    assert s.view(1)["hand"] == cards_str(s.hands[1])
    assert "hand" not in s.view(None)
    for viewer in (None, 1, 2):
        text = json.dumps(s.view(viewer))
        assert not [c for c in cards_str(s.hands[0]) if f'"{c}"' in text]


def _last_move_state(deal_points: list[int], totals: list[int]):
    """Seat 1 to make the deal's last move (a trail); the deal then scores ``deal_points``."""
    s = start(["6S 2C 3C 4C", "KS KD KC QS"], "AD 5C 9H KH QH QD 8D 7D", target=100)
    s.stock = []
    s.hands = [[], [_code("4H")]]
    s.turn, s.last_capturer, s.totals = 1, 0, list(totals)
    s.history = [{"points": list(totals)}]
    s.piles = [[], []]
    s._deal_points = lambda: {"side_points": list(deal_points)}  # type: ignore[method-assign]
    s._legal_cache = None
    return s


def test_tie_at_the_top_plays_another_deal_and_target_ends():
    s = _last_move_state([20, 20], [90, 90])
    events = s.act(1, "trail 4H")
    assert [e["type"] for e in events][-2:] == ["deal_end", "deal"] and not s.over
    assert s.scores() == [110, 110] and s.deal_no == 2 and s.dealer == 0
    s = _last_move_state([21, 20], [90, 90])
    events = s.act(1, "trail 4H")
    assert events[-1]["type"] == "game_over" and s.over and s.winners() == [0]
    s = _last_move_state([5, 5], [90, 80])
    s.act(1, "trail 4H")
    assert not s.over  # 95 < 100


def test_seed_build_record_replays():
    record = json.loads((DATA / "karusele_seed_build.json").read_text(encoding="utf-8"))
    state = replay(record)
    assert sorted(cards_str(state.piles[0])) == sorted(["4D", "6C", "5C", "5H", "10S"])
    assert state.last_capturer == 0 and state.to_act == 1
    assert [it["cards"] for it in state.view(None)["table"]] == [["9H"], ["KH"], ["QH"], ["JD"], ["JC"], ["QS"]]


# -- random games against the independent checks -----------------------------------------------

CONFIGS = [
    (2, {}, "uniform"), (2, {}, "first"), (3, {}, "uniform"), (3, {"point_per": "ace"}, "first"),
    (4, {}, "uniform"), (4, {"teams": True}, "uniform"), (4, {"teams": True}, "first"), (2, {}, "last"),
    (3, {}, "last"),
]


@pytest.mark.parametrize(("players", "options", "policy"), CONFIGS)
def test_random_games_independent_checks(players: int, options: dict[str, Any], policy: str):
    games = 1 if policy == "last" else 3
    for g in range(games):
        seed = 100 * players + g
        final, actions = play_game("karusele", players, seed, policy, options, check_every=1 if g == 0 else 7)
        start_state = GAME.new(players, seed=seed, options=options)
        _replay_with_checks(start_state, actions, options)
        assert replay(make_record(start_state, actions)) == final
        assert final.over and max(final.scores()) >= final.options.target


def _replay_with_checks(state, actions, options: dict[str, Any]) -> None:
    per = options.get("point_per", "spade")
    teams = options.get("teams", False)
    sides = [[0, 2], [1, 3]] if teams else [[s] for s in range(state.n)]
    piles: list[list[str]] = [[] for _ in range(state.n)]
    completeness_checked = 0
    for seat, action in actions:
        before = state.view(seat)
        hand = list(before["hand"])
        table = [tuple(it["cards"]) for it in before["table"]]
        for a in state.legal_actions():  # the sample: canonical texts of legal moves
            assert state.canonical(a) == a, a
        if len(table) <= 9:
            for card in set(hand) - {"BR"}:
                if val(card) is None and not court(card):
                    continue
                engine_sets = {
                    frozenset(c for w in a.split()[2:] for c in w.strip("()").split("+"))
                    for a in state.legal_actions() if a.startswith(f"take {card} ")
                }
                legal_sets = all_captures(card, table)
                assert engine_sets <= legal_sets, f"captures of {card} on {table}"
                for taken in legal_sets:  # every legal capture is accepted, written any way
                    assert state.is_legal(seat, f"take {card} " + " ".join(sorted(taken, reverse=True)))
                completeness_checked += 1
        events = state.act(seat, action)
        after = state.view(seat)
        check_move(before, hand, action, after, seat)
        for ev in events:
            if ev["type"] in ("take", "sweep"):
                piles[ev["seat"]].extend([*ev["cards"], ev["card"]])
            elif ev["type"] == "rest":
                piles[ev["seat"]].extend(ev["cards"])
            elif ev["type"] == "deal_end":
                assert sum(len(p) for p in piles) == 56, "cards lost in the deal"
                side_piles = [[c for s in side for c in piles[s]] for side in sides]
                want = deal_points(side_piles, per)
                assert [want[next(i for i, sd in enumerate(sides) if s in sd)] for s in range(state.n)] == ev["points"]
                counts = ([len(p) for p in side_piles], [sum(c.endswith("S") for c in p) for p in side_piles])
                wide_ties = sum(1 for cs in counts if cs.count(max(cs)) >= 3)  # nobody scores those 2
                assert sum(want) == (39 if per == "spade" else 30) - 2 * wide_ties
                piles = [[] for _ in range(state.n)]
        for it in after["table"]:
            if it.get("build"):
                assert it["value"] == sum(val(c) for c in it["cards"])  # type: ignore[misc]
                assert 0 <= it["owner"] < state.n
    assert completeness_checked > 0


# -- every capture the player could make is accepted -----------------------------------------

NUMBER_CARDS = [c for c in cards_str(deck(56)) if val(c) is not None]


def _random_groups(rng, loose: list[str], v: int) -> list[list[str]]:
    """Random disjoint groups of ``loose`` each adding up to ``v``, built one at a time (constructive)."""
    pool = [c for c in loose if (val(c) or 99) < v]
    rng.shuffle(pool)
    groups: list[list[str]] = []
    wanted = rng.randint(0, 6)
    while len(groups) < wanted:
        found = _find_group(rng, pool, v)
        if found is None:
            break
        groups.append(found)
        pool = [c for c in pool if c not in found]
    return groups


def _find_group(rng, pool: list[str], v: int) -> list[str] | None:
    order = pool[:]
    rng.shuffle(order)

    def dfs(i: int, left: int, chosen: list[str]) -> list[str] | None:
        if left == 0:
            return chosen if len(chosen) >= 2 else None
        for j in range(i, len(order)):
            x = val(order[j]) or 99
            if x <= left:
                got = dfs(j + 1, left - x, [*chosen, order[j]])
                if got:
                    return got
        return None

    return dfs(0, v, [])


def _write(rng, card: str, equal: list[tuple[str, ...]], groups: list[list[str]]) -> str:
    """A capture written the way a person might: any order, grouped or not, any letter case."""
    words = []
    for it in equal:
        cards = list(it)
        rng.shuffle(cards)
        words.append(f"({'+'.join(cards)})" if len(cards) > 1 and rng.random() < 0.5 else "+".join(cards))
    for g in groups:
        g = g[:]
        rng.shuffle(g)
        words.extend(g if rng.random() < 0.3 else ["+".join(g)])
    rng.shuffle(words)
    text = f"take {card} " + " ".join(words)
    return text.lower() if rng.random() < 0.2 else text


def _random_position(rng, size: int):
    """A Karusele position with ``size`` table items (loose cards, courts, trailed jokers, builds)
    and one number card in seat 0's hand."""
    s = start(["6S 2C 3C 4C", "KS KD KC QS"], "AD 5C 9H KH QH QD 8D 7D")
    pack = [c for c in cards_str(deck(56)) if c != "BR"]
    rng.shuffle(pack)
    table: list[dict[str, Any]] = []
    while len(table) < size and pack:
        c = pack.pop()
        if val(c) is not None and val(c) <= 9 and rng.random() < 0.15:
            partner = next((d for d in pack if val(d) is not None and val(d) + val(c) <= 20), None)
            if partner is not None:
                pack.remove(partner)
                table.append({"cards": [_code(c), _code(partner)], "owner": 1, "since": 1})
                continue
        table.append({"cards": [_code(c)], "owner": None, "since": None})
    hand_card = next(c for c in pack if val(c) is not None)
    s.table, s.hands, s.turn, s._legal_cache = table, [[_code(hand_card)], []], 0, None
    return s, hand_card


def test_constructed_captures_on_tables_up_to_20_are_accepted():
    import random

    rng = random.Random(13)
    accepted = refused = 0
    for _trial in range(400):
        s, card = _random_position(rng, rng.randint(8, 20))
        v = val(card)
        view = s.view(0)["table"]
        equal = [tuple(it["cards"]) for it in view if it["value"] == v]
        loose = [it["cards"][0] for it in view if not it.get("build") and val(it["cards"][0]) is not None]
        groups = _random_groups(rng, loose, v)
        if not equal and not groups:
            continue
        text = _write(rng, card, equal, groups)
        # the sample offers the card at least one capture (so the bot opens its second step and builder)
        assert any(a.startswith(f"take {card} ") for a in s.legal_actions()), (card, view)
        events = s.clone().act(0, text)
        want = {c for it in equal for c in it} | {c for g in groups for c in g}
        assert set(events[0]["cards"]) == want, text
        accepted += 1
        shorter = [g for g in groups if len(g) > 1]
        if shorter:  # one card less can never be whole groups: refused, naming the cards
            g = shorter[0]
            broken = [*[x for x in groups if x is not g], g[1:]]
            with pytest.raises(IllegalAction):
                s.clone().act(0, f"take {card} " + " ".join("+".join(x) for x in broken) + " "
                              + " ".join("+".join(it) for it in equal))
            refused += 1
        if equal and (groups or len(equal) > 1):
            with pytest.raises(IllegalAction, match="too: a capture takes every card"):
                s.clone().act(0, f"take {card} " + " ".join("+".join(g) for g in groups) + " "
                              + " ".join("+".join(it) for it in equal[1:]))
    assert accepted > 250 and refused > 100


def test_checker_agrees_with_brute_force_on_small_tables():
    import random

    rng = random.Random(7)
    checked = 0
    for _trial in range(60):
        s, card = _random_position(rng, rng.randint(3, 8))
        view = s.view(0)["table"]
        table = [tuple(it["cards"]) for it in view]
        hand_cards = [card, *rng.sample([c for c in NUMBER_CARDS if (c,) not in table], 2)]
        courts = [it[0] for it in table if court(it[0])]
        for c in hand_cards + ([f"{courts[0][:-1]}{'SHDC'.replace(courts[0][-1], '')[0]}"] if courts else []):
            if any(c in it for it in table):
                continue
            s.hands[0], s._legal_cache = [_code(c)], None
            for r in range(1, len(table) + 1):
                for subset in itertools.combinations(table, r):
                    text = f"take {c} " + " ".join(" ".join(it) for it in subset)
                    assert s.is_legal(0, text) == capture_ok(c, table, list(subset)), (text, table)
                    checked += 1
    assert checked > 3000


def test_builder_completable_agrees_with_brute_force():
    """The capture builder's 'can this selection still become a capture?' against every superset."""
    import random

    from games.karusele.moves import capture_parts, completable

    rng = random.Random(11)
    checked = 0
    for _trial in range(80):
        s, card = _random_position(rng, rng.randint(6, 11))
        table = [tuple(it["cards"]) for it in s.view(0)["table"]]
        equal, optional = capture_parts(_code(card), s.table)
        legal = [set(sub) for r in range(len(optional) + 1) for sub in itertools.combinations(optional, r)
                 if capture_ok(card, table, [table[i] for i in [*equal, *sub]])]
        for r in range(len(optional) + 1):
            for chosen in itertools.combinations(optional, r):
                want = any(set(chosen) <= t for t in legal)
                assert completable(_code(card), s.table, list(chosen)) == want, (card, table, chosen)
                checked += 1
    assert checked > 1000


def test_random_games_taking_random_captures_on_growing_tables():
    """Whole games where players mostly trail (the table grows to 20 cards and more) and capture
    with randomly constructed groups, written any way: the engine accepts every one, the game
    stays consistent and its record replays."""
    import random

    biggest = 0
    for seed in range(6):
        rng = random.Random(seed)
        state = GAME.new(2 + seed % 2, seed=seed, options={"target": 40})
        first = state.clone()
        actions: list[tuple[int, str]] = []
        while not state.over and len(actions) < 2000:
            seat = state.to_act
            view = state.view(seat)
            biggest = max(biggest, len(view["table"]))
            hand = view["hand"]
            action = None
            numbers = [c for c in hand if val(c) is not None]
            if numbers and rng.random() < (0.25 if len(view["table"]) < 20 else 0.9):
                card = rng.choice(numbers)
                v = val(card)
                equal = [tuple(it["cards"]) for it in view["table"] if it["value"] == v]
                loose = [it["cards"][0] for it in view["table"] if not it.get("build") and val(it["cards"][0])]
                groups = _random_groups(rng, loose, v)
                if equal or groups:
                    action = _write(rng, card, equal, groups)
            if action is None:
                action = rng.choice([a for a in state.legal_actions() if not a.startswith("take")]
                                    or state.legal_actions())
            state.act(seat, action)
            state.check_invariants()
            actions.append((seat, action))
        assert replay(make_record(first, actions)) == state
    assert biggest >= 20


def test_one_group_finds_a_sum_when_there_is_one():
    import random

    from games.karusele.moves import one_group

    rng = random.Random(3)
    for _ in range(500):
        cards = rng.sample(NUMBER_CARDS[:40], rng.randint(1, 10))
        target = rng.choice([5, 10, 15, 20])
        found = one_group([_code(c) for c in cards], target)
        exists = any(sum(val(c) for c in combo) == target  # type: ignore[misc]
                     for r in range(1, len(cards) + 1) for combo in itertools.combinations(cards, r))
        assert (found is not None) == exists, (cards, target)
        if found is not None:
            assert sum(val(c) for c in cards_str(found)) == target and set(cards_str(found)) <= set(cards)
