"""Holes found by an attacker's presses, driving the real bot over the fake Bot API: a prompt's buttons act
only on that prompt and for its person, votes belong to seats, oversized ids are refused (answered), and a
handler that fails still answers the press (once logged, not once per press)."""

from __future__ import annotations

import logging

import pytest

from bot.services.lobby import LobbyService
from tests.bot.harness import find, open_table_in, settle, start_carnival
from tests.bot.helpers import answered, db_rows
from tests.fakebot.ratelimit import RateLimits

BIG = 2 ** 63


def _table(db) -> tuple[int, int]:
    (table_id, version), = db_rows(db, "SELECT id, version FROM tables")
    return table_id, version


def _errors(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_prompts_buttons_act_only_on_it_and_for_its_person(fake, app, db):
    """Bob presses Ann's "No, stay", "lb:<t>:stay:0" on the seat offer and "lg:u:en" on the group's messages:
    each is refused with an alert and no keyboard is taken off; Ann's own "No, stay" still closes her prompt."""
    ann, bob, cat = fake.user(first_name="Ann"), fake.user(first_name="Bob"), fake.user(first_name="Cat")
    group = fake.group("Cards", members=[bob, cat], creator=ann)
    await start_carnival(fake, app, [ann, bob, cat], group)
    table_id, _ = _table(db)
    # Cat hands her seat over "until someone takes it": the offer message.
    await cat.send(group, "/leave")
    await settle(fake, app)
    cat_prompt = find(group, "Cat: leave the game?")
    await answered(fake, await cat.press(cat_prompt, lambda b: b["text"].startswith("🙋")))
    await settle(fake, app)
    offer = find(group, "until someone takes it")
    assert offer is not None and offer.buttons
    await ann.send(group, "/leave")
    await settle(fake, app)
    prompt = find(group, "Ann: leave the game?")
    assert prompt is not None and prompt.buttons
    _, version = _table(db)
    refused = await answered(fake, await bob.press(prompt, "No, stay"))
    await settle(fake, app)
    assert refused.show_alert and refused.answer_text
    assert prompt.buttons, "Bob took the buttons off Ann's prompt"
    for message in (offer, prompt):
        press = await answered(fake, await bob.press_data(message, f"lb:{table_id}:stay:0"))
        await settle(fake, app)
        assert press.show_alert and message.buttons, message.content
    before_lang = db_rows(db, "SELECT lang FROM users WHERE user_id = ?", bob.id)
    for message in (offer, prompt):
        press = await answered(fake, await bob.press_data(message, "lg:u:ru"))
        await settle(fake, app)
        assert press.show_alert and message.buttons, message.content
    assert db_rows(db, "SELECT lang FROM users WHERE user_id = ?", bob.id) == before_lang
    assert _table(db)[1] == version
    # The prompt's own person: "No, stay" closes it.
    await answered(fake, await ann.press(prompt, "No, stay"))
    await settle(fake, app)
    assert prompt.buttons == [] and offer.buttons
    # The personal language prompt in Bob's own DM still works.
    await bob.send(bob.dm, "/settings")
    await settle(fake, app)
    asked = bob.last_dm()
    done = await answered(fake, await bob.press(asked, "Русский"))
    await settle(fake, app)
    assert not done.show_alert and asked.buttons == []
    assert db_rows(db, "SELECT lang FROM users WHERE user_id = ?", bob.id) == [("ru",)]


@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_vote_of_a_player_who_left_does_not_count(fake, app, db):
    """Three humans: Cat votes /pause (1 of 2), leaves (an AI takes her seat); Ann's vote alone is 1 of 2."""
    ann, bob, cat = fake.user(first_name="Ann"), fake.user(first_name="Bob"), fake.user(first_name="Cat")
    group = fake.group("Cards", members=[bob, cat], creator=ann)
    await start_carnival(fake, app, [ann, bob, cat], group)
    await cat.send(group, "/pause")
    await settle(fake, app)
    assert "Cat votes to pause the clock (1 of 2)." in group.messages()[-1].content
    await cat.send(group, "/leave")
    await settle(fake, app)
    await answered(fake, await cat.press(find(group, "Cat: leave the game?"),
                                         lambda b: b["text"].startswith("🤖")))
    await settle(fake, app)
    assert db_rows(db, "SELECT votes FROM clocks") == [("[]",)], "the leaver's vote stayed"
    await ann.send(group, "/pause")
    await settle(fake, app)
    assert "Ann votes to pause the clock (1 of 2)." in group.messages()[-1].content
    assert db_rows(db, "SELECT paused FROM clocks") == [(0,)]
    await bob.send(group, "/pause")
    await settle(fake, app)
    assert db_rows(db, "SELECT paused FROM clocks") == [(1,)]


@pytest.mark.fake(limits=RateLimits.loose())
async def test_oversized_ids_and_odd_digits_are_refused_as_invalid_buttons(fake, run_bot, db, caplog):
    """Ids past 64 bits, negative ids and non-ASCII digits in buttons and command arguments: every press is
    answered as an invalid button, nothing changes, nothing is logged as an error."""
    caplog.set_level(logging.INFO)
    ann, bob, cat = fake.user(first_name="Ann"), fake.user(first_name="Bob"), fake.user(first_name="Cat")
    group = fake.group("Cards", members=[bob, cat], creator=ann)
    async with run_bot() as app:  # the log is read once the bot stopped
        await start_carnival(fake, app, [ann, bob, cat], group)
        assert db_rows(db, "SELECT status FROM tables") == [("playing",)]
        table_id, version = _table(db)
        message = group.messages()[-1]
        datas = [f"mv:{BIG}:0:0", f"mv:{table_id}:{BIG}:0", f"mv:{table_id}:{version}:{BIG}", f"mn:{BIG}:0:0",
                 f"lb:{BIG}:join:", f"lb:-{BIG * 4}:join:", f"ts:{BIG}:0", f"ts:{table_id}:{BIG * 2}",
                 f"hd:{BIG}", f"hd:-{BIG}", f"ck:{BIG}:pm", f"pk:{BIG}:0:discard:0:0", f"cp:{BIG}:0:J15:0:0",
                 f"rm:{BIG}:0:on:0", f"rm:{table_id}:{version}:on:{BIG}", f"lb:{table_id}:quit:²",
                 f"mv:-1:{version}:0"]
        for data in datas:
            press = await answered(fake, await bob.press_data(message, data))
            assert press.show_alert and press.answer_text, data
        await settle(fake, app)
        for command in ("/leave ²", f"/leave {BIG * 10}", f"/league remove #{BIG * 10}", "/league remove ²"):
            await ann.send(group, command)
            await settle(fake, app)
        assert fake.unanswered_callbacks() == []
        assert _table(db) == (table_id, version)
    assert _errors(caplog) == []


@pytest.mark.parametrize("language", ["en", "ru"])
@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_failing_handler_answers_the_press_and_logs_once(fake, run_bot, db, caplog, monkeypatch, language):
    caplog.set_level(logging.INFO)

    async def broken(self, *args, **kwargs):
        raise RuntimeError("the join is broken")

    monkeypatch.setattr(LobbyService, "join", broken)
    ann, bob = fake.user(first_name="Ann"), fake.user(first_name="Bob", language_code=language)
    group = fake.group("Cards", members=[bob], creator=ann)
    async with run_bot() as app:  # the log is read once the bot stopped
        await bob.start_bot()
        lobby = (await open_table_in(fake, app, "carnival", [ann], group=group, begin=False)).lobby
        await settle(fake, app)
        presses = []
        for _ in range(3):
            presses.append(await answered(fake, await bob.press(lobby, "✋ Join")))
            await settle(fake, app)
        expected = {"en": "Something went wrong; nothing changed.",
                    "ru": "Что-то пошло не так; ничего не изменилось."}[language]
        assert [p.answer_text for p in presses] == [expected] * 3
        assert all(p.show_alert for p in presses)
        assert db_rows(db, "SELECT COUNT(*) FROM seats") == [(1,)]
    failures = [r for r in caplog.records if "the join is broken" in r.getMessage() or (
        r.exc_info and "the join is broken" in str(r.exc_info[1]))]
    assert len(failures) == 1, [r.getMessage() for r in failures]


@pytest.mark.fake(limits=RateLimits.loose())
async def test_play_buttons_pressed_outside_the_players_own_dm_are_refused(fake, app, db):
    """Every play prefix (a capture builder's "cp" too) pressed in the group by the seated player is refused."""
    ann, bob, cat = fake.user(first_name="Ann"), fake.user(first_name="Bob"), fake.user(first_name="Cat")
    group = fake.group("Cards", members=[bob, cat], creator=ann)
    await start_carnival(fake, app, [ann, bob, cat], group)
    table_id, version = _table(db)
    message = group.messages()[-1]
    for user in (ann, bob, cat):
        for data in (f"mv:{table_id}:{version}:0", f"mn:{table_id}:{version}:0",
                     f"pk:{table_id}:{version}:discard:1:1", f"cp:{table_id}:{version}:J15:0:1",
                     f"rm:{table_id}:{version}:lay:0"):
            press = await answered(fake, await user.press_data(message, data))
            assert press.show_alert, (user, data)
    await settle(fake, app)
    assert _table(db) == (table_id, version)
