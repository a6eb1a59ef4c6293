"""Pytest fixtures for the fake Telegram server (loaded from tests/conftest.py via pytest_plugins)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from .ratelimit import RateLimits
from .server import FakeTelegram


@pytest.fixture
def fake_limits() -> RateLimits:
    """Rate limits for ``fake``: Telegram-like. A test module overrides this fixture to change them for all
    its tests (``return RateLimits.off()``); one test uses ``@pytest.mark.fake(limits=RateLimits.loose())``."""
    return RateLimits()


@pytest.fixture
async def fake(fake_limits: RateLimits, request: pytest.FixtureRequest) -> AsyncIterator[FakeTelegram]:
    """A started FakeTelegram on 127.0.0.1 (an ephemeral port: parallel workers never collide), stopped after
    the test. ``@pytest.mark.fake(**kwargs)`` passes FakeTelegram's keyword arguments (limits, time_scale...)."""
    marker = request.node.get_closest_marker("fake")
    kwargs: dict[str, Any] = {"limits": fake_limits, **(marker.kwargs if marker else {})}
    async with FakeTelegram(**kwargs) as started:
        yield started


@pytest.fixture
async def fake_bot(fake: FakeTelegram) -> AsyncIterator[Any]:
    """A real aiogram Bot pointed at ``fake``; its HTTP session is closed after the test."""
    bot = fake.make_bot()
    try:
        yield bot
    finally:
        await bot.session.close()
