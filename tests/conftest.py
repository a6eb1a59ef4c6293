"""Shared pytest configuration.  Fixtures of the fake Telegram server live in tests/fakebot/fixtures.py."""

pytest_plugins = ["tests.fakebot.fixtures"]
