"""Shared pytest configuration: the fake Telegram server's fixtures (``fake``, ``fake_bot``: tests/fakebot/fixtures.py)
the running bot's (``db``, ``app``, ``open_table``: tests/bot/harness.py) and both stores' (``store``:
tests/store/backends.py), for every test."""

pytest_plugins = ["tests.fakebot.fixtures", "tests.bot.harness", "tests.store.backends"]
