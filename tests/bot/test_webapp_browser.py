"""The table app in a real browser (headless Chromium through Playwright): an Oh Hell trick played by
tapping cards, and a Machiavelli lay-down by drag and drop, against the bot and the fake Bot API; the
stored state, the group's table and the other players' open apps are checked, and screenshots saved
(tests/bot/browser.py: where, and when these tests skip)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bot.app import App
from bot.presentation.registry import presentation
from bot.webapp.views import plain
from tests.bot.browser import (
    DESKTOP,
    cards_shown,
    chromium,
    drag,
    needs_browser,
    open_page,
    page_url,
    shot,
    version_of,
    wait_version,
)
from tests.bot.harness import OpenTable, settle
from tests.bot.helpers import db_rows
from tests.bot.helpers import plain as plain_html
from tests.bot.webapp_helpers import APP_SETTINGS
from tests.fakebot.server import FakeTelegram

pytestmark = [pytest.mark.bot(**APP_SETTINGS), needs_browser, pytest.mark.slow]


async def _playing(app: App) -> Any:
    async with app.store.read() as tx:
        return (await tx.playing_tables())[0]


async def _state(app: App) -> Any:
    assert app.services is not None
    return app.services.core.state(await _playing(app))


async def _check_views(app: App, pages: list[Any], state: Any) -> None:
    """Each page shows its player's own hand and none of another player's cards."""
    hands = [list(state.view(seat).get("hand", [])) for seat in range(len(pages))]
    for seat, page in enumerate(pages):
        assert sorted(await cards_shown(page, "#hand")) == sorted(hands[seat]), seat
        shown = set(await cards_shown(page))
        for other, hand in enumerate(hands):
            if other != seat and state.GAME_ID == "oh_hell":  # one deck: a card is in one hand only
                assert not shown & set(hand), (seat, other)


async def _fits_a_phone(page: Any) -> None:
    """Nothing wider than the 390-pixel screen: no sideways scrolling."""
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390


def _group_shows(group: Any, game: str, view: dict[str, Any], names: list[str]) -> None:
    """The group's newest table message holds the table lines the presentation draws for the spectators."""
    lines = [plain(line) for line in presentation(game).table_lines(view, names, "en")][:3]
    text = plain_html(group.messages()[-1].content)
    assert all(line in text for line in lines), (lines, text)


async def test_an_oh_hell_trick_played_from_the_app(fake: FakeTelegram, app: App, open_table: OpenTable,
                                                    db: Path) -> None:
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cy")]
    table = await open_table("oh_hell", users, options="hand_sizes=7")
    await settle(fake, app)
    row = await _playing(app)
    async with chromium() as browser:
        pages = [await open_page(browser, page_url(fake, app, u, row.id, dark=i == 0)) for i, u in enumerate(users)]
        await shot(pages[0], "oh_hell-bid-390x844")
        await _fits_a_phone(pages[0])
        played = 0
        while played < 3:  # three bids, then one whole trick, every move a tap in somebody's app
            state = await _state(app)
            seat = state.to_act
            page = pages[seat]
            version = await version_of(page)
            if state.view(seat)["phase"] == "bid":
                await page.locator("#moves button.act").first.click()
            else:
                await page.locator("#hand .card.legal").first.click()
                played += 1
            for p in pages:  # every open app hears of the move
                await wait_version(p, version + 1)
        await settle(fake, app)
        state = await _state(app)
        await _check_views(app, pages, state)
        await shot(pages[0], "oh_hell-trick-390x844")
        desktop = await open_page(browser, page_url(fake, app, fake.user(first_name="Eve"), row.id), DESKTOP)
        assert await cards_shown(desktop, "#hand") == []  # a spectator: the public view
        await shot(desktop, "oh_hell-spectator-1280x800")
    logged = db_rows(db, "SELECT action FROM actions WHERE table_id = ? ORDER BY idx", row.id)
    assert [a[0].split()[0] for a in logged] == ["bid"] * 3 + ["play"] * 3
    _group_shows(table.group, "oh_hell", state.view(None), [u.first_name for u in users])


async def test_a_machiavelli_lay_down_by_drag_and_drop(fake: FakeTelegram, app: App, open_table: OpenTable,
                                                       db: Path) -> None:
    users = [fake.user(first_name=n) for n in ("Ann", "Bob", "Cy")]
    table = await open_table("machiavelli", users)
    await settle(fake, app)
    row = await _playing(app)
    state = await _state(app)
    seat = state.to_act
    lay = next(a for a in state.legal_actions(seat) if a.startswith("lay ") and "|" not in a)
    cards = lay.split(" / ")[0].split()[1:]
    async with chromium() as browser:
        pages = [await open_page(browser, page_url(fake, app, u, row.id)) for u in users]
        page = pages[seat]
        await shot(page, "machiavelli-hand-390x844")
        version = await version_of(page)
        # Propose: the solver's best lay-down as a draft (nothing played), then Clear.
        await page.locator("#moves button.act", has_text="Propose").click()
        await page.wait_for_selector(".meld.changed .card.mine")
        assert await version_of(page) == version
        await page.locator("#moves button.act", has_text="Clear").click()
        assert await page.locator(".meld.changed").count() == 0
        for i, card in enumerate(cards):  # the first card opens a new meld, the others join it
            target = page.locator('.meld[data-drop="new"]') if i == 0 else page.locator(".meld.changed").first
            await drag(page, page.locator(f'#hand .card[data-card="{card}"]').first, target)
        assert sorted(await cards_shown(page, ".meld.changed")) == sorted(cards)
        # A card dragged back to the hand leaves the meld; dragged again, it is back.
        await drag(page, page.locator(f'.meld.changed .card[data-card="{cards[-1]}"]').first, page.locator("#hand"))
        assert cards[-1] not in await cards_shown(page, ".meld.changed")
        back = page.locator(f'#hand .card[data-card="{cards[-1]}"]').first
        await drag(page, back, page.locator(".meld.changed").first)
        await shot(page, "machiavelli-draft-390x844")
        await _fits_a_phone(page)
        await page.locator("#lay").click()
        for p in pages:
            await wait_version(p, version + 1)
        await settle(fake, app)
        after = await _state(app)
        for p in pages:  # everybody's app shows the new meld on the table
            assert sorted(await cards_shown(p, "#melds .meld:not(.new)")) == sorted(cards)
        await _check_views(app, pages, after)
        await page.set_viewport_size(DESKTOP)
        await shot(page, "machiavelli-laid-1280x800")
        # The next player moves a table card into a new meld and back (the draft only), then clears it.
        nxt = pages[after.to_act]
        if await nxt.locator('.meld[data-drop="new"]').count():
            table_card = nxt.locator("#melds .meld:not(.new) .card").first
            await drag(nxt, table_card, nxt.locator('.meld[data-drop="new"]'))
            assert await nxt.locator("#melds .meld:not(.new)").count() == 2
            await nxt.locator("#moves button.act", has_text=re.compile("Clear")).click()
            assert await nxt.locator("#melds .meld:not(.new)").count() == 1
    logged = db_rows(db, "SELECT seat, action FROM actions WHERE table_id = ? ORDER BY idx", row.id)
    assert logged[0] == (seat, lay)  # the very lay-down the keyboard's Confirm plays
    assert after.view(None)["table"] == [lay.split(" / ")[1]]
    _group_shows(table.group, "machiavelli", after.view(None), [u.first_name for u in users])


async def test_the_app_speaks_the_chats_russian(fake: FakeTelegram, app: App, open_table: OpenTable) -> None:
    users = [fake.user(first_name=n, language_code="ru") for n in ("Аня", "Боря", "Сеня")]
    await open_table("oh_hell", users, options="hand_sizes=7")
    await settle(fake, app)
    row = await _playing(app)
    seat = (await _state(app)).to_act
    async with chromium() as browser:
        page = await open_page(browser, page_url(fake, app, users[seat], row.id, dark=True))
        assert await page.text_content("#status") == "Ваш ход"
        assert await page.get_attribute("html", "lang") == "ru"
        assert await page.locator("#moves button.act").count() > 0  # the bids
        await shot(page, "oh_hell-ru-390x844")
