"""The seven manipulation rummies through the bot over the fake Bot API: whole games with
people (Hint, Lay down, Confirm, the verbs) and AI seats, each checked against a replay of the log."""

from __future__ import annotations

import random

import pytest

from tests.bot.harness import find, settle
from tests.bot.helpers import replay_log
from tests.bot.rummy_driver import play_rummy
from tests.fakebot.ratelimit import RateLimits

CASES = [
    ("machiavelli", 1, 1, "deals=1"),
    ("carousel", 1, 1, "target=30"),
    ("tahiti", 1, 1, ""),
    ("guadalupe", 1, 1, ""),
    ("vatican", 1, 1, ""),
    ("shanghai", 1, 2, ""),
    ("manipulation", 1, 2, "deals=1 target=0"),
    ("machiavelli", 2, 0, ""),
]


@pytest.mark.parametrize(("game", "humans", "ai", "args"), CASES)
@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_whole_rummy_game(fake, app, db, open_table, game, humans, ai, args):
    people = [fake.user(first_name=n, language_code=lang) for n, lang in [("Ann", "en"), ("Борис", "ru")][:humans]]
    group = fake.group("Rummy", members=people, creator=people[0])
    await open_table(game, people, ais=ai, options=args, group=group)
    await settle(fake, app)
    assert find(group, "cannot be played") is None
    counts = await play_rummy(fake, app, group, people, random.Random(hash(game) & 0xFFFF), toggles=0.1)
    await settle(fake, app)
    state, log, _events, _names = replay_log(db)
    assert state.over
    human_seats = set(range(humans))
    laid = [a for s, a in log if s in human_seats and a.startswith("lay ")]
    assert counts.get("ok", 0) == len(laid), "every confirmed proposal is one logged lay-down"
    assert laid, "the people laid cards down through the proposal"
    assert counts.get("hint", 0) >= 1
    # a keyboard taken off twice (an old hand at a new deal) is Telegram's benign "not modified"
    errors = [c for c in fake.errors if "not modified" not in (c.description or "")]
    assert not errors, [(c.method, c.description) for c in errors[:3]]
    assert not fake.unanswered_callbacks()
    for message in group.messages():
        assert len(message.content) <= 4096
