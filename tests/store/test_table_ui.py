"""``TableRow.ui`` is typed (``TableUi``) and its stored JSON stays what it was: a database written before
the type existed reads back, and what is written now is read by the same keys as before."""

from __future__ import annotations

import json

from bot.store.rows import ClockUi, TableUi
from bot.store.sqlite import Store

# A Carnival table in play as the bot wrote it before TableUi: the lobby's leftovers at the start ("deal",
# "hands", a null "table_key"), the clock, the hands' numbering, the group message, a rummy's own marks
# and a key only the store writes (retention's "slots_pruned").
OLD = {
    "deal": None, "table_key": "2", "hands": {}, "ai_levels": {"🤖 Ada": "strong"},
    "clock": {"per_move": 3600.0, "bank": 300.0, "strikes": 2, "absent": "replace", "deadline": 1767000000.5,
              "paused": False},
    "hand_deal": 2, "acted": {"0": 1766990000.25}, "hand_n": {"0": 3, "1": 1}, "autopilot": [1], "offered": [1],
    "pinned": ["Deal 1: Ann 12"], "recent": ["Ann plays 7♠", "Bob plays 9♠"], "table_slot": "lobby:7",
    "lobby_to_table": True, "lobby_mode": "main", "paused": True,
    "rtable": [["7♠", "8♠", "9♠"]], "rchanged": [0], "slots_pruned": 1,
}


def test_an_old_stored_ui_reads_back_typed() -> None:
    ui = TableUi.from_json(json.loads(json.dumps(OLD)))
    assert ui.clock == ClockUi(3600.0, 300.0, 2, "replace", 1767000000.5, False)
    assert (ui.ai_levels, ui.hand_deal, ui.acted, ui.hand_n) == ({"🤖 Ada": "strong"}, 2, {"0": 1766990000.25},
                                                                 {"0": 3, "1": 1})
    assert (ui.autopilot, ui.offered, ui.pinned, ui.recent) == ([1], [1], ["Deal 1: Ann 12"],
                                                                ["Ann plays 7♠", "Bob plays 9♠"])
    assert (ui.table_key, ui.table_slot, ui.lobby_to_table, ui.lobby_mode, ui.paused) == \
        ("2", "lobby:7", True, "main", True)
    assert ui.extra == {"deal": None, "hands": {}, "rtable": [["7♠", "8♠", "9♠"]], "rchanged": [0],
                        "slots_pruned": 1}


def test_written_json_keeps_every_key_and_value_the_old_code_read() -> None:
    """Written back, every key has the value it had; only keys that held nothing (null, an empty list or
    dict, false) may be left out, and the old code read those as absent all the same (``.get(k) or ...``)."""
    written = TableUi.from_json(OLD).to_json()
    for key, value in OLD.items():
        if key in written:
            assert written[key] == value, key
        else:
            assert value in (None, {}, [], False), key
    assert TableUi.from_json(written) == TableUi.from_json(OLD)
    assert TableUi.from_json({}).to_json() == {}
    assert TableUi.from_json({}) == TableUi()


async def test_a_database_row_from_before_reads_back_and_saves_compatibly(tmp_path) -> None:
    store = await Store(tmp_path / "k.sqlite3").open()
    try:
        async with store.transaction() as tx:
            table_id = await tx.create_table(-100, 0, "carnival", 1, {}, 7)
            await tx._run("UPDATE tables SET ui = ? WHERE id = ?", json.dumps(OLD), table_id)
        async with store.transaction() as tx:
            row = await tx.table(table_id)
            assert row is not None and row.ui == TableUi.from_json(OLD)
            row.ui.autopilot.append(0)
            row.ui.extra["rchanged"] = []
            await tx.save_table(row)
        async with store.read() as tx:
            stored = json.loads((await tx._one("SELECT ui FROM tables WHERE id = ?", table_id))["ui"])
        assert stored["autopilot"] == [1, 0] and stored["rchanged"] == []
        assert stored["clock"] == OLD["clock"] and stored["hand_n"] == OLD["hand_n"]
        assert stored["slots_pruned"] == 1 and stored["rtable"] == OLD["rtable"]
    finally:
        await store.close()
