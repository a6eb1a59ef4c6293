"""Pytest fixtures for the fake Telegram server (loaded from tests/conftest.py via pytest_plugins)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from .ratelimit import RateLimits
from .server import FakeTelegram


@pytest.fixture
def fake_tg_limits() -> RateLimits:
    """Rate limits for ``fake_tg``: Telegram-like.  Override this fixture in a module/conftest to change them,
    e.g. ``return RateLimits.loose()`` for fast game simulations."""
    return RateLimits()


@pytest.fixture
async def fake_tg(fake_tg_limits: RateLimits) -> AsyncIterator[FakeTelegram]:
    """A started FakeTelegram on 127.0.0.1 (ephemeral port), stopped after the test."""
    async with FakeTelegram(limits=fake_tg_limits) as fake:
        yield fake


@pytest.fixture
async def fake_bot(fake_tg: FakeTelegram) -> AsyncIterator[Any]:
    """A real aiogram Bot pointed at ``fake_tg``; its HTTP session is closed after the test."""
    bot = fake_tg.make_bot()
    try:
        yield bot
    finally:
        await bot.session.close()
