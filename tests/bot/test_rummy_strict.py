"""The rummies' target: a full 4-player Machiavelli game between AI seats through the bot, with
pictures (the table edited in place, the penalty sheet, the standings), under the fake server's
Telegram-like limits and the bot's own Telegram pacing, finishes without a single limit hit."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from tests.bot.harness import find, settle, telegram_pacing
from tests.bot.helpers import replay_log

# Telegram's limits and the bot's pacing for them, both ten times faster: the same game in a tenth of the wait.
SCALE = 10


@pytest.mark.slow
@pytest.mark.fake(time_scale=SCALE)
@pytest.mark.bot(KOZYR_PICTURES=True, KOZYR_AI_DELAY=0.05, **telegram_pacing(SCALE))
async def test_four_ai_seats_play_machiavelli_with_pictures_within_telegram_limits(fake, app, db, capsys):
    ann = fake.user(first_name="Ann", language_code="ru")
    group = fake.group("Макиавелли", members=[ann], creator=ann)
    # /new by hand, not open_table: Ann has not opened the bot, so she is not seated; she only watches.
    await ann.send(group, "/new machiavelli")
    lobby = await fake.wait_for_message(group, lambda m: bool(m.buttons), timeout=10)
    for _ in range(4):
        await ann.press(lobby, "🤖 Добавить бота")
        await settle(fake, app, timeout=60)
    await ann.press(lobby, "▶️ Начать")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 900
    while find(group, "🏁") is None:
        assert loop.time() < deadline, "the game did not end"
        await asyncio.sleep(0.2)
    await settle(fake, app, timeout=120)
    state, log, _events, _names = replay_log(db)
    assert state.over and len(state.scores()) == 4
    calls = Counter(c.method for c in fake.calls)
    photos = [m for m in group.messages() if m.kind == "photo"]
    with capsys.disabled():
        print(f"\nmachiavelli 4 AI: {len(log)} moves, calls {dict(calls)}, "
              f"rate_limited {fake.stats['rate_limited']}, errors {len(fake.errors)}, "
              f"group photos {len(photos)}, table edits {sum(m.edit_count for m in photos)}")
    assert fake.stats["rate_limited"] == 0
    assert not fake.errors, [(c.method, c.description) for c in fake.errors[:3]]
    assert any("Штрафы" in m.content for m in photos), "the penalty sheet"
    assert all(len(m.content) <= 1024 for m in photos)
