"""The table app's API in play: the table in the chat's language, the live push of every change to each
open app, and the rummies' lay-down as the whole new table (checked by the engine, proposed by the solver)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.app import App
from engine.core import State
from engine.rummy.base import parse_lay
from tests.bot.harness import OpenTable, play_first_move, settle
from tests.bot.helpers import db_rows
from tests.bot.webapp_helpers import APP_SETTINGS, AppClient, init_data, open_stream, table_token
from tests.fakebot.server import FakeTelegram

pytestmark = pytest.mark.bot(**APP_SETTINGS)


async def _table(fake: FakeTelegram, app: App, open_table: OpenTable, game: str,
                 lang: str = "en") -> tuple[list[Any], int, State]:
    users = [fake.user(first_name=n, language_code=lang) for n in ("Ann", "Bob", "Cy")]
    await open_table(game, users)
    await settle(fake, app)
    assert app.services is not None
    async with app.store.read() as tx:
        row = (await tx.playing_tables())[0]
    return users, row.id, app.services.core.state(row)


async def test_every_change_reaches_each_open_app_with_its_own_view(fake: FakeTelegram, app: App,
                                                                     open_table: OpenTable) -> None:
    users, table_id, state = await _table(fake, app, open_table, "oh_hell")
    token = table_token(app, table_id)
    async with aiohttp.ClientSession() as http:
        clients = [AppClient(http, app, init_data(fake.token, u)) for u in [*users, fake.user(first_name="Eve")]]
        for c in clients:
            assert (await c.open(token))[0] == 200
        streams = [await open_stream(c) for c in clients]
        first = [await s.next_table() for s in streams]
        version = first[0]["version"]
        assert [f["seat"] for f in first] == [0, 1, 2, None]
        await play_first_move(fake, app, users)  # a press in the DM: the apps hear of it too
        pushed = [await s.table_at(version + 1) for s in streams]
        row = await _row(app, table_id)
        for seat, table in enumerate(pushed[:3]):
            assert table["seat"] == seat and isinstance(table["view"]["hand"], list)
            if table["version"] == row.version:  # the pushed hand is the seat's own, as the engine shows it
                assert table["view"]["hand"] == app.services.core.state(row).view(seat)["hand"]  # type: ignore[union-attr]
        assert "hand" not in pushed[3]["view"]
        assert all(p["version"] > version for p in pushed)
        # A move from the app reaches the others' apps too.
        mover = pushed[0]["to_act"]
        now = await clients[mover].state()
        table = now[1]["table"]
        status, body = await clients[mover].move(table["version"], table["actions"][0]["action"])
        assert status == 200, body
        for s in streams:
            assert (await s.table_at(table["version"] + 1))["version"] >= table["version"] + 1
        for s in streams:
            s.response.close()


async def _row(app: App, table_id: int) -> Any:
    async with app.store.read() as tx:
        return await tx.table(table_id)


async def test_the_table_speaks_the_chats_language(fake: FakeTelegram, app: App, open_table: OpenTable) -> None:
    users, table_id, _ = await _table(fake, app, open_table, "oh_hell", lang="ru")
    async with aiohttp.ClientSession() as http:
        client = AppClient(http, app, init_data(fake.token, users[0]))
        status, body = await client.open(table_token(app, table_id))
    assert status == 200
    table = body["table"]
    assert table["lang"] == "ru" and table["words"]["your_turn"] == "Ваш ход"
    assert table["title"] != "Oh Hell" and table["lines"]


async def test_a_rummy_lay_down_is_the_whole_new_table(fake: FakeTelegram, app: App, open_table: OpenTable,
                                                       db: Path) -> None:
    users, table_id, state = await _table(fake, app, open_table, "machiavelli")
    seat = state.to_act
    assert seat is not None
    lay = next(a for a in state.legal_actions(seat) if a.startswith("lay "))
    cards, layout = parse_lay(lay)
    melds = lay.split(" / ", 1)[1].split(" | ")
    async with aiohttp.ClientSession() as http:
        client = AppClient(http, app, init_data(fake.token, users[seat]))
        _, body = await client.open(table_token(app, table_id))
        version = body["table"]["version"]
        assert body["table"]["may_lay"] and body["table"]["kind"] == "toggle"
        # The solver proposes a table for the chosen hand cards; nothing is played.
        status, proposed = await client.post("propose", {"cards": lay.split(" / ")[0].split()[1:]})
        assert status == 200 and proposed["layout"], proposed
        status, best = await client.post("propose", {"cards": []})  # no cards: the best lay-down, as Hint
        assert status == 200 and best["layout"], best
        # A layout that breaks a meld is refused with the engine's reason; nothing changes.
        broken = [melds[0].split("-")[0], *melds[1:]] if "-" in melds[0] else ["2C-9D"]
        status, body = await client.post("lay", {"version": version, "layout": broken, "request": "lay-bad-0001"})
        assert status == 409 and body["text"]
        status, body = await client.post("lay", {"version": version, "layout": melds, "request": "lay-good-001"})
        assert status == 200 and body["ok"], body
        assert body["table"]["view"]["table"] == melds
        status, body = await client.post("lay", {"version": version, "layout": melds, "request": "lay-good-001"})
        assert body["text"] == "Already done."
    await settle(fake, app)
    logged = db_rows(db, "SELECT seat, action FROM actions WHERE table_id = ? ORDER BY idx", table_id)
    assert logged[0] == (seat, lay)  # the same explicit lay-down the keyboard's Confirm plays
    assert len(cards) and layout


def test_a_joker_dragged_from_the_hand_takes_the_meaning_its_place_says() -> None:
    from collections import Counter

    from bot.services.app_moves import settle_jokers
    from engine.core import get_game
    from engine.rummy.base import RummyState, flat, lay_text

    state = next(s for seed in range(60) if isinstance(s := get_game("tahiti").new(3, seed=seed), RummyState)
                 and s.to_act is not None and "JK" in s.view(s.to_act)["hand"] and s.may_lay()
                 and any("JK" in a.split(" / ")[0] for a in s.legal_actions(s.to_act) if a.startswith("lay")))
    seat = state.to_act
    lays = [a for a in state.legal_actions(seat) if a.startswith("lay") and "JK" in a.split(" / ")[0]]
    for lay in lays[:6]:
        melds = lay.split(" / ")[1].split(" | ")
        dragged = ["-".join("JK" if c.startswith("JK=") else c for c in m.split("-")) for m in melds]
        _, layout = parse_lay("lay / " + " | ".join(dragged))
        assert layout is not None
        cards = list((Counter(flat(layout)) - Counter(flat(state.table))).elements())
        assert state.canonical_action(lay_text(cards, settle_jokers(state, layout))) == lay, lay
