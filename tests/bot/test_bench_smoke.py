"""bench/bot.py must keep working: a tiny run (2 tables, a few moves) through its main function."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bot.py"


def load_bench():
    # Not importable as "bot" (that name is the bot package): load the file under a name of its own.
    spec = importlib.util.spec_from_file_location("kozyr_bench_bot", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_bench_runs_a_tiny_game_and_counts_what_it_should(capsys):
    bench = load_bench()
    result = bench.main(["--tables", "2", "--moves", "5", "--warmup", "1", "--think", "0"])
    out = capsys.readouterr().out
    assert result["moves"] == 10
    assert result["measured_moves"] == 8
    assert result["commit_ms"]["n"] == 8 and 0 < result["commit_ms"]["p50"] <= result["commit_ms"]["p99"]
    # every press is answered once, and each move changes at least the table message and a hand
    assert result["answer_callback_calls"] == result["moves"] + result["menu_presses"]
    assert result["message_calls_per_move"] >= 2
    assert result["unanswered_callbacks"] == 0 and not result["outbox_left"]
    assert all("not modified" in error for error in result["errors"]), result["errors"]
    assert "PASS" in out or "MISS" in out
    assert "moves handled per second" in out


@pytest.mark.slow  # a child process and a benchmark run
def test_bench_split_runs_the_fake_in_a_child_process(capsys):
    """--split: the fake server and the players in a child process, the bot polling it; the bot's own CPU
    and the fake's are reported apart, and the latencies pair each press with its move's COMMIT."""
    bench = load_bench()
    result = bench.main(["--split", "--tables", "2", "--moves", "5", "--warmup", "1", "--think", "0"])
    out = capsys.readouterr().out
    assert result["moves"] == 10 and result["measured_moves"] == 8
    assert result["commit_ms"]["n"] == 8 and 0 < result["commit_ms"]["p50"] <= result["commit_ms"]["p99"]
    assert result["answer_callback_calls"] == result["moves"] + result["menu_presses"]
    assert result["cpu_ms_per_move"] > 0 and result["fake_cpu_ms_per_move"] > 0
    assert result["unanswered_callbacks"] == 0 and not result["outbox_left"]
    assert "in the bot's process" in out
