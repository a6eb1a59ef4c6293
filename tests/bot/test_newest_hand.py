"""The hand a player must act on is the newest message of their DM, or comes as a new one: a turn edited into
a hand message that newer messages (a lay-down's proposal, a reply) have pushed up would go unseen."""

from __future__ import annotations

from typing import Any

import pytest

from tests.bot.harness import design_deal, open_table_in, settle
from tests.bot.helpers import answered
from tests.bot.rummy_driver import rum_buttons
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import FakeTelegram
from tests.fakebot.users import FakeUser

ANN = ["7H", "8H", "9H", "5S", "5D", "5C", "KC", "QD", "2S", "3D", "4C", "JH", "10S"]
BORIS = ["7S", "8S", "9S", "6H", "6D", "6C", "KD", "QC", "2H", "3C", "4D", "JS", "10H"]


async def _machiavelli(fake: FakeTelegram, app: Any, ann: FakeUser, boris: FakeUser) -> None:
    """Ann and Boris at Machiavelli, the designed deal dealt, Ann to play."""
    table = await open_table_in(fake, app, "machiavelli", [ann, boris],
                                group=fake.group("Rummy", members=[ann, boris], creator=ann))
    await settle(fake, app)
    await design_deal(fake, app, table, {"dealer": 1, "hands": [ANN, BORIS]}, hands_for=ann)


def _live_hand(user: FakeUser) -> Any:
    """The user's hand message with the turn's verbs (Draw ...): the one to act on."""
    return next(m for m in reversed(user.inbox(include_deleted=False))
                if any(d.op == "do" for d, _ in rum_buttons(m)))


def _newest(user: FakeUser) -> Any:
    return user.dm.messages(include_deleted=False)[-1]


async def _tap(fake: FakeTelegram, app: Any, user: FakeUser, message: Any, text: str) -> None:
    await answered(fake, await user.press(message, text))
    await settle(fake, app)


@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_turn_comes_below_the_proposal_and_below_a_reply(fake, app):
    ann = fake.user(first_name="Ann", language_code="en")
    boris = fake.user(first_name="Boris", language_code="en")
    await _machiavelli(fake, app, ann, boris)

    # Ann lays 7♥ 8♥ 9♥ down through the proposal: the proposal is her DM's newest message.
    for card in ("7♥", "8♥", "9♥"):
        await _tap(fake, app, ann, _live_hand(ann), card)
    await _tap(fake, app, ann, _live_hand(ann), "🃏 Lay down (3)")
    proposal = _newest(ann)
    assert "✅ Confirm" in proposal.button_texts
    await _tap(fake, app, ann, proposal, "✅ Confirm")
    # Boris draws (seconds after Ann pressed: she is at the screen, so no ping was due before).
    await _tap(fake, app, boris, _live_hand(boris), "📥 Draw")
    newest = _newest(ann)
    assert any(d.op == "do" for d, _ in rum_buttons(newest)), (
        f"Ann's turn is not her DM's newest message (that is {newest.content[:60]!r}): "
        "it was edited into the hand above the proposal")
    assert sum(1 for m in ann.inbox(include_deleted=False) if rum_buttons(m)) == 1, "one live keyboard"

    # Ann draws, then asks the bot something in her DM; Boris's move gives her the turn below the reply.
    await _tap(fake, app, ann, _live_hand(ann), "📥 Draw")
    await ann.send("/mytables")
    await settle(fake, app)
    reply = _newest(ann)
    assert "Your tables" in reply.content
    await _tap(fake, app, boris, _live_hand(boris), "📥 Draw")
    newest = _newest(ann)
    assert newest.message_id > reply.message_id and any(d.op == "do" for d, _ in rum_buttons(newest)), (
        "Ann's turn is not below the bot's reply")
    assert sum(1 for m in ann.inbox(include_deleted=False) if rum_buttons(m)) == 1, "one live keyboard"
