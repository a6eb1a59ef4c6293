"""Helpers shared by the bot's robustness tests (restart, security, storm, lobby)."""

from __future__ import annotations

import html
import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from bot.presentation.registry import presentation
from engine.core import State
from engine.record import start
from tests.fakebot.models import CallbackRecord, StoredMessage
from tests.fakebot.server import FakeTelegram
from tests.fakebot.users import FakeChat, FakeUser

_TAG = re.compile(r"</?[a-z]+[^>]*>")


def plain(html_text: str) -> str:
    """What Telegram shows for a Telegram-HTML text: tags dropped, entities decoded."""
    return html.unescape(_TAG.sub("", html_text))


def db_rows(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Read the bot's SQLite file directly (WAL: readers do not block the bot's writer)."""
    with closing(sqlite3.connect(db, timeout=10)) as conn:
        return conn.execute(sql, args).fetchall()


def table_facts(db: Path) -> tuple[int, int, str]:
    """(version, number of logged actions, status) of the newest table."""
    rows = db_rows(db, "SELECT id, version, status FROM tables ORDER BY id DESC LIMIT 1")
    table_id, version, status = rows[0]
    count = db_rows(db, "SELECT COUNT(*) FROM actions WHERE table_id = ?", table_id)[0][0]
    return version, count, status


def replay_log(db: Path) -> tuple[State, list[tuple[int, str]], list[list[dict[str, Any]]], list[str]]:
    """Replay the newest table's action log from its seed: the state, the log, the events of each move, names."""
    import json

    (table_id, game, options, seed, snapshot), = db_rows(
        db, "SELECT id, game, options, seed, state FROM tables ORDER BY id DESC LIMIT 1")
    log = [(s, a) for s, a in db_rows(db, "SELECT seat, action FROM actions WHERE table_id = ? ORDER BY idx",
                                     table_id)]
    idx = [i for (i,) in db_rows(db, "SELECT idx FROM actions WHERE table_id = ? ORDER BY idx", table_id)]
    assert idx == list(range(len(idx))), f"the action log has holes or repeats: {idx}"
    names = [n for (n,) in db_rows(db, "SELECT name FROM seats WHERE table_id = ? ORDER BY seat", table_id)]
    state = start({"game": game, "players": names, "options": json.loads(options), "seed": seed})
    events = [state.act(seat, action) for seat, action in log]
    assert state.to_json() == json.loads(snapshot), "the stored snapshot differs from the replayed log"
    return state, log, events, names


def log_lines(game: str, events: list[list[dict[str, Any]]], names: list[str], lang: str) -> list[str]:
    """The lines the group must have been shown (as people see them: plain text): the results of deals,
    quarters and the game. Other event lines live in the live table message's caption and are
    replaced as play goes on (edits are merged), so they need not all reach the group."""
    lines = []
    for move in events:
        for event in move:
            if event.get("type") not in ("deal_end", "quarter_end", "game_over"):
                continue
            line = presentation(game).event_line(event, names, lang)
            if line:
                lines.append(plain(line))
    return lines


def group_text(chat: FakeChat) -> str:
    return "\n".join(m.content for m in chat.messages())


def not_modified_only(fake: FakeTelegram) -> list[tuple[str, int | None, str | None]]:
    """Errors the fake served other than Telegram's harmless 'message is not modified'."""
    return [(c.method, c.error_code, c.description) for c in fake.errors
            if "message is not modified" not in (c.description or "")]


async def answered(fake: FakeTelegram, record: CallbackRecord, timeout: float = 10) -> CallbackRecord:
    await fake.wait_until(lambda: record.answered, timeout=timeout, what=f"an answer to {record.data!r}")
    return record


def data_of(message: StoredMessage, text_or_pred: Any) -> str:
    for b in message.buttons:
        if (b["text"] == text_or_pred) if isinstance(text_or_pred, str) else text_or_pred(b):
            return b["callback_data"]
    raise AssertionError(f"no button {text_or_pred!r} on {message!r}: {message.button_texts}")


def hand_messages(user: FakeUser) -> list[StoredMessage]:
    return [m for m in user.inbox(include_deleted=False) if "👉" in m.content or "Waiting" in m.content
            or "Ждём" in m.content]
