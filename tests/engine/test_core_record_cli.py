"""The State contract, game records and the ``python -m engine`` command line (run as a subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.core import GameError, IllegalAction, OptionsError, State, all_games, get_game
from engine.record import FORMAT, ReplayError, dumps, load, make_record, replay, start, summary
from engine.selfplay import play_game

ROOT = Path(__file__).resolve().parents[2]
SEED_RECORD = Path(__file__).parent / "data" / "carnival_seed_example.json"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


# -- the contract -------------------------------------------------------------------------------------------

def test_registry() -> None:
    ids = [g.id for g in all_games()]
    assert "carnival" in ids and ids == sorted(ids)
    with pytest.raises(GameError, match="unknown game"):
        get_game("no-such-game")


def test_illegal_actions_change_nothing() -> None:
    state = get_game("carnival").new(3, seed=5)
    before = state.to_json()
    with pytest.raises(IllegalAction, match="turn"):
        state.act(1, state.legal_actions(0)[0])
    with pytest.raises(IllegalAction):
        state.act(0, "play XX")
    with pytest.raises(IllegalAction):
        state.act(0, "bid 7")
    assert state.to_json() == before
    assert state.legal_actions(1) == [] and not state.is_legal(1, "bid 0") and state.is_legal(0, "bid 0")


def test_finished_game_refuses_actions() -> None:
    state, _ = play_game("carnival", 3, 2, "first", {"quarters": 1})
    assert state.over and state.to_act is None and state.legal_actions() == []
    with pytest.raises(IllegalAction, match="over"):
        state.act(0, "bid 0")


def test_clone_and_json_are_independent() -> None:
    state = get_game("carnival").new(4, seed=9)
    twin = state.clone()
    copy = State.from_json(json.loads(json.dumps(state.to_json())))
    assert twin == state == copy
    twin.act(0, twin.legal_actions()[0])
    assert twin != state and copy == state
    copy.act(0, copy.legal_actions()[-1])
    assert copy != state and state.to_act == 0


def test_view_base_keys() -> None:
    state = get_game("carnival").new(3, seed=1)
    view = state.view(2)
    assert view["game"] == "carnival" and view["players"] == 3 and view["seat"] == 2
    assert view["to_act"] == 0 and view["over"] is False and view["scores"] == [0, 0, 0]


def test_option_errors_name_the_problem() -> None:
    game = get_game("carnival")
    with pytest.raises(OptionsError, match="unknown option.*quarters"):
        game.new(3, seed=1, options={"quartres": 2})
    with pytest.raises(OptionsError, match="quarters"):
        game.new(3, seed=1, options={"quarters": 9})


# -- records ----------------------------------------------------------------------------------------------------

def test_record_round_trip() -> None:
    state, actions = play_game("carnival", 4, 12, "uniform", {"quarters": 1})
    start_state = get_game("carnival").new(4, seed=12, options={"quarters": 1})
    record = make_record(start_state, actions, ["a", "b", "c", "d"])
    assert record["format"] == FORMAT and record["players"] == ["a", "b", "c", "d"]
    again = json.loads(dumps(record))
    assert replay(again) == state
    halfway = replay(again, upto=len(actions) // 2)
    assert not halfway.over and summary(halfway)["over"] is False
    assert start(again) == start_state


def test_replay_error_names_index_and_reason() -> None:
    record = load(SEED_RECORD)
    record["actions"][4] = [1, "play KD"]  # P2 has no hearts and must trump with JC
    with pytest.raises(ReplayError) as info:
        replay(record)
    assert info.value.index == 4 and info.value.seat == 1 and info.value.action == "play KD"
    assert "trump" in info.value.reason and "#4" in str(info.value)
    record = load(SEED_RECORD)
    record["actions"][1] = [2, "bid 1"]  # out of turn
    with pytest.raises(ReplayError) as info:
        replay(record)
    assert info.value.index == 1 and "turn" in info.value.reason


# -- the command line -----------------------------------------------------------------------------------------

def test_cli_help_lists_every_command() -> None:
    """``--help`` is where a newcomer starts; argparse formats each help string with ``%``, so a bare
    percent sign in one crashes it."""
    done = run_cli("--help")
    assert done.returncode == 0, done.stderr
    assert all(command in done.stdout for command in ("games", "replay", "selfplay", "arena"))


def test_cli_games() -> None:
    done = run_cli("games")
    assert done.returncode == 0, done.stderr
    rows = {row["id"]: row for row in json.loads(done.stdout)}
    assert rows["carnival"]["min_players"] == 3 and rows["carnival"]["max_players"] == 6
    assert rows["carnival"]["name"] == "Carnival"


def test_cli_replay_finished_and_unfinished(tmp_path: Path) -> None:
    done = run_cli("replay", str(SEED_RECORD))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["over"] is True and out["scores"] == [-68, 105, 34] and out["winners"] == [1]
    record = load(SEED_RECORD)
    record["actions"] = record["actions"][:24]  # deal 1 done, deal 2 bid
    path = tmp_path / "part.json"
    path.write_text(dumps(record), encoding="utf-8")
    out = json.loads(run_cli("replay", str(path)).stdout)
    assert out["over"] is False and out["to_act"] == 1 and out["scores"] == [1, 20, 30]
    assert [d["points"] for d in out["sheet"]["deals"]] == [[1, 20, 30]]


def test_cli_replay_illegal_action(tmp_path: Path) -> None:
    record = load(SEED_RECORD)
    record["actions"][7] = [2, "play KS"]  # P3 must follow diamonds with 8D
    path = tmp_path / "bad.json"
    path.write_text(dumps(record), encoding="utf-8")
    done = run_cli("replay", str(path))
    assert done.returncode == 2 and done.stdout == ""
    error = json.loads(done.stderr)
    assert error["index"] == 7 and error["action"] == "play KS" and "follow suit" in error["reason"]


def test_cli_selfplay() -> None:
    done = run_cli("selfplay", "--game", "carnival", "--players", "5", "--games", "6", "--seed", "3",
                   "--option", "quarters=1")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["invariant_failures"] == 0 and out["games"] == 6 and out["players"] == 5
    assert out["games_per_second"] > 0 and out["actions_per_second"] > 0


@pytest.mark.parametrize("args", [
    ("selfplay", "--game", "no-such-game", "--players", "3"),
    ("selfplay", "--game", "carnival", "--players", "9"),
    ("selfplay", "--game", "carnival", "--players", "3", "--option", "quarters=7"),
    ("replay", "/no/such/file.json"),
])
def test_cli_errors(args: tuple[str, ...]) -> None:
    done = run_cli(*args)
    assert done.returncode == 2 and done.stderr.startswith("error:")
