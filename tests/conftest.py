"""Shared pytest configuration: the fake Telegram server's fixtures (``fake``, ``fake_bot``: tests/fakebot/fixtures.py)
and the running bot's (``db``, ``app``, ``open_table``: tests/bot/harness.py), for every test."""

pytest_plugins = ["tests.fakebot.fixtures", "tests.bot.harness"]
