"""Logging setup: JSON lines on request, aiogram's per-update lines only at DEBUG, the last error kept."""

from __future__ import annotations

import json
import logging

import pytest

from bot import logs


@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    saved = (list(root.handlers), root.level, {n: logging.getLogger(n).level for n in logs.CHATTY})
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in saved[0]:
        root.addHandler(handler)
    root.setLevel(saved[1])
    for name, level in saved[2].items():
        logging.getLogger(name).setLevel(level)


def test_json_lines_without_per_update_chatter_and_the_last_error(capsys, restore_logging):
    logs.setup("INFO", "json")
    logging.getLogger("aiogram.event").info("Update id=%d is handled. Duration 3 ms", 7)
    logging.getLogger("bot.events").info("table %d opened: carnival in chat %d", 1, -100)
    logging.getLogger("bot.intake").error("update %d failed: \"quoted\" <b>", 8)
    entries = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [(e["level"], e["logger"], e["message"]) for e in entries] == [
        ("INFO", "bot.events", "table 1 opened: carnival in chat -100"),
        ("ERROR", "bot.intake", 'update 8 failed: "quoted" <b>')]
    assert entries[0]["time"].endswith("Z")
    assert logs.last_error.message == 'bot.intake: update 8 failed: "quoted" <b>'


def test_debug_shows_aiogram_update_lines_as_text(capsys, restore_logging):
    logs.setup("DEBUG", "text")
    logging.getLogger("aiogram.event").info("Update id=%d is handled", 9)
    err = capsys.readouterr().err
    assert "INFO aiogram.event: Update id=9 is handled" in err and not err.lstrip().startswith("{")
