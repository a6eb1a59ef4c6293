"""The table app's doors: every refusal of the API, against the bot's real app server and store.

Forged, expired, replayed and another bot's initData are refused; a session needs its proof; a table is
named only by a token the bot signed; a seated player sees their own hand and nobody else's, a
spectator the public view; a move from the app passes the buttons' checks (seat, turn, version) and a
repeated request id plays once.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import aiohttp
import pytest

from bot.app import App
from bot.ui.app_links import AppLinks
from engine.core import State
from tests.bot.harness import OpenTable, settle
from tests.bot.helpers import db_rows
from tests.bot.webapp_helpers import APP_SETTINGS, AppClient, init_data, table_token
from tests.fakebot.server import FakeTelegram

pytestmark = pytest.mark.bot(**APP_SETTINGS)
OTHER_BOT = "999999:" + "B" * 35


async def _table(fake: FakeTelegram, app: App, open_table: OpenTable, game: str = "oh_hell",
                 options: str = "") -> tuple[list[Any], int, State]:
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cy")]
    await open_table(game, users, options=options)
    await settle(fake, app)
    assert app.services is not None
    async with app.store.read() as tx:
        rows = await tx.playing_tables()
    row = rows[0]
    return users, row.id, app.services.core.state(row)


def _cards(text: str) -> set[str]:
    return set(re.findall(r"\b(?:10|[2-9JQKA])[SHDC]\b", text))


async def test_forged_expired_other_bot_and_missing_are_refused(fake: FakeTelegram, app: App,
                                                                open_table: OpenTable) -> None:
    users, table_id, _ = await _table(fake, app, open_table)
    token = table_token(app, table_id)
    good = init_data(fake.token, users[0])
    tampered = good.replace("Ann", "Bob")  # the signed user changed: the hash no longer holds
    cases = {
        "forged": tampered,
        "missing": "",
        "expired": init_data(fake.token, users[0], auth_date=time.time() - 3700),
        "another bot": init_data(OTHER_BOT, users[0]),
        "from the future": init_data(fake.token, users[0], auth_date=time.time() + 600),
    }
    async with aiohttp.ClientSession() as http:
        for what, init in cases.items():
            status, body = await AppClient(http, app, init).open(token)
            assert status == 401, (what, status, body)
            assert "table" not in body and "session" not in body, what
        status, body = await AppClient(http, app, good).open(token)
        assert status == 200 and body["table"]["seat"] == 0


async def test_replayed_init_data_cannot_open_a_second_session(fake: FakeTelegram, app: App,
                                                               open_table: OpenTable) -> None:
    users, table_id, _ = await _table(fake, app, open_table)
    token = table_token(app, table_id)
    init = init_data(fake.token, users[0])
    async with aiohttp.ClientSession() as http:
        first = AppClient(http, app, init)
        assert (await first.open(token))[0] == 200
        again = AppClient(http, app, init)
        status, body = await again.open(token)
        assert (status, body["error"]) == (401, "replayed")
        # Without the session's proof the same initData reads nothing either.
        status, body = await again.state(token)
        assert (status, body["error"]) == (401, "no session")
        again.session = "0" * 64
        assert (await again.state(token))[0] == 401
        # The first session goes on.
        status, body = await first.state()
        assert status == 200 and body["table"]["seat"] == 0


async def test_a_table_is_named_only_by_a_signed_token(fake: FakeTelegram, app: App, open_table: OpenTable) -> None:
    users, table_id, _ = await _table(fake, app, open_table)
    forged = AppLinks.build("https://x/", None, "bot", OTHER_BOT).token(table_id)  # another key
    async with aiohttp.ClientSession() as http:
        for token in (str(table_id), f"{table_id}_", forged, "x_y"):
            status, body = await AppClient(http, app, init_data(fake.token, users[0])).open(token)
            assert (status, body["error"]) == (404, "no table"), token
        client = AppClient(http, app, init_data(fake.token, users[0]))
        assert (await client.open(table_token(app, table_id)))[0] == 200
        assert (await client.state(forged))[0] == 404


async def test_a_player_sees_only_their_own_hand_and_a_spectator_none(fake: FakeTelegram, app: App,
                                                                       open_table: OpenTable) -> None:
    users, table_id, state = await _table(fake, app, open_table, options="hand_sizes=7")
    token = table_token(app, table_id)
    hands = [set(state.view(seat)["hand"]) for seat in range(3)]
    stranger = fake.user(first_name="Eve")
    async with aiohttp.ClientSession() as http:
        for seat, user in enumerate(users):
            status, body = await AppClient(http, app, init_data(fake.token, user)).open(token)
            assert status == 200
            assert set(body["table"]["view"]["hand"]) == hands[seat]
            seen = _cards(str(body))
            for other in range(3):
                if other != seat:
                    assert not seen & hands[other], (seat, other, seen & hands[other])
        status, body = await AppClient(http, app, init_data(fake.token, stranger)).open(token)
        assert status == 200 and body["table"]["seat"] is None
        assert "hand" not in body["table"]["view"] and body["table"]["actions"] == []
        assert not _cards(str(body)) & set().union(*hands)


async def test_moves_pass_the_buttons_checks_and_a_repeat_plays_once(fake: FakeTelegram, app: App,
                                                                     open_table: OpenTable, db: Any) -> None:
    users, table_id, state = await _table(fake, app, open_table)
    token = table_token(app, table_id)
    seat = state.to_act
    assert seat is not None
    async with aiohttp.ClientSession() as http:
        clients = [AppClient(http, app, init_data(fake.token, u)) for u in users]
        stranger = AppClient(http, app, init_data(fake.token, fake.user(first_name="Eve")))
        for c in [*clients, stranger]:
            assert (await c.open(token))[0] == 200
        _, body = await clients[seat].state()
        version, action = body["table"]["version"], body["table"]["actions"][0]["action"]
        other = clients[(seat + 1) % 3]
        status, body = await other.move(version, action)
        assert status == 409 and body["text"] == "It is not your turn."
        status, body = await stranger.move(version, action)
        assert status == 409 and body["text"] == "You are not playing at this table."
        status, body = await clients[seat].move(version - 1, action)
        assert status == 409 and body["stale"]
        status, body = await clients[seat].move(version, "bid 99")
        assert status == 409 and body["text"] == "That move is not available."
        status, body = await clients[seat].move(version, action, request="same-request-1")
        assert status == 200 and body["ok"], body
        status, body = await clients[seat].move(version, action, request="same-request-1")
        assert status == 200 and body["text"] == "Already done."
    await settle(fake, app)
    logged = db_rows(db, "SELECT seat, action FROM actions WHERE table_id = ? ORDER BY idx", table_id)
    assert logged[:1] == [(seat, action)] and [a for _, a in logged].count(action) >= 1
    assert len([r for r in logged if r == (seat, action)]) == 1


async def test_the_groups_direct_link_names_the_table_in_start_param(fake: FakeTelegram, app: App,
                                                                     open_table: OpenTable) -> None:
    users, table_id, _ = await _table(fake, app, open_table)
    async with aiohttp.ClientSession() as http:
        via_link = AppClient(http, app, init_data(fake.token, users[1], start_param=table_token(app, table_id)))
        status, body = await via_link.open("")
        assert status == 200 and body["table"]["seat"] == 1 and body["t"] == table_token(app, table_id)
        forged = AppClient(http, app, init_data(fake.token, users[1], start_param=f"{table_id}_AAAAAAAAAAAAAAAA"))
        assert (await forged.open(""))[0] == 404


async def test_a_refusal_speaks_the_users_language(fake: FakeTelegram, app: App, open_table: OpenTable) -> None:
    users, table_id, _ = await _table(fake, app, open_table)
    ivan = fake.user(first_name="Иван", language_code="ru")
    async with aiohttp.ClientSession() as http:
        status, body = await AppClient(http, app, init_data(OTHER_BOT, ivan)).open(table_token(app, table_id))
    assert status == 401 and body["text"] == "Откройте эту страницу из Telegram."


async def test_one_user_keeps_a_bounded_number_of_open_apps(fake: FakeTelegram, app: App,
                                                            open_table: OpenTable) -> None:
    from bot.webapp.hub import STREAMS_PER_USER
    from bot.webapp.server import LOOK
    from tests.bot.webapp_helpers import open_stream

    users, table_id, _ = await _table(fake, app, open_table)
    async with aiohttp.ClientSession() as http:
        clients = [AppClient(http, app, init_data(fake.token, users[0])) for _ in range(STREAMS_PER_USER + 1)]
        streams = []
        for c in clients[:STREAMS_PER_USER]:
            assert (await c.open(table_token(app, table_id)))[0] == 200
            streams.append(await open_stream(c))
        extra = clients[-1]
        assert (await extra.open(table_token(app, table_id)))[0] == 200
        async with http.get(f"{extra.base}/api/stream", params={"t": extra.token}, headers=extra.headers()) as r:
            assert r.status == 429
        streams[0].response.close()  # one closed: room for another, once the server notices (within LOOK)
        await asyncio.sleep(LOOK * 1.5)
        streams.append(await open_stream(extra))
        for s in streams:
            s.response.close()
