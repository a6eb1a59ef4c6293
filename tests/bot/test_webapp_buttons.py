"""Opening the table app: a ``web_app`` button under the DM hand, a ``url`` button to the app's direct link
under the group's table (Telegram, and the fake Bot API, refuse ``web_app`` buttons in groups); none of
them when the app is not configured. The page itself: within its weight, shipped whole, served safely."""

from __future__ import annotations

import asyncio
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import aiohttp
import pytest
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.app import App
from bot.webapp.server import STATIC
from tests.bot.harness import OpenTable, free_port, settings_for, settle
from tests.bot.webapp_helpers import APP_SETTINGS, app_base
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import FakeTelegram

PAGE_LIMIT = 150 * 1024  # bytes of HTML, CSS and JS, uncompressed
STATIC_DIR = Path(__file__).resolve().parents[2] / "bot" / "webapp" / "static"


def _buttons(messages: list[object], kind: str) -> list[dict[str, object]]:
    return [b for m in messages for b in getattr(m, "buttons", []) if kind in b]


@pytest.mark.bot(**APP_SETTINGS)
async def test_the_dm_gets_a_web_app_button_and_the_group_a_direct_link(fake: FakeTelegram, app: App,
                                                                        open_table: OpenTable) -> None:
    users = [fake.user(first_name=n) for n in ("Ann", "Bob")]
    table = await open_table("oh_hell", users, ais=1)
    await settle(fake, app)
    assert app.table_app is not None
    links = app.table_app.links
    async with app.store.read() as tx:
        table_id = (await tx.playing_tables())[0].id
    for user in users:
        web = _buttons(user.inbox(include_deleted=False), "web_app")
        assert web, f"{user.first_name}'s hand has no app button"
        url = urlparse(web[-1]["web_app"]["url"])  # type: ignore[index]
        assert url.scheme == "https" and url.netloc == "kozyr.example"
        assert links.table_of(parse_qs(url.query)["t"][0]) == table_id
    group = table.group.messages()
    assert not _buttons(group, "web_app")
    direct = [b for b in _buttons(group, "url") if "startapp=" in str(b["url"])]
    assert direct, "the group's table has no link to the app"
    link = urlparse(str(direct[-1]["url"]))
    assert (link.netloc, link.path) == ("t.me", f"/{links.bot_username}/table")
    assert links.table_of(parse_qs(link.query)["startapp"][0]) == table_id


async def test_without_the_app_there_are_no_app_buttons(fake: FakeTelegram, app: App, open_table: OpenTable) -> None:
    users = [fake.user(first_name=n) for n in ("Ann", "Bob")]
    table = await open_table("oh_hell", users, ais=1)
    await settle(fake, app)
    assert app.table_app is None and app.table_app_port is None
    for user in users:
        assert not _buttons(user.inbox(include_deleted=False), "web_app")
    assert not [b for b in _buttons(table.group.messages(), "url") if "startapp=" in str(b["url"])]


async def test_telegram_refuses_web_app_buttons_in_groups(fake: FakeTelegram, app: App) -> None:
    user = fake.user(first_name="Ann")
    group = fake.group("g", members=[user])
    button = InlineKeyboardButton(text="app", web_app=WebAppInfo(url="https://kozyr.example/app/"))
    with pytest.raises(TelegramBadRequest, match="BUTTON_TYPE_INVALID"):
        await app.bot.send_message(group.id, "x", reply_markup=InlineKeyboardMarkup(inline_keyboard=[[button]]))


def test_the_page_weighs_under_150_kb_and_loads_only_itself() -> None:
    sizes = {name: (STATIC_DIR / name).stat().st_size for name in STATIC}
    assert sum(sizes.values()) <= PAGE_LIMIT, sizes
    html = (STATIC_DIR / "index.html").read_text()
    assert 'src="app.js"' in html and 'href="app.css"' in html
    # No third-party code but Telegram's own script; no inline script or style (the CSP forbids them).
    assert "<script>" not in html and "style=" not in html
    assert set(__import__("re").findall(r'src="(https?://[^"]+)"', html)) <= {"https://telegram.org/js/telegram-web-app.js"}


def test_the_page_ships_in_the_wheel() -> None:
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    for pattern in ("webapp/static/*.html", "webapp/static/*.js", "webapp/static/*.css"):
        assert f'"{pattern}"' in pyproject, pattern


@pytest.mark.bot(**APP_SETTINGS)
async def test_the_page_is_served_with_its_headers(fake: FakeTelegram, app: App) -> None:
    async with aiohttp.ClientSession() as http:
        for name, kind in STATIC.items():
            async with http.get(f"{app_base(app)}/{name}") as r:
                assert r.status == 200 and r.content_type == kind
                assert r.headers["X-Content-Type-Options"] == "nosniff"
                assert "script-src 'self' https://telegram.org" in r.headers["Content-Security-Policy"]
                assert await r.read() == (STATIC_DIR / name).read_bytes()
        async with http.get(app_base(app) + "?t=x", allow_redirects=False) as r:
            assert r.status == 302 and r.headers["Location"] == "/app/?t=x"
        async with http.get(f"{app_base(app)}/../bot/config.py") as r:
            assert r.status == 404


@pytest.mark.fake(limits=RateLimits.loose())
async def test_in_webhook_mode_the_app_is_served_beside_the_webhook(fake: FakeTelegram, tmp_path: Path) -> None:
    port = free_port()
    app = App(settings_for(fake, tmp_path / "k.sqlite3", WEBHOOK_URL="https://kozyr.example/hook/", WEBHOOK_PORT=port,
                           **APP_SETTINGS))
    serving = asyncio.create_task(app.serve())
    try:
        await fake.wait_until(lambda: fake.calls_of("setWebhook"), timeout=60, what="setWebhook")
        assert app.table_app is not None and app.table_app_port is None  # no server of its own
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/app/") as r:
                assert r.status == 200 and "app.js" in await r.text()
            async with http.post(f"http://127.0.0.1:{port}/app/api/open", json={"t": "1_x"}) as r:
                assert r.status == 401  # no initData
            async with http.get(f"http://127.0.0.1:{port}/healthz") as r:
                assert r.status == 200
    finally:
        serving.cancel()
        await asyncio.gather(serving, return_exceptions=True)
        await app.stop()


def test_the_app_settings_are_checked() -> None:
    from pydantic import ValidationError

    from bot.config import Settings, problems_of

    base = {"BOT_TOKEN": "123456:" + "A" * 35}
    assert Settings(_env_file=None, **base).app_url is None  # type: ignore[call-arg]  # off unless configured
    for bad, variable in (({"KOZYR_APP_URL": "http://kozyr.example/app/"}, "KOZYR_APP_URL"),
                          ({"KOZYR_APP_NAME": "a b"}, "KOZYR_APP_NAME"),
                          ({"KOZYR_APP_MAX_AGE": 0}, "KOZYR_APP_MAX_AGE")):
        with pytest.raises(ValidationError) as caught:
            Settings(_env_file=None, **base, **bad)  # type: ignore[call-arg]  # pydantic-settings' init-only argument
        assert [p.split(":")[0] for p in problems_of(caught.value)] == [variable]
