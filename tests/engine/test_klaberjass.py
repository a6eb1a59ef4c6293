"""Klaberjass: RULES.md section 3 and the acceptance numbers of section 15 (item 5)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from engine.cards import parse_card, rank_of, suit_of
from engine.core import OptionsError, get_game
from engine.record import load, replay
from engine.selfplay import POLICIES, play_game
from tests.engine.replaying import play_with_events

DATA = Path(__file__).parent / "data"
GAME = get_game("klaberjass")

# Independent tables (RULES 3.2), not imported from the module under test.
TRUMP_RANK = {"J": 8, "9": 7, "A": 6, "10": 5, "K": 4, "Q": 3, "8": 2, "7": 1}
TRUMP_PTS = {"J": 20, "9": 14, "A": 11, "10": 10, "K": 4, "Q": 3}
PLAIN_PTS = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}
ALL_32 = [r + s for s in "SHDC" for r in ("A", "K", "Q", "J", "10", "9", "8", "7")]


def pts(card: str, trump: str) -> int:
    rank, suit = card[:-1], card[-1]
    return (TRUMP_PTS if suit == trump else PLAIN_PTS).get(rank, 0)


def allowed_plays(hand: list[str], trick: list[str], trump: str) -> set[str]:
    """Follow suit; void: trump if able; a trump lead must be headed if able (RULES 3.2 Play)."""
    if not trick:
        return set(hand)
    led = trick[0]
    same = [c for c in hand if c[-1] == led[-1]]
    trumps = [c for c in hand if c[-1] == trump]
    if same:
        if led[-1] == trump:
            higher = [c for c in same if TRUMP_RANK[c[:-1]] > TRUMP_RANK[led[:-1]]]
            return set(higher or same)
        return set(same)
    return set(trumps or hand)


def recount_first_deal(events: list[dict[str, Any]]) -> tuple[list[int], list[int]]:
    """Totals per seat of the first played deal from the public events alone: card points,
    10 for the last trick, the revealed sequences (20 for 3, 50 for 4+), 20 for bella."""
    trump = next(e["trump"] for e in events if e["type"] == "trump")
    totals = [0, 0]
    trick_cards: list[list[str]] = [[], []]
    last = None
    for e in events:
        if e["type"] == "trick":
            totals[e["winner"]] += sum(pts(c, trump) for c in e["cards"])
            trick_cards[e["winner"]] += e["cards"]
            last = e["winner"]
        elif e["type"] == "sequences" and e["seat"] is not None:
            totals[e["seat"]] += sum(50 if len(s) >= 4 else 20 for s in e["sequences"])
        elif e["type"] == "deal_end":
            break
    assert last is not None
    totals[last] += 10
    played_by = [[e["card"] for e in events if e["type"] == "play" and e["seat"] == s] for s in (0, 1)]
    for seat in (0, 1):
        if {"K" + trump, "Q" + trump} <= set(played_by[seat]):
            totals[seat] += 20
    card_only = [sum(pts(c, trump) for c in trick_cards[s]) for s in (0, 1)]
    return totals, card_only


# -- RULES 15 item 5 / 3.4: the three maker cases as replayed records ---------------------------
MAKER_CASES = [
    ("klaberjass_maker_made.json", (90, 72), {"both_totals": (90, 72), "double_own": (90, 72)}),
    ("klaberjass_maker_tie.json", (81, 81), {"both_totals": (0, 81), "double_own": (0, 81)}),
    ("klaberjass_maker_bete.json", (70, 92), {"both_totals": (0, 162), "double_own": (0, 184)}),
]


@pytest.mark.parametrize("name,totals,expected", MAKER_CASES)
@pytest.mark.parametrize("bete", ["both_totals", "double_own"])
def test_maker_cases(name: str, totals: tuple[int, int], expected: dict[str, tuple[int, int]], bete: str) -> None:
    record = load(DATA / name)
    record["options"] = {**record["options"], "bete": bete}
    state, events = play_with_events(record)
    deal = state.sheet()["deals"][0]
    maker = deal["maker"]
    opp = 1 - maker
    # The totals, recounted from the public events with the test's own tables.
    recount, _ = recount_first_deal(events)
    assert (recount[maker], recount[opp]) == totals
    assert (deal["totals"][maker], deal["totals"][opp]) == totals
    # The score per RULES 3.2 / 3.3 item 4.
    want_maker, want_opp = expected[bete]
    assert (deal["points"][maker], deal["points"][opp]) == (want_maker, want_opp)
    assert (state.scores()[maker], state.scores()[opp]) == (want_maker, want_opp)


@pytest.mark.parametrize("name", [c[0] for c in MAKER_CASES])
def test_162_per_deal(name: str) -> None:
    """152 card points in the pack + 10 for the last trick = 162: what the tricks took plus
    what stayed out of play (upcard, stock) always makes 162."""
    record = load(DATA / name)
    state, events = play_with_events(record)
    spec = record["deals"][0]
    trump = next(e["trump"] for e in events if e["type"] == "trump")
    assert sum(pts(c, trump) for c in ALL_32) + 10 == 162
    _, card_only = recount_first_deal(events)
    out = [spec["upcard"], *spec["stock"]]
    assert sum(card_only) + 10 + sum(pts(c, trump) for c in out) == 162
    deal = state.sheet()["deals"][0]
    assert deal["card_points"] == card_only
    assert sum(deal["tricks"]) == 9


def test_replay_cli_prints_sheet(capsys: pytest.CaptureFixture[str]) -> None:
    from engine.__main__ import main

    assert main(["replay", str(DATA / "klaberjass_maker_bete.json")]) == 0
    out = json.loads(capsys.readouterr().out)
    deal = out["sheet"]["deals"][0]
    assert deal["result"] == "bete" and sorted(deal["points"]) == [0, 162]


# -- designed deals --------------------------------------------------------------------------
def deal_spec(h0: str, h1: str, upcard: str, dealer: int = 0) -> dict[str, Any]:
    hands = [h0.split(), h1.split()]
    used = set(hands[0] + hands[1] + [upcard])
    stock = [c for c in ALL_32 if c not in used]
    return {"dealer": dealer, "hands": hands, "upcard": upcard, "stock": stock}


# Seat 1 is the non-dealer. Clubs turned (JC up); seat 0 holds 7C (the dix), seat 1 holds trumps.
SPEC = deal_spec(
    "7C 8C AS 10S KS QH 9H 8H 9D",
    "AC 10C KC QC 9C AD 10D KD 7H",
    "JC",
)


def new(spec: dict[str, Any] = SPEC, **options: Any) -> Any:
    return GAME.new(2, seed=5, options=options or None, deals=[spec])


def test_auction_round1_take_and_extra_cards() -> None:
    s = new()
    assert s.to_act == 1 and s.legal_actions() == ["take", "pass", "schmeiss"]
    assert len(s.view(1)["hand"]) == 6 and s.view(1)["trump_card"] == "JC"
    events = s.act(1, "take")
    assert s.view(1)["maker"] == 1 and s.view(0)["trump"] == "C"
    assert len(s.view(0)["hand"]) == 9 and len(s.view(1)["hand"]) == 9
    trump_event = next(e for e in events if e["type"] == "trump")
    assert trump_event["bottom_card"] == SPEC["stock"][-1] == s.view(None)["bottom_card"]


def test_schmeiss_accept_redeals_by_next_dealer() -> None:
    s = new()
    s.act(1, "schmeiss")
    assert s.to_act == 0 and s.legal_actions() == ["accept", "refuse"]
    s.act(0, "accept")
    assert s.view()["dealer"] == 1 and s.view()["deal_no"] == 2 and s.view()["phase"] == "bid1"
    assert s.to_act == 0  # the new non-dealer speaks first
    assert s.scores() == [0, 0] and s.sheet()["deals"][0]["annulled"] == "schmeiss"


def test_schmeiss_refused_makes_schmeisser_maker() -> None:
    s = new()
    s.act(1, "pass")
    s.act(0, "schmeiss")
    s.act(1, "refuse")
    assert s.view()["maker"] == 0 and s.view()["trump"] == "C"


def test_round2_names_another_suit_or_redeal() -> None:
    s = new()
    s.act(1, "pass")
    s.act(0, "pass")
    assert s.legal_actions() == ["name S", "name H", "name D", "pass"]  # not the turned clubs
    s.act(1, "pass")
    s.act(0, "name H")
    assert s.view()["maker"] == 0 and s.view()["trump"] == "H"
    assert "dix" not in s.legal_actions()  # the dix is only for a round-1 trump
    s2 = new()
    for seat, a in [(1, "pass"), (0, "pass"), (1, "pass"), (0, "pass")]:
        s2.act(seat, a)
    assert s2.view()["deal_no"] == 2 and s2.view()["dealer"] == 1 and s2.view()["phase"] == "bid1"
    assert s2.sheet()["deals"][0]["annulled"] == "passed"


def test_dix_until_holder_has_played_to_trick_one() -> None:
    s = new()
    s.act(1, "take")
    s.act(0, "keep")  # the dealer's turn before the lead: no exchange now
    assert "dix" not in s.legal_actions()  # seat 1 has no 7C
    s.act(1, "play AD")
    assert "dix" in s.legal_actions(0)  # the dealer may still swap before he plays
    events = s.act(0, "dix")
    assert events == [{"type": "dix", "seat": 0, "took": "JC", "gave": "7C"}]
    assert "JC" in s.view(0)["hand"] and "7C" not in s.view(0)["hand"]
    assert s.view(None)["trump_card"] == "7C"
    assert "dix" not in s.legal_actions()
    # Not after playing: a fresh game where the dealer plays first without swapping.
    s = new()
    s.act(1, "take")
    s.act(0, "keep")  # the dealer's turn before the lead: no exchange now
    s.act(1, "play AD")
    s.act(0, "play 9D")
    assert all(a != "dix" for a in s.legal_actions())


def test_trump_lead_must_be_headed_and_void_must_trump() -> None:
    s = new()
    s.act(1, "take")  # clubs
    s.act(0, "keep")  # the dealer's turn before the lead: no exchange now
    s.act(1, "play 9C")  # menel led: seat 0 has 7C 8C only, cannot head it -> any trump
    assert set(s.legal_actions()) == {"dix", "play 7C", "play 8C"}
    s.act(0, "play 8C")
    # seat 1 won; lead a heart: seat 0 must follow hearts
    s.act(1, "play 7H")
    assert set(s.legal_actions()) == {"play QH", "play 9H", "play 8H"}
    s.act(0, "play QH")
    # seat 0 leads spades, seat 1 is void in spades and must trump
    s.act(0, "play AS")
    assert set(s.legal_actions()) == {"play AC", "play 10C", "play KC", "play QC"}


def test_overtrump_when_able() -> None:
    spec = deal_spec("7C 8C AS 10S KS QH 9H 8H JC", "AC 10C KC QC 9C AD 10D KD 7H", "9D")
    s = new(spec)
    s.act(1, "pass")
    s.act(0, "pass")
    s.act(1, "name C")
    s.act(1, "play KC")
    assert set(s.legal_actions()) == {"play JC"}  # only the jass beats the king


def test_bella_scores_20_and_is_announced_at_the_queen() -> None:
    s = new()
    s.act(1, "take")
    s.act(0, "keep")  # the dealer's turn before the lead: no exchange now
    events = []
    for seat, a in [(1, "play KC"), (0, "play 7C"), (1, "play QC")]:
        events += s.act(seat, a)
    assert {"type": "bella", "seat": 1} in events
    assert s.view(0)["bella"] == 1
    while not s.sheet()["deals"]:
        s.act(s.to_act, s.legal_actions()[-1])
    assert s.sheet()["deals"][0]["bella"] == [0, 20]


def test_sequences_compared_and_revealed() -> None:
    # seat 0: A K Q J of spades (50); seat 1: A K Q of clubs, trumps (20) -> seat 0 scores all his.
    spec = deal_spec("AS KS QS JS 9H 8H 7H 9D 8D", "AC KC QC 8C 7D 10D AH KH QH", "JC")
    s = new(spec)
    s.act(1, "take")
    s.act(0, "keep")  # the dealer's turn before the lead: no exchange now
    events = s.act(1, "play 7D")
    seq = next(e for e in events if e["type"] == "sequences")
    assert seq["seat"] == 0 and seq["points"] == 50 + 20  # A-J spades 50, 9-7 hearts 20
    assert sorted(map(len, seq["sequences"])) == [3, 4]
    assert s.view(1)["declarations"]["sequences"] == seq["sequences"]  # shown to the opponent


@pytest.mark.parametrize(
    "h0,h1,dealer,winner",
    [
        ("AS KS QS", "AH KH QH JH", 0, 1),  # 50 beats 20
        ("KS QS JS", "AH KH QH", 0, 1),  # higher top card
        ("AS KS QS", "AC KC QC", 0, 1),  # equal: trump (clubs) beats plain
        ("AS KS QS", "AH KH QH", 0, 1),  # fully equal: the non-dealer
        ("AS KS QS", "AH KH QH", 1, 0),
        ("AS KS 9S", "AH QH 9H", 0, None),
    ],
)
def test_sequence_comparison(h0: str, h1: str, dealer: int, winner: int | None) -> None:
    from games.klaberjass.rules import sequence_winner

    hands = [[parse_card(c) for c in h.split()] for h in (h0, h1)]
    assert sequence_winner(hands, 3, dealer) == winner


def test_options_are_validated() -> None:
    with pytest.raises(OptionsError, match="bete"):
        GAME.parse_options({"bete": "triple"})
    with pytest.raises(OptionsError, match="target"):
        GAME.parse_options({"target": 0})
    assert GAME.parse_options({}).target == 500


def test_game_ends_at_target_with_single_leader() -> None:
    state, _ = play_game("klaberjass", 2, seed=3, policy="uniform", options={"target": 300})
    assert state.over and max(state.scores()) >= 300 and state.scores().count(max(state.scores())) == 1
    deals = [d for d in state.sheet()["deals"] if "annulled" not in d]
    assert sum(sum(d["points"]) for d in deals) == sum(state.scores())


# -- random simulation ------------------------------------------------------------------------
CARD_RE = re.compile(r"\b(?:10|[2-9JQKA])[SHDC]\b")


def independent_checks(record_actions: list[list[Any]], seed: int, options: dict[str, Any] | None) -> int:
    """Replay a random game and check every play against the test's own duty rules, the hidden
    hand in views, and 162 per played deal. Returns the number of plays checked."""
    state = GAME.new(2, seed=seed, options=options)
    checked = 0
    for seat, action in record_actions:
        view = state.view(seat)
        if view["phase"] == "play":
            trick = [p["cards"][0] for p in view["trick"]["plays"]]
            legal_cards = {a.split()[1] for a in state.legal_actions() if a.startswith("play ")}
            assert legal_cards == allowed_plays(view["hand"], trick, view["trump"]), (view, legal_cards)
            checked += 1
            other = state.view(1 - seat)
            public = dict(other)
            public.pop("hand")
            public.pop("sheet")
            seen = set(CARD_RE.findall(json.dumps(public)))
            declared = {c for s in (view["declarations"] or {}).get("sequences", []) for c in s}
            hidden = set(view["hand"]) - declared - ({view["dix"]["took"]} if view["dix"] else set())
            assert not (seen & hidden), f"seat {1 - seat} sees {seen & hidden}"
        state.act(seat, action)
    for deal in state.sheet()["deals"]:
        if "annulled" in deal:
            continue
        assert sum(deal["card_points"]) + 10 + deal["out_of_play_points"] == 162
        assert sum(deal["tricks"]) == 9
        assert deal["totals"] == [
            deal["card_points"][s] + (10 if deal["last_trick"] == s else 0) + deal["sequences"][s] + deal["bella"][s]
            for s in (0, 1)
        ]
        maker = deal["maker"]
        t = deal["totals"]
        if t[maker] > t[1 - maker]:
            assert deal["points"] == t
        elif t[maker] == t[1 - maker]:
            assert deal["points"][maker] == 0 and deal["points"][1 - maker] == t[1 - maker]
        else:
            assert deal["points"][maker] == 0
    return checked


@pytest.mark.parametrize("policy", POLICIES)
def test_random_games(policy: str) -> None:
    plays = 0
    for seed in range(6):
        options = {"bete": "double_own"} if seed % 2 else None
        state, actions = play_game("klaberjass", 2, seed=100 + seed, policy=policy, options=options, check_every=1)
        assert state.over
        plays += independent_checks(actions, 100 + seed, options)
    assert plays > 100


def test_many_fast_games_keep_invariants() -> None:
    bete_seen = dix_seen = 0
    for seed in range(40):
        state, actions = play_game("klaberjass", 2, seed=1000 + seed, policy="uniform", check_every=0)
        state.check_invariants()
        assert replay({"game": "klaberjass", "players": 2, "seed": 1000 + seed, "actions": actions}) == state
        bete_seen += sum(1 for d in state.sheet()["deals"] if d.get("result") == "bete")
        dix_seen += sum(1 for _, a in actions if a == "dix")
    assert bete_seen and dix_seen  # the simulation reaches these branches


def test_rank_helpers_match_rules() -> None:
    from games.klaberjass.rules import PLAIN_ORDER, TRUMP_ORDER

    trumps = [parse_card(c + "C") for c in ("J", "9", "A", "10", "K", "Q", "8", "7")]
    plain = [parse_card(c + "H") for c in ("A", "10", "K", "Q", "J", "9", "8", "7")]
    assert sorted(trumps, key=TRUMP_ORDER, reverse=True) == trumps
    assert sorted(plain, key=PLAIN_ORDER, reverse=True) == plain
    assert all(suit_of(c) == 3 and rank_of(c) for c in trumps)


# -- the dealer's dix before the lead -------------------------------------------------------
# Hearts turned (JH). The dealer (seat 0) holds 7H KH QH: the exchange gives him K-Q-J of trumps,
# a sequence of 20 that only exists after it. He takes every trick (with bella).
DIX_DEAL = deal_spec(
    "7H KH QH QD AC KC AS 9H AD",
    "10C AH 10H 9D 9S 10D QC 7D KS",
    "JH",
)
DIX_PLAY = ["play AH", "play JH", "play 9H", "play 10H", "play KH", "play KS", "play QH", "play 9S", "play AS",
            "play 10D", "play AD", "play 9D", "play QD", "play 7D", "play AC", "play 10C", "play KC", "play QC"]


def _dix_deal(before_lead: bool) -> dict[str, Any]:
    s = new(DIX_DEAL)
    s.act(1, "pass")
    s.act(0, "take")
    assert s.to_act == 0 and s.view(None)["phase"] == "dix"  # the dealer speaks before the lead
    assert s.legal_actions() == ["dix", "keep"]
    s.act(0, "dix" if before_lead else "keep")
    for action in DIX_PLAY:
        if action == "play JH" and not before_lead:
            assert "dix" in s.legal_actions(0)  # still allowed until he plays, but the lead has been made
            s.act(0, "dix")
        s.act(s.to_act, action)
    return s.sheet()["deals"][0]


def test_dealer_dix_before_the_lead_counts_his_sequence() -> None:
    deal = _dix_deal(before_lead=True)
    assert deal["declaration"]["seat"] == 0 and deal["declaration"]["sequences"] == [["KH", "QH", "JH"]]
    assert deal["bella"] == [20, 0] and deal["tricks"] == [9, 0]
    assert deal["points"] == [179, 0]
    late = _dix_deal(before_lead=False)  # the exchange after the lead: the sequence is not there
    assert late["declaration"]["seat"] is None and late["points"] == [159, 0]


def test_dealer_gets_the_turn_before_the_lead_without_the_seven() -> None:
    """The turn before the lead comes whether or not the dealer holds the 7, so it gives nothing away."""
    s = new()  # clubs turned; the dealer (seat 0) holds 7C
    s.act(1, "take")
    assert s.to_act == 0 and s.legal_actions() == ["dix", "keep"]
    spec = deal_spec("8C 9S AS 10S KS QH 9H 8H 9D", "AC 10C KC QC 7C AD 10D KD 7H", "JC")
    t = new(spec)  # now the non-dealer holds the 7
    t.act(1, "take")
    assert t.to_act == 0 and t.legal_actions() == ["keep"]
    assert t.view(1)["to_act"] == s.view(1)["to_act"] == 0 and t.view(1)["phase"] == s.view(1)["phase"] == "dix"
    t.act(0, "keep")
    assert t.to_act == 1 and "dix" in t.legal_actions()  # the non-dealer swaps at his lead
    u = new(deal_spec("JC 8C AS 10S KS QH 9H 8H 9D", "AC 10C KC QC 9C AD 10D KD 7H", "7C"))
    u.act(1, "take")  # the turned card is the 7 itself: no exchange is possible, no extra turn
    assert u.to_act == 1 and u.view(None)["phase"] == "play"
