"""Machiavelli's penalty for giving up a started lay-down (RULES.md 9.1: draw 3) is offered only while a
lay-down is in progress, never beside Draw on every turn, and it is worded for what it does, in both
languages; the group's log says what happened. A forged press with nothing to give up changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.presentation.registry import presentation
from bot.ui.callbacks import Toggle
from engine.core import State
from engine.rummy.base import RummyState
from tests.bot.harness import design_deal, open_table_in, settle
from tests.bot.helpers import answered, db_rows
from tests.bot.rummy_driver import rum_buttons
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import FakeTelegram
from tests.fakebot.users import FakeUser

ANN = ["7H", "8H", "9H", "5S", "5D", "5C", "KC", "QD", "2S", "3D", "4C", "JH", "10S"]
BORIS = ["7S", "8S", "9S", "6H", "6D", "6C", "KD", "QC", "2H", "3C", "4D", "JS", "10H"]
GIVE_UP = {"en": "Give up the lay-down (draw 3)", "ru": "Отказаться от выкладки (взять 3)"}


async def _table(fake: FakeTelegram, app: Any, ann: FakeUser, boris: FakeUser) -> tuple[Any, int]:
    """Ann and Boris at Machiavelli, the designed deal dealt, Ann to play: the group and the table's id."""
    table = await open_table_in(fake, app, "machiavelli", [ann, boris],
                                group=fake.group("Machiavelli", members=[ann, boris], creator=ann))
    await settle(fake, app)
    table_id = await design_deal(fake, app, table, {"dealer": 1, "hands": [ANN, BORIS]}, hands_for=ann)
    return table.group, table_id


def _hand(user: FakeUser) -> Any:
    return next(m for m in reversed(user.inbox(include_deleted=False)) if any(d.op == "do" for d, _ in rum_buttons(m)))


def _verbs(message: Any) -> list[str]:
    return [b["text"] for d, b in rum_buttons(message) if d.op == "do"]


async def _tap(fake: FakeTelegram, app: Any, user: FakeUser, text: str) -> Any:
    record = await answered(fake, await user.press(_hand(user), text))
    await settle(fake, app)
    return record


def _hand_sizes(db: Any, table_id: int) -> list[int]:
    state = State.from_json(json.loads(db_rows(db, "SELECT state FROM tables WHERE id = ?", table_id)[0][0]))
    assert isinstance(state, RummyState)
    return [len(h) for h in state.hands]


@pytest.mark.fake(limits=RateLimits.loose())
async def test_give_up_is_offered_only_for_a_lay_down_in_progress(fake, app, db):
    ann = fake.user(first_name="Ann", language_code="en")
    boris = fake.user(first_name="Boris", language_code="ru")
    group, table_id = await _table(fake, app, ann, boris)

    hand = _hand(ann)
    assert _verbs(hand) == ["📥 Draw"], "a turn with nothing under way offers Draw alone"
    # A forged press of the penalty verb, with nothing chosen: refused, nothing moves.
    version = db_rows(db, "SELECT version FROM tables WHERE id = ?", table_id)[0][0]
    index = presentation("machiavelli").toggle_verbs.index("abandon")
    forged = await answered(fake, await ann.press_data(hand, Toggle(t=table_id, v=version, op="do", a=index).pack()))
    await settle(fake, app)
    assert forged.answer_text == "That move is not available." and forged.show_alert
    assert db_rows(db, "SELECT version FROM tables WHERE id = ?", table_id)[0][0] == version
    assert _hand_sizes(db, table_id) == [13, 13]

    # Ann chooses a card: a lay-down is under way, and giving it up is offered, said as what it does.
    await _tap(fake, app, ann, "7♥")
    assert _verbs(_hand(ann)) == ["📥 Draw", GIVE_UP["en"]]
    await _tap(fake, app, ann, "✅7♥")  # unchosen again: nothing under way
    assert _verbs(_hand(ann)) == ["📥 Draw"]
    await _tap(fake, app, ann, "7♥")
    await _tap(fake, app, ann, "8♥")
    await _tap(fake, app, ann, GIVE_UP["en"])
    assert _hand_sizes(db, table_id) == [16, 13], "the chosen cards stay in hand and 3 penalty cards come"
    log = "\n".join(m.content for m in group.messages())
    assert "Ann gives up a lay-down and draws 3 penalty cards" in log
    assert "abandons the move" not in log

    # Boris plays in Russian: Draw alone, then the Russian words once he chooses a card.
    assert _verbs(_hand(boris)) == ["📥 Взять"]
    await _tap(fake, app, boris, "7♠")
    assert _verbs(_hand(boris)) == ["📥 Взять", GIVE_UP["ru"]]
