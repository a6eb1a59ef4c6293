"""Headless Chromium for the table app's browser tests: Debian's ``chromium`` driven by Playwright.

Playwright's own browser download needs the internet; Debian's package does not, so the browser is
launched from ``CHROMIUM`` (``/usr/bin/chromium`` unless ``KOZYR_CHROMIUM`` says otherwise). The tests
skip, saying why, where either is missing. Screenshots go to ``SHOTS`` (``build/app-screenshots/`` in
the repository, or ``KOZYR_SCREENSHOTS``), at a phone's 390×844 and a desktop's 1280×800.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from bot.app import App
from tests.bot.webapp_helpers import app_base, init_data, table_token
from tests.fakebot.server import FakeTelegram
from tests.fakebot.users import FakeUser

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("KOZYR_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = Path(os.environ.get("KOZYR_SCREENSHOTS") or ROOT / "build" / "app-screenshots")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
THEME = {"bg_color": "#17212b", "text_color": "#f5f5f5", "hint_color": "#708499", "link_color": "#6ab3f3",
         "button_color": "#5288c1", "button_text_color": "#ffffff", "secondary_bg_color": "#232e3c"}


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if importlib.util.find_spec("playwright") is None:
        return "Playwright for Python is not installed (pip install playwright; the test extra has it)"
    if not Path(CHROMIUM).is_file():
        return f"no Chromium at {CHROMIUM} (apt-get install -y chromium; or set KOZYR_CHROMIUM)"
    return None


needs_browser = pytest.mark.skipif(missing() is not None, reason=missing() or "")


@asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield browser
        finally:
            await browser.close()


def page_url(fake: FakeTelegram, app: App, user: FakeUser, table_id: int, dark: bool = False) -> str:
    """The page as Telegram opens it: the table token in the query, initData (and the theme) in the hash."""
    init = init_data(fake.token, user)
    fragment = f"tgWebAppData={quote(init)}&tgWebAppVersion=8.0&tgWebAppPlatform=android"
    if dark:
        fragment += "&tgWebAppThemeParams=" + quote(json.dumps(THEME))
    return f"{app_base(app)}/?t={table_token(app, table_id)}#{fragment}"


async def open_page(browser: Any, url: str, viewport: dict[str, int] = PHONE) -> Any:
    """A page in its own browser context (its own sessionStorage, as another phone), rendered once."""
    # bypass_csp: the page forbids eval, which Playwright's waiting for a condition uses
    context = await browser.new_context(viewport=viewport, device_scale_factor=1, bypass_csp=True,
                                        has_touch=viewport["width"] < 600)
    page = await context.new_page()
    await page.route("https://telegram.org/**", lambda route: route.abort())  # no internet here
    await page.goto(url)
    await page.wait_for_selector("body[data-version]", timeout=15000)
    return page


async def shot(page: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    await page.screenshot(path=str(path), full_page=True)
    return path


async def version_of(page: Any) -> int:
    return int(await page.get_attribute("body", "data-version") or -1)


async def wait_version(page: Any, version: int, timeout: float = 15000) -> None:
    await page.wait_for_function(f"Number(document.body.dataset.version) >= {version}", timeout=timeout)


async def cards_shown(page: Any, where: str = "") -> list[str]:
    return list(await page.eval_on_selector_all(f"{where} .card[data-card]", "els => els.map(e => e.dataset.card)"))


async def drag(page: Any, source: Any, target: Any) -> None:
    """A finger's drag: press on ``source``, move in steps, release over ``target`` (pointer events)."""
    box, goal = await source.bounding_box(), await target.bounding_box()
    assert box and goal
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await page.mouse.down()
    await page.mouse.move(goal["x"] + goal["width"] / 2, goal["y"] + goal["height"] / 2, steps=8)
    await page.mouse.up()
