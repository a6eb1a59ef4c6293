"""The rummy hand's presses over the fake Bot API: forged and stale toggles are refused
and change nothing; a Confirm pressed twice lays down once; a restart between Lay down and Confirm
loses nothing and applies nothing half-way; an ambiguous joker asks which card it stands for."""

from __future__ import annotations

import json
from typing import Any

import pytest

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
JOKER_DEAL = {"dealer": 1, "hands": [["5H", "6H", "JK", "2S", "9D", "KC", "3C", "8S", "QD", "4D"],
                                     ["AS", "AD", "3H", "10C", "JD", "5C", "7D", "9S", "QH", "2C"]]}


async def _table(fake: FakeTelegram, app: Any, ann: FakeUser, boris: FakeUser, game: str, deal: dict[str, Any]) -> int:
    """A running table of Ann and Boris whose state is replaced by the designed deal."""
    group = fake.group("Rummy", members=[ann, boris], creator=ann)
    table = await open_table_in(fake, app, game, [ann, boris], group=group)
    await settle(fake, app)
    return await design_deal(fake, app, table, deal, hands_for=ann)  # Carousel's forced first draw plays itself


def _newest(user: FakeUser, op: str) -> Any:
    """The newest DM message with a rummy button of ``op``."""
    return next(m for m in reversed(user.inbox(include_deleted=False)) if any(d.op == op for d, _ in rum_buttons(m)))


async def _tap(fake: FakeTelegram, user: FakeUser, message: Any, text: str) -> Any:
    return await answered(fake, await user.press(message, text))


def _version(db: Any, table_id: int) -> int:
    return db_rows(db, "SELECT version FROM tables WHERE id = ?", table_id)[0][0]


async def _state(app: Any, table_id: int) -> RummyState:
    async with app.store.read() as tx:
        state = State.from_json((await tx.table(table_id)).state)
    assert isinstance(state, RummyState)
    return state


@pytest.mark.fake(limits=RateLimits.loose())
async def test_forged_and_stale_presses_change_nothing(fake, app, db):
    ann = fake.user(first_name="Ann", language_code="en")
    boris = fake.user(first_name="Boris", language_code="ru")
    table_id = await _table(fake, app, ann, boris, "machiavelli", {"dealer": 1, "hands": [ANN, BORIS]})
    version = _version(db, table_id)
    hand = _newest(ann, "lay")
    await _tap(fake, ann, hand, "7♥")
    await settle(fake, app)
    hand = _newest(ann, "lay")
    assert "✅7♥" in hand.button_texts
    boris_msg = boris.inbox()[-1]
    cases = [
        (ann, hand, Toggle(t=table_id, v=version, op="on", a=13), "not available"),  # no 14th card
        (ann, hand, Toggle(t=table_id, v=version, op="on", a=-1), "not available"),
        (ann, hand, Toggle(t=table_id, v=version - 1, op="on", a=1), "out of date"),  # an old keyboard
        (ann, hand, Toggle(t=table_id, v=version, op="zz", a=0), "not available"),
        (ann, hand, Toggle(t=table_id, v=version, op="ok", a=0), "out of date"),  # no proposal to confirm
        (ann, hand, Toggle(t=table_id, v=version, op="do", a=9), "not available"),
        (ann, hand, Toggle(t=table_id + 1, v=version, op="on", a=0), "not running"),  # another table
        (boris, boris_msg, Toggle(t=table_id, v=version, op="on", a=0), "не ваш ход"),  # not Boris's turn
    ]
    for user, message, data, says in cases:
        record = await answered(fake, await user.press_data(message, data.pack()))
        assert record.show_alert and says in (record.answer_text or "").lower(), (data, record.answer_text)
    await settle(fake, app)
    assert _version(db, table_id) == version
    assert db_rows(db, "SELECT COUNT(*) FROM actions WHERE table_id = ?", table_id) == [(0,)]
    assert "✅7♥" in _newest(ann, "lay").button_texts, "the selection survived the forged presses"
    (ui,), = db_rows(db, "SELECT ui FROM tables WHERE id = ?", table_id)
    assert any(sel["on"] for sel in json.loads(ui)["rsel"].values()), "the stored selection too"


@pytest.mark.fake(limits=RateLimits.loose())
async def test_confirm_twice_lays_down_once_and_a_restart_loses_nothing(fake, run_bot, db):
    ann = fake.user(first_name="Ann", language_code="en")
    boris = fake.user(first_name="Boris", language_code="ru")
    async with run_bot() as app:
        table_id = await _table(fake, app, ann, boris, "machiavelli", {"dealer": 1, "hands": [ANN, BORIS]})
        version = _version(db, table_id)
        for card in ("7♥", "8♥", "9♥"):
            await _tap(fake, ann, _newest(ann, "lay"), card)
            await settle(fake, app)
        await _tap(fake, ann, _newest(ann, "lay"), "🃏 Lay down (3)")
        await settle(fake, app)
        proposal = _newest(ann, "ok")
        assert "7♥ 8♥ 9♥" in proposal.content and "Confirm" in " ".join(proposal.button_texts)
    # the bot stops between Lay down and Confirm; a new process finds the proposal as it was
    assert _version(db, table_id) == version
    assert db_rows(db, "SELECT COUNT(*) FROM actions WHERE table_id = ?", table_id) == [(0,)]
    async with run_bot() as app:  # a new bot on the same database: a restart
        await settle(fake, app)
        ok = next(b for d, b in rum_buttons(proposal) if d.op == "ok")
        first = await answered(fake, await ann.press(proposal, ok["text"]))
        second = await answered(fake, await ann.press_data(proposal, ok["callback_data"]))
        await settle(fake, app)
        assert not first.show_alert and "7♥" in (first.answer_text or "")
        assert second.show_alert and "out of date" in (second.answer_text or "")
        actions = db_rows(db, "SELECT seat, action FROM actions WHERE table_id = ? ORDER BY idx", table_id)
        assert actions == [(0, "lay 7H 8H 9H / 7H-8H-9H")]
        state = await _state(app, table_id)
        assert state.view(None)["table"] == ["7H-8H-9H"] and len(state.hands[0]) == 10
        assert not any(d.op == "ok" for d, _ in rum_buttons(proposal)), "the proposal lost its buttons"
        # Boris's turn now: his hand is live, Ann's is not
        assert any(d.op == "lay" for d, _ in rum_buttons(boris.inbox()[-1]))
        assert not fake.unanswered_callbacks()


@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_refused_lay_down_says_why_in_one_line(fake, app, db):
    ann = fake.user(first_name="Ann", language_code="en")
    boris = fake.user(first_name="Boris", language_code="ru")
    table_id = await _table(fake, app, ann, boris, "machiavelli", {"dealer": 1, "hands": [ANN, BORIS]})
    version = _version(db, table_id)
    for card in ("7♥", "K♣"):
        await _tap(fake, ann, _newest(ann, "lay"), card)
        await settle(fake, app)
    refused = await _tap(fake, ann, _newest(ann, "lay"), "🃏 Lay down (2)")
    assert refused.show_alert and "\n" not in refused.answer_text
    assert "7♥" in refused.answer_text or "K♣" in refused.answer_text
    await settle(fake, app)
    assert _version(db, table_id) == version
    hint = await _tap(fake, ann, _newest(ann, "lay"), "💡 Hint")
    assert "6 cards" in (hint.answer_text or "")  # 7-8-9♥ and 5♠ 5♦ 5♣
    await settle(fake, app)
    assert "🃏 Lay down (6)" in _newest(ann, "lay").button_texts


@pytest.mark.fake(limits=RateLimits.loose())
async def test_an_ambiguous_joker_asks_which_card_it_is(fake, app, db):
    ann = fake.user(first_name="Ann", language_code="en")
    boris = fake.user(first_name="Boris", language_code="ru")
    table_id = await _table(fake, app, ann, boris, "carousel", JOKER_DEAL)
    actions = db_rows(db, "SELECT seat, action FROM actions WHERE table_id = ? ORDER BY idx", table_id)
    assert actions[-1] == (0, "draw"), "Carousel's first draw is forced: it played itself"
    assert (await _state(app, table_id)).drawn == 1
    for card in ("5♥", "6♥", "🃏"):
        await _tap(fake, ann, _newest(ann, "lay"), card)
        await settle(fake, app)
    await _tap(fake, ann, _newest(ann, "lay"), "🃏 Lay down (3)")
    await settle(fake, app)
    question = _newest(ann, "jk")
    assert "joker" in question.content
    assert {"🃏 = 4♥", "🃏 = 7♥"} <= set(question.button_texts)
    await _tap(fake, ann, question, "🃏 = 4♥")
    await settle(fake, app)
    await _tap(fake, ann, _newest(ann, "ok"), "✅ Confirm")
    await settle(fake, app)
    state = await _state(app, table_id)
    assert state.view(None)["table"] == ["JK=4H-5H-6H"]
