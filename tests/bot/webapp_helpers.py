"""The table app in tests: initData signed as Telegram signs it, and an HTTP client of the app's API.

``init_data`` builds what Telegram hands a Mini App (the bot token's HMAC, per the Mini Apps docs) for a
fake user, so tests exercise aiogram's real validation; ``AppClient`` opens a session and calls the
routes the page calls, over real HTTP against the bot's own app server.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
import uuid
from typing import Any
from urllib.parse import urlencode

import aiohttp

from bot.app import App
from tests.fakebot.users import FakeUser

APP_SETTINGS: dict[str, Any] = {"KOZYR_APP_URL": "https://kozyr.example/app/", "KOZYR_APP_NAME": "table",
                                "KOZYR_APP_PORT": 0}


def init_data(token: str, user: FakeUser, *, auth_date: float | None = None, start_param: str | None = None,
              extra: dict[str, str] | None = None) -> str:
    """initData for ``user`` signed with ``token`` (another token: another bot's initData)."""
    fields = {"user": json.dumps(user.to_api(), separators=(",", ":")),
              "auth_date": str(int(time.time() if auth_date is None else auth_date)),
              "query_id": "AA" + uuid.uuid4().hex[:16]}
    if start_param is not None:
        fields["start_param"] = start_param
    fields.update(extra or {})
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)


def app_base(app: App) -> str:
    assert app.table_app_port, "the bot runs without the table app (KOZYR_APP_URL)"
    return f"http://127.0.0.1:{app.table_app_port}/app"


def table_token(app: App, table_id: int) -> str:
    assert app.table_app is not None
    return app.table_app.links.token(table_id)


class AppClient:
    """One open app: its initData, its session, and the API calls the page makes."""

    def __init__(self, http: aiohttp.ClientSession, app: App, init: str) -> None:
        self.http = http
        self.base = app_base(app)
        self.init = init
        self.session = ""
        self.token = ""

    def headers(self) -> dict[str, str]:
        return {"X-Telegram-Init-Data": self.init, "X-App-Session": self.session}

    async def open(self, token: str) -> tuple[int, dict[str, Any]]:
        async with self.http.post(f"{self.base}/api/open", json={"t": token},
                                  headers={"X-Telegram-Init-Data": self.init}) as r:
            body = await r.json()
        if r.status == 200:
            self.session, self.token = body["session"], body["t"]
        return r.status, body

    async def state(self, token: str | None = None) -> tuple[int, dict[str, Any]]:
        async with self.http.get(f"{self.base}/api/state", params={"t": token or self.token},
                                 headers=self.headers()) as r:
            return r.status, await r.json()

    async def post(self, route: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        async with self.http.post(f"{self.base}/api/{route}", json={"t": self.token, **body},
                                  headers=self.headers()) as r:
            return r.status, await r.json()

    async def move(self, version: int, action: str, request: str | None = None) -> tuple[int, dict[str, Any]]:
        return await self.post("move", {"version": version, "action": action, "request": request or uuid.uuid4().hex})


class Stream:
    """An open app's live stream (server-sent events), read as the page reads it."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self.response = response

    async def next_table(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next ``table`` event's data (keep-alive comments skipped)."""
        event, data = "", ""
        async with asyncio.timeout(timeout):
            while True:
                raw = await self.response.content.readline()
                if not raw:
                    raise EOFError("the stream ended")
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    data = line[6:]
                elif not line and data:
                    if event == "table":
                        return dict(json.loads(data))
                    event, data = "", ""

    async def table_at(self, version: int, timeout: float = 10.0) -> dict[str, Any]:
        """The first pushed table at ``version`` or later."""
        async with asyncio.timeout(timeout):
            while True:
                table = await self.next_table(timeout)
                if table["version"] >= version:
                    return table


async def open_stream(client: AppClient) -> Stream:
    response = await client.http.get(f"{client.base}/api/stream", params={"t": client.token},
                                     headers=client.headers(), timeout=aiohttp.ClientTimeout(total=None))
    assert response.status == 200, await response.text()
    return Stream(response)
