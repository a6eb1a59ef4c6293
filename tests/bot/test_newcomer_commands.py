"""What a newcomer types, end to end over the fake Bot API, in English and Russian: the DM's commands sent in
the group, house rules typed wrong, an argument thousands of characters long, and what /help says of /leave."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from tests.bot.harness import last_id, lobby_button, settle
from tests.bot.helpers import answered, db_rows
from tests.fakebot.ratelimit import RateLimits

HOSTILE = "Ann & <Co>"  # a name that breaks Telegram HTML unless escaped


def newer(chat, after: int) -> list:
    return [m for m in chat.messages() if m.message_id > after]


async def say(fake, app, user, chat, text: str) -> list:
    """``user`` sends ``text`` in ``chat``; the bot's new messages there (once it settled)."""
    before = last_id(chat)
    await user.send(chat, text)
    await settle(fake, app)
    return newer(chat, before)


def dm_link(message) -> str:
    """The deep-link payload of the one URL button on ``message`` (it must open the bot's DM)."""
    urls = [b["url"] for b in message.buttons if "url" in b]
    assert len(urls) == 1, f"one URL button: {message.buttons}"
    url = urlparse(urls[0])
    assert (url.scheme, url.netloc, url.path) == ("https", "t.me", "/kozyr_test_bot"), urls[0]
    return parse_qs(url.query)["start"][0]


@pytest.mark.fake(limits=RateLimits.loose())
async def test_hand_and_mytables_in_the_group_point_to_the_dm_with_a_link_that_answers_there(fake, app, open_table):
    ann = fake.user(first_name=HOSTILE)
    ivan = fake.user(first_name="Иван", language_code="ru")
    table = await open_table("carnival", [ann, ivan], ais=1, options="quarters=1")
    group = table.group
    await settle(fake, app)

    # /hand in the group: one answer, in the typer's words, naming them (escaped), with a button to the DM.
    reply = await say(fake, app, ann, group, "/hand")
    assert len(reply) == 1, [m.content for m in reply]
    assert HOSTILE in reply[0].content and "DM" in reply[0].content and "/hand" in reply[0].content
    payload = dm_link(reply[0])
    # Following the link opens the DM and does what /hand does there: the hand again, as a new message.
    before = len(ann.inbox())
    await ann.start_bot(payload)
    await settle(fake, app)
    fresh = ann.inbox()[before:]
    assert fresh and "Carnival" in fresh[-1].content, [m.content for m in fresh]
    assert not any("Hello" in m.content for m in fresh), "no greeting: the link answers /hand"

    # /mytables in a Russian group (a group speaks one language): the answer in Russian; the link lists
    # his tables, wherever they are.
    russian = fake.group("Карты", creator=ivan)
    reply = await say(fake, app, ivan, russian, "/mytables")
    assert len(reply) == 1 and "Иван" in reply[0].content and "личн" in reply[0].content, reply[0].content
    payload = dm_link(reply[0])
    before = len(ivan.inbox())
    await ivan.start_bot(payload)
    await settle(fake, app)
    fresh = ivan.inbox()[before:]
    assert len(fresh) == 1 and "Карнавал" in fresh[0].content and "🃏" in fresh[0].button_texts[0], \
        [(m.content, m.button_texts) for m in fresh]
    assert not fake.errors


@pytest.mark.fake(limits=RateLimits.loose())
async def test_house_rules_typed_wrong_are_answered_in_plain_words_naming_the_option(fake, app, db):
    ann = fake.user(first_name="Ann")
    ivan = fake.user(first_name="Иван", language_code="ru")
    group = fake.group("Cards", creator=ann)
    russian = fake.group("Карты", creator=ivan)
    for user in (ann, ivan):
        await user.start_bot()
    await settle(fake, app)

    async def answer(user, chat, text: str) -> str:
        reply = await say(fake, app, user, chat, text)
        assert len(reply) == 1, [m.content for m in reply]
        content = reply[0].content
        for jargon in ("should be", "valid", "parse", "Input", "got '", "literal", "int_", "Value error"):
            assert jargon not in content, f"{jargon!r} in {content!r}"
        return content

    text = await answer(ann, group, "/new carnival quarters=banana")
    assert "quarters" in text and "a whole number from 1 to 4" in text and "banana" in text, text
    text = await answer(ann, group, "/new carnival joker_trump=maybe")
    assert "joker_trump" in text and "next_card" in text and "no_trump" in text and "maybe" in text, text
    text = await answer(ann, group, "/new carnival colour=red")
    assert "colour" in text and "quarters" in text and "joker_trump" in text, text
    text = await answer(ann, group, "/new oh_hell hook=perhaps")
    assert "hook" in text and "true or false" in text, text
    text = await answer(ann, group, "/new carnival quarters")
    assert "quarters" in text and "name=value" in text, text
    text = await answer(ann, group, "/new shanghai deals=0 target=0")
    assert "deals" in text and "target" in text and "together" in text, text

    text = await answer(ivan, russian, "/new carnival quarters=banana")
    assert "quarters" in text and "целое число от 1 до 4" in text and "banana" in text, text
    text = await answer(ivan, russian, "/new carnival colour=red")
    assert "colour" in text and "quarters" in text and "нет" in text, text
    text = await answer(ivan, russian, "/new oh_hell hook=perhaps")
    assert "hook" in text and "true или false" in text, text
    assert db_rows(db, "SELECT COUNT(*) FROM tables") == [(0,)], "no table opened on a mistake"
    assert not fake.errors


@pytest.mark.fake(limits=RateLimits.loose())
async def test_a_3000_character_argument_is_not_echoed_back_whole(fake, app):
    ann = fake.user(first_name="Ann")
    group = fake.group("Cards", creator=ann)
    await ann.start_bot()
    await settle(fake, app)
    long = "<&x" * 1000  # 3,000 characters, each a break of Telegram HTML unless escaped
    for command in (f"/new {long}", f"/new carnival {long}", f"/new carnival quarters={long}",
                    f"/new carnival {long}=1", f"/rules {long}", f"/tournament {long}"):
        reply = await say(fake, app, ann, group, command)
        assert len(reply) == 1, [m.content[:80] for m in reply]
        content = reply[0].content
        assert len(content) < 400 and "…" in content and "<&x<&x" in content, (command[:20], content)
    assert not fake.errors


@pytest.mark.fake(limits=RateLimits.loose())
async def test_help_says_what_leave_does_before_and_during_a_game(fake, app):
    ann = fake.user(first_name="Ann")
    ivan = fake.user(first_name="Иван", language_code="ru")
    for user in (ann, ivan):
        await user.start_bot()
    await settle(fake, app)
    for user, words in ((ann, ("before the start", "during a game", "AI")),
                        (ivan, ("до начала", "во время игры", "ИИ"))):
        group = fake.group("Cards", creator=user)  # a group speaks the language of whoever writes there first
        reply = await say(fake, app, user, group, "/help")
        line = next(x for x in reply[-1].content.splitlines() if x.startswith("/leave"))
        assert all(w in line for w in words), line
    # The commands menu says the same.
    for lang, word in (("en", "AI"), ("ru", "ИИ")):
        menus = [m for (scope, code), m in fake.commands.items() if code == (lang if lang != "en" else "")]
        described = [c["description"] for menu in menus for c in menu if c["command"] == "leave"]
        assert described and all(word in d for d in described), (lang, described)


@pytest.mark.fake(limits=RateLimits.loose())
async def test_house_rules_the_seated_players_cannot_play_are_refused_at_start_and_the_lobby_stays(
        fake, app, db, open_table):
    """/new cannot know how many will sit: hand sizes of 17 fit 3 players (51 cards) but not 4 (52 cards,
    13 each). Start with 4 is refused with an alert that says why and what to do; nothing starts, and with
    3 seated the same table starts."""
    ann, bob, cat = fake.user(first_name="Ann"), fake.user(first_name="Bob"), fake.user(first_name="Cat")
    table = await open_table("oh_hell", [ann, bob, cat], ais=1, options="hand_sizes=17", begin=False)
    press = await answered(fake, await ann.press(table.lobby, lobby_button("start")))
    assert press.show_alert and "4" in press.answer_text and "hand_sizes=17" in press.answer_text, press.answer_text
    assert "/cancel" in press.answer_text, press.answer_text
    assert db_rows(db, "SELECT status FROM tables") == [("lobby",)], "the refused start changed nothing"
    await answered(fake, await cat.press(table.lobby, lobby_button("leave")))
    await answered(fake, await ann.press(table.lobby, lobby_button("start")))
    await settle(fake, app)
    assert db_rows(db, "SELECT status FROM tables") == [("playing",)]
    assert not fake.errors
