"""``python -m engine replay FILE`` on bad records: one line on stderr naming the
field and the problem, a non-zero exit, never a traceback; and the forgiving readings (letter case)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"


def record(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def run_replay(tmp_path: Path, content: Any, raw: str | None = None) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "record.json"
    path.write_text(raw if raw is not None else json.dumps(content), encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "engine", "replay", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def changed(name: str, **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(record(name))
    for key, value in changes.items():
        if value is KeyError:
            del out[key]
        else:
            out[key] = value
    return out


KLAB = "klaberjass_maker_made.json"
KLAB_DEAL = record(KLAB)["deals"][0]
PASSES = [[1, "pass"], [0, "pass"], [1, "pass"], [0, "pass"]]  # both pass twice: the next deal


def _pyanitsa_piles(piles: list[list[str]]) -> dict[str, Any]:
    return changed("pyanitsa_short_2p.json", deals=[{"piles": piles}])


BAD = {
    "not an object": ([1, 2], "record: must be a JSON object"),
    "options a list": (changed(KLAB, options=[1]), "options: must be an object"),
    "cards as numbers": (changed(KLAB, deals=[{**KLAB_DEAL, "upcard": 8}]), "deals[0].upcard: 8 is not a card"),
    "card in a hand as a number": (changed(KLAB, deals=[{**KLAB_DEAL, "hands": [[14] + KLAB_DEAL["hands"][0][1:],
                                                                               KLAB_DEAL["hands"][1]]}]),
                                   "deals[0].hands[0][0]: 14 is not a card"),
    "deal not an object": (changed(KLAB, deals=["abc"]), 'deals[0]: must be an object'),
    "deals not a list": (changed(KLAB, deals="abc"), "deals: must be a list"),
    "actions null": (changed(KLAB, actions=None), "actions: must be a list"),
    "players fraction": (changed(KLAB, players=3.7), "players: must be a whole number or a list of names, not 3.7"),
    "players text": (changed(KLAB, players="abc"), 'players: must be a whole number or a list of names, not "abc"'),
    "players out of range": (changed(KLAB, players=3), "players: klaberjass is for 2-2 players, not 3"),
    "no game": (changed(KLAB, game=KeyError), "game: missing"),
    "no players": (changed(KLAB, players=KeyError), "players: missing"),
    "unknown game": (changed(KLAB, game="chess"), "game: unknown game 'chess'"),
    "action not a pair": (changed(KLAB, actions=[[1, "pass"], "pass"]), 'actions[1]: must be a [seat, "action"] pair'),
    "action of three": (changed(KLAB, actions=[[1, "pass", 2]]), 'actions[0]: must be a [seat, "action"] pair'),
    "action seat off the table": (changed(KLAB, actions=[[5, "pass"]]), "actions[0]: 5 is not a seat (0..1)"),
    "action seat true": (changed(KLAB, actions=[[True, "pass"]]), "actions[0]: True is not a seat"),
    "action not text": (changed(KLAB, actions=[[1, 7]]), "actions[0]: the action must be text, not 7"),
    "seed null": (changed(KLAB, seed=None), "seed: must be a whole number, not None"),
    "seed missing": (changed(KLAB, seed=KeyError), "seed: missing"),
    "klaberjass dealer 7": (changed(KLAB, deals=[{**KLAB_DEAL, "dealer": 7}]),
                            "deals[0].dealer: 7 is not a seat (0..1)"),
    "calabrasella dealer 5": (changed("calabrasella_soloist_15.json",
                                      deals=[{**record("calabrasella_soloist_15.json")["deals"][0], "dealer": 5}]),
                              "deals[0].dealer: 5 is not a seat (0..2)"),
    "dealer off the rotation": (changed(KLAB, deals=[KLAB_DEAL, {**KLAB_DEAL, "dealer": 0}], actions=PASSES),
                                "deals[1].dealer: seat 0 contradicts the rotation (seat 1 deals deal 2)"),
    "more deals than the game has": (changed("calabrasella_soloist_15.json",
                                             deals=record("calabrasella_soloist_15.json")["deals"] * 2),
                                     "deals: 2 explicit deals, but this game has 1"),
    "more deals than a one-deal game": (changed("pyanitsa_short_2p.json",
                                                deals=record("pyanitsa_short_2p.json")["deals"] * 2),
                                        "deals: 2 explicit deals, but this game has 1"),
    "trump on a no-trump deal": (changed("oh_hell_exact.json", deals=[
        *record("oh_hell_exact.json")["deals"][:2], {**record("oh_hell_exact.json")["deals"][2], "trump": "H"}]),
        "deals: oh_hell: explicit deal 3 names trump 'H', but that deal is played at no trump"),
    "pyanitsa duplicate": (_pyanitsa_piles([["2S", "5C"], ["KH", "2S"]]),
                           "deals: explicit deal: piles: 2S appears twice"),
    "pyanitsa joker": (_pyanitsa_piles([["2S", "JK"], ["KH", "7D"]]), "deals: explicit deal: piles: JK is a joker"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_record_one_line_naming_the_field(tmp_path: Path, case: str) -> None:
    content, expected = BAD[case]
    done = run_replay(tmp_path, content)
    assert done.returncode != 0 and done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and expected in lines[0], lines[0]


def test_not_json_is_one_line(tmp_path: Path) -> None:
    done = run_replay(tmp_path, None, raw="{not json")
    assert done.returncode == 2 and "is not JSON" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_letter_case_is_forgiven(tmp_path: Path) -> None:
    good = run_replay(tmp_path, record(KLAB))
    lower = record(KLAB)
    lower["actions"] = [[seat, action.lower()] for seat, action in lower["actions"]]  # play 10h, play as ...
    assert any(a.endswith("10d") or a.endswith("10s") for _, a in lower["actions"])
    done = run_replay(tmp_path, lower)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads(good.stdout)


@pytest.mark.parametrize(("action", "says"), [
    ("plya 7D", "the verb 'plya' is not understood here (now: play)"),
    ("play 7X", "'7X' is not understood (not a card, nor a word of a legal action)"),
    ("play 8H", "8H cannot be used that way now (legal: play "),
])
def test_illegal_action_says_what_was_not_understood(tmp_path: Path, action: str, says: str) -> None:
    bad = record(KLAB)
    assert bad["actions"][3][0] == 1  # the non-dealer leads after pass, take, keep
    bad["actions"] = bad["actions"][:3] + [[1, action]]
    done = run_replay(tmp_path, bad)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    error = json.loads(done.stderr)
    assert says in error["reason"], error["reason"]
