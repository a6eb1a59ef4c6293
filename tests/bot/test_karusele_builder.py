"""The Karusele capture builder over the fake Bot API: the player picks the hand card,
toggles table cards (🚫 marks the ones that leave no way to finish), confirms, and the engine checks;
a refusal is shown in the player's language and changes nothing; forged presses are refused."""

from __future__ import annotations

from typing import Any

import pytest

from bot.ui.callbacks import Cap
from engine.core import State
from tests.bot.harness import design_deal, open_table_in, settle
from tests.bot.helpers import answered, db_rows
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import FakeTelegram
from tests.fakebot.users import FakeUser

# The example: with AH 5C JD 10C 8D 4D (and courts) on the table and J11 trailed, J15 may take
# just 4D+J11 and leave 5C and 10C, a capture the one-press shortcuts (the largest ones) do not list.
DEAL = {"dealer": 1, "hands": [["J11", "2C", "3C", "5S"], ["J15", "KD", "KC", "QS"]],
        "table": ["AH", "5C", "JD", "10C", "8D", "4D", "KH", "QH"]}


async def _designed_table(fake: FakeTelegram, app: Any, ann: FakeUser, boris: FakeUser) -> int:
    """A running two-player table, its state replaced by the designed deal after Ann trails J11."""
    group = fake.group("Fishers", members=[ann, boris], creator=ann)
    table = await open_table_in(fake, app, "karusele", [ann, boris], group=group)
    await settle(fake, app)
    return await design_deal(fake, app, table, DEAL, moves=[(0, "trail J11")], hands_for=boris)


def _hand(user: FakeUser) -> Any:
    return next(m for m in reversed(user.inbox(include_deleted=False)) if m.buttons)


def _labels(message: Any) -> list[str]:
    return [b["text"] for b in message.buttons]


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PICTURES=False)
async def test_build_a_capture_card_by_card(fake, app, db):
    ann = fake.user(first_name="Ann", language_code="en")
    boris = fake.user(first_name="Boris", language_code="ru")
    table_id = await _designed_table(fake, app, ann, boris)
    hand = _hand(boris)
    await answered(fake, await boris.press(hand, "J15 …"))
    await settle(fake, app)
    menu = _hand(boris)
    shortcuts = [t for t in _labels(menu) if t.startswith("J15 берёт")]
    assert shortcuts and not any(t == "J15 берёт 4♦+J11" for t in shortcuts)  # not among the largest
    await answered(fake, await boris.press(menu, lambda b: b["callback_data"].startswith("cp:")))
    await settle(fake, app)
    builder = _hand(boris)
    assert "Взять" in builder.content or "карты" in builder.content
    # the cards J15 may add; 8♦ is in no group of 15 here (8 + 7, and no 7 can be made)
    assert {"A♥", "5♣", "10♣", "🚫 8♦", "4♦", "J11"} <= set(_labels(builder))
    await answered(fake, await boris.press(builder, "J11"))
    await settle(fake, app)
    builder = _hand(boris)
    labels = set(_labels(builder))
    assert {"✅ J11", "🚫 A♥", "🚫 8♦", "4♦", "5♣", "10♣"} <= labels  # A♥ and 8♦ cannot finish it now
    version = db_rows(db, "SELECT version FROM tables WHERE id = ?", table_id)[0][0]
    assert "Взять (1)" in labels  # no ✔️: J11 alone is not a capture yet
    refused = await answered(fake, await boris.press(builder, "Взять (1)"))
    assert refused.show_alert and "15" in (refused.answer_text or "")
    assert refused.answer_text == "J11 в сумме 11: это не делится на группы по 15"  # in Boris's Russian
    assert db_rows(db, "SELECT version FROM tables WHERE id = ?", table_id)[0][0] == version
    await answered(fake, await boris.press(builder, "4♦"))
    await settle(fake, app)
    builder = _hand(boris)
    await answered(fake, await boris.press(builder, "✔️ Взять (2)"))
    await settle(fake, app)
    actions = db_rows(db, "SELECT seat, action FROM actions WHERE table_id = ? ORDER BY idx", table_id)
    assert actions[-1] == (1, "take J15 4D+J11")
    async with app.store.read() as tx:
        state = State.from_json((await tx.table(table_id)).state)
    left = {it["cards"][0] for it in state.view(None)["table"]}
    assert {"5C", "10C"} <= left and not {"4D", "J11"} & left
    assert not fake.unanswered_callbacks()


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PICTURES=False)
async def test_the_builder_replaces_the_hand_keyboard_and_back_restores_it(fake, app, db):
    """The builder lives in the player's current hand message (the one a turn ping made, numbered apart
    from the deal): opening it adds no message, and Back brings the hand keyboard back on that message.
    A builder sent as a message of its own kept its keyboard after Back: the player was stuck in it."""
    ann = fake.user(first_name="Ann", language_code="en")
    boris = fake.user(first_name="Boris", language_code="en")
    await _designed_table(fake, app, ann, boris)
    hand = _hand(boris)
    count = len(boris.inbox())
    await answered(fake, await boris.press(hand, "J15 …"))
    await settle(fake, app)
    await answered(fake, await boris.press(_hand(boris), lambda b: b["callback_data"].startswith("cp:")))
    await settle(fake, app)
    builder = _hand(boris)
    assert builder.message_id == hand.message_id and len(boris.inbox()) == count
    assert "J11" in _labels(builder)
    await answered(fake, await boris.press(builder, "« Back"))
    await settle(fake, app)
    live = [m for m in boris.inbox(include_deleted=False) if m.buttons]
    assert [m.message_id for m in live] == [hand.message_id]
    assert "J15 …" in _labels(live[0]) and not any(b["callback_data"].startswith("cp:")
                                                   for b in live[0].buttons)
    assert not fake.unanswered_callbacks()


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PICTURES=False)
async def test_forged_builder_presses_are_refused(fake, app, db):
    ann = fake.user(first_name="Ann", language_code="en")
    boris = fake.user(first_name="Boris", language_code="ru")
    table_id = await _designed_table(fake, app, ann, boris)
    version = db_rows(db, "SELECT version FROM tables WHERE id = ?", table_id)[0][0]
    hand = _hand(boris)
    ann_msg = ann.inbox()[-1]
    cases = [
        (ann, ann_msg, Cap(t=table_id, v=version, c="J11", m=0, go=1), "turn"),  # not Ann's turn
        (boris, hand, Cap(t=table_id, v=version, c="2C", m=0), "невозможен"),  # not in his hand
        (boris, hand, Cap(t=table_id, v=version, c="J15", m=1 << 30), "невозможен"),  # no such card
        (boris, hand, Cap(t=table_id, v=version - 1, c="J15", m=0), "устар"),  # an old keyboard
        (boris, hand, Cap(t=table_id, v=version, c="ZZ", m=0), "невозможен"),
    ]
    for user, message, data, says in cases:
        record = await answered(fake, await user.press_data(message, data.pack()))
        assert record.show_alert and says in (record.answer_text or "").lower(), (data, record.answer_text)
    assert db_rows(db, "SELECT version FROM tables WHERE id = ?", table_id)[0][0] == version
    assert db_rows(db, "SELECT COUNT(*) FROM actions WHERE table_id = ?", table_id)[0][0] == 0


def test_describe_en_ru():
    """Karusele's actions in words, from the game's own catalog (games/karusele/locale)."""
    from games.karusele.present import describe  # the bot side: games import the bot

    assert describe("take 6S AH+5C 6D") == "6♠ takes A♥+5♣ and 6♦"
    assert describe("take 6S AH+5C 6D", "ru") == "6♠ берёт A♥+5♣ и 6♦"
    assert describe("build 5H 5C 4D+6C") == "5♥ on 5♣: build of 10, also 4♦+6♣"
    assert describe("build AS (5C+AH)", "ru") == "A♠ на (5♣+A♥): сборка 7"
    assert describe("trail 6S") == "6♠ to the table"
    assert describe("sweep BR", "ru") == "🧹 сметает весь стол"


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PICTURES=False)
async def test_a_card_marked_no_cannot_be_chosen_and_nothing_chosen_takes_nothing(fake, app, db):
    """A card marked 🚫 leaves no way to finish the capture: pressing it explains so and chooses nothing (it
    used to be ticked, and "Take (2)" then refused). With nothing chosen there is no "Take (0)". Alerts
    read as sentences, in the player's language."""
    ann = fake.user(first_name="Ann", language_code="en")
    boris = fake.user(first_name="Boris", language_code="en")
    table_id = await _designed_table(fake, app, ann, boris)
    await answered(fake, await boris.press(_hand(boris), "J15 …"))
    await settle(fake, app)
    await answered(fake, await boris.press(_hand(boris), lambda b: b["callback_data"].startswith("cp:")))
    await settle(fake, app)
    builder = _hand(boris)
    labels = _labels(builder)
    assert "🚫 8♦" in labels
    assert not any(label.startswith(("Take", "✔️ Take")) for label in labels), f"a take of nothing: {labels}"
    version = db_rows(db, "SELECT version FROM tables WHERE id = ?", table_id)[0][0]

    refused = await answered(fake, await boris.press(builder, "🚫 8♦"))
    await settle(fake, app)
    assert refused.show_alert and refused.answer_text == ("That card leaves no way to finish this capture "
                                                          "(it is marked 🚫).")
    assert _labels(_hand(boris)) == labels, "nothing was chosen"

    await answered(fake, await boris.press(_hand(boris), "J11"))
    await settle(fake, app)
    builder = _hand(boris)
    assert "🚫 A♥" in _labels(builder) and "Take (1)" in _labels(builder)
    refused = await answered(fake, await boris.press(builder, "🚫 A♥"))
    await settle(fake, app)
    assert refused.show_alert and "🚫" in (refused.answer_text or "")
    assert "✅ A♥" not in _labels(_hand(boris)) and "Take (1)" in _labels(_hand(boris))

    # A submit of nothing, forged: the engine's reason, as a sentence. The untick is always allowed.
    nothing = Cap(t=table_id, v=version, c="J15", m=0, go=1).pack()
    forged = await answered(fake, await boris.press_data(builder, nothing))
    assert forged.show_alert and (forged.answer_text or "")[:1].isupper(), forged.answer_text
    await answered(fake, await boris.press(_hand(boris), "✅ J11"))
    await settle(fake, app)
    assert "🚫 8♦" in _labels(_hand(boris)) and not any(label.startswith("Take") for label in _labels(_hand(boris)))
    assert db_rows(db, "SELECT version FROM tables WHERE id = ?", table_id)[0][0] == version
    assert not fake.unanswered_callbacks()


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PICTURES=False)
async def test_builder_alerts_read_as_sentences_in_russian(fake, app, db):
    ann = fake.user(first_name="Ann", language_code="en")
    boris = fake.user(first_name="Boris", language_code="ru")
    table_id = await _designed_table(fake, app, ann, boris)
    version = db_rows(db, "SELECT version FROM tables WHERE id = ?", table_id)[0][0]
    hand = _hand(boris)
    submit = Cap(t=table_id, v=version, c="J15", m=0, go=1).pack()
    nothing = await answered(fake, await boris.press_data(hand, submit))
    assert nothing.show_alert and nothing.answer_text == "Укажите карты со стола, которые берёт J15"
    await answered(fake, await boris.press(hand, "J15 …"))
    await settle(fake, app)
    await answered(fake, await boris.press(_hand(boris), lambda b: b["callback_data"].startswith("cp:")))
    await settle(fake, app)
    dead = await answered(fake, await boris.press(_hand(boris), "🚫 8♦"))
    assert dead.answer_text == "С этой картой взятку не собрать (она помечена 🚫)."
