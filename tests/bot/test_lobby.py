"""Bad input and lobby flows over real HTTP: every mistake gets a clear answer and the bot keeps running."""

from __future__ import annotations

import random

import pytest

from bot.services.reports import rules_text
from tests.bot.harness import find, last_id, live_hand, messages_after, open_table_in, play_buttons, play_out, settle
from tests.bot.helpers import (
    answered,
    db_rows,
    group_text,
    log_lines,
    not_modified_only,
    plain,
    replay_log,
    table_facts,
)
from tests.fakebot.ratelimit import RateLimits


def newest(chat, after: int = 0) -> str:
    """Text of the bot's messages in ``chat`` newer than message id ``after``."""
    return "\n".join(m.content for m in messages_after(chat, after))


@pytest.mark.fake(limits=RateLimits.loose())
async def test_bad_commands_and_lobby_buttons(fake, run_bot, db):
    # /new and the lobby's buttons by hand: they are what this test is about.
    ann = fake.user(first_name="Ann")
    bob = fake.user(first_name="Bob")
    dan = fake.user(first_name="Dan")  # a chat admin who does not play
    group = fake.group("Cards", members=[bob], admins=[dan], creator=ann)
    async with run_bot() as app:  # the fake's errors are read once it stopped
        for user in (ann, bob, dan):
            await user.start_bot()
        await settle(fake, app)

        async def say(user, text: str) -> str:
            mark = last_id(group)
            await user.send(group, text)
            await settle(fake, app)
            return newest(group, mark)

        assert "chess" in (reply := await say(ann, "/new chess")) and "carnival" in reply
        reply = await say(ann, "/new carnival quarters=9")
        assert "house rules" in reply and "quarters" in reply
        reply = await say(ann, "/new carnival colour=red")
        assert "colour" in reply and "no house rule" in reply
        assert "name=value" in await say(ann, "/new carnival quarters")
        assert "/new carnival" in await say(ann, "/new")
        assert "no table here" in await say(ann, "/begin")
        assert "no table here" in await say(bob, "/join")
        assert db_rows(db, "SELECT COUNT(*) FROM tables")[0][0] == 0

        await say(ann, "/new carnival quarters=1")
        lobby = find(group, "new table")
        assert lobby is not None and "Ann" in lobby.content and "quarters=1" in lobby.content
        assert "already a table" in await say(bob, "/new carnival")
        assert "at least 3 players" in await say(ann, "/begin")
        await say(bob, "/join")
        assert "Bob" in lobby.content
        assert await say(bob, "/join") == "", "the group is not told (it sees Bob seated)"
        assert "already at this table" in bob.inbox()[-1].content  # Bob is, privately
        await say(bob, "/leave")
        assert "Bob" not in lobby.content
        assert "not at this table" in await say(bob, "/leave")
        await say(bob, "/join")
        assert "creator or an admin" in await say(bob, "/begin")

        # House rules: anyone may look, only the creator (or an admin) changes them.
        await answered(fake, await bob.press(lobby, "⚙️ House rules"))
        await settle(fake, app)
        assert "quarters: 1" in lobby.button_texts
        refused = await answered(fake, await bob.press(lobby, "quarters: 1"))
        assert refused.show_alert and "creator" in refused.answer_text
        await answered(fake, await ann.press(lobby, "quarters: 1"))
        await settle(fake, app)
        assert "quarters: 2" in lobby.button_texts and "quarters=2" in lobby.content
        await answered(fake, await dan.press(lobby, "joker_trump: next_card"))  # an admin may
        await settle(fake, app)
        assert "joker_trump=no_trump" in lobby.content
        for _ in range(3):
            await answered(fake, await ann.press(lobby, lambda b: b["text"].startswith("quarters")))
        await settle(fake, app)
        assert "quarters=1" in lobby.content
        await answered(fake, await ann.press(lobby, "« Back"))
        await settle(fake, app)
        assert "🤖 Add AI" in lobby.button_texts

        # Add AI until the table is full; then nobody else can sit down.
        answers = []
        for _ in range(6):
            answers.append(await answered(fake, await bob.press(lobby, "🤖 Add AI")))
            await settle(fake, app)
        assert "full" in answers[-1].answer_text and lobby.content.count("🤖") == 4
        full = await answered(fake, await dan.press(lobby, "✋ Join"))
        assert "full" in full.answer_text
        await answered(fake, await bob.press(lobby, "Leave"))
        await settle(fake, app)

        assert "creator or an admin" in await say(bob, "/cancel")
        version = table_facts(db)[0]
        assert table_facts(db)[2] == "lobby"
        assert await say(dan, "/cancel") == "The table was cancelled."  # once: no "Cancelled." besides
        assert table_facts(db) == (version + 1, 0, "cancelled")
        assert "cancelled" in lobby.content and not lobby.buttons
        late = await answered(fake, await bob.press_data(lobby, lobby_data := f"lb:{1}:join:"))
        assert late.answer_text and lobby_data
        assert "no table here" in await say(ann, "/cancel")

        # /games, /rules in the chat's and in the reader's language.
        reply = await say(bob, "/games")
        assert "carnival" in reply and "/rules" in reply
        reply = await say(bob, "/rules carnival")
        assert plain(rules_text("carnival", "en")).splitlines()[0] in reply
        assert "chess" in await say(bob, "/rules chess")
        ivan = fake.user(first_name="Ivan", language_code="ru")
        await ivan.start_bot()
        await settle(fake, app)
        await ivan.send("/rules carnival")
        await settle(fake, app)
        ru = plain(rules_text("carnival", "ru"))
        assert ru.splitlines()[0] in ivan.last_dm().content and ru != plain(rules_text("carnival", "en"))
        await ivan.send("/new carnival")
        await settle(fake, app)
        assert "group" in ivan.last_dm().content or "групп" in ivan.last_dm().content
    assert not_modified_only(fake) == []
    assert not fake.unanswered_callbacks()


@pytest.mark.fake(limits=RateLimits.loose())
async def test_join_link_for_a_user_who_never_opened_the_bot(fake, run_bot, db):
    ann = fake.user(first_name="Ann")
    eve = fake.user(first_name="Eve")  # never opened the bot's DM
    group = fake.group("Cards", members=[eve], creator=ann)
    async with run_bot() as app:  # the fake's errors are read once it stopped
        lobby = (await open_table_in(fake, app, "carnival", [ann], group=group, begin=False)).lobby
        await settle(fake, app)
        press = await answered(fake, await eve.press(lobby, "✋ Join"))
        assert press.url is not None and press.url.startswith(fake.deep_link("j"))
        payload = press.url.split("start=", 1)[1]
        assert len(payload) > 12 and payload != "j1"  # the table's secret token, not its id
        await settle(fake, app)
        assert "Eve" not in lobby.content
        await eve.send(group, "/join")  # the command answers with a link button in the group
        await settle(fake, app)
        link = find(group, "open the bot once")
        assert link is not None and link.buttons[0]["url"] == fake.deep_link(payload)
        await eve.start_bot(payload)
        await settle(fake, app)
        assert "Eve" in lobby.content
        assert "You are in" in eve.last_dm().content
    assert not_modified_only(fake) == []


@pytest.mark.fake(limits=RateLimits.loose())
async def test_blocked_dm_mid_game_is_told_in_the_group_and_play_resumes(fake, run_bot, db):
    ann = fake.user(first_name="Ann")
    bob = fake.user(first_name="Bob")
    group = fake.group("Cards", members=[bob], creator=ann)
    async with run_bot() as app:  # the fake's errors are read once it stopped
        await open_table_in(fake, app, "carnival", [ann, bob], ais=1, options="quarters=1", group=group)
        await settle(fake, app)

        # Play until it is Bob's turn, then Bob blocks the bot.
        while (found := live_hand([ann, bob])) is not None and found[0] is ann:
            await answered(fake, await ann.press(found[1], lambda b: b in play_buttons(found[1])[:1]))
            await settle(fake, app)
        assert found is not None and found[0] is bob
        bob.block_bot()
        await settle(fake, app)
        notice = find(group, "cannot send you your cards")
        assert notice is not None and "Bob" in notice.content and "Ann" not in notice.content
        # The bot keeps running; pressing on is refused politely while Bob cannot be reached.
        await ann.send(group, "/score")
        await settle(fake, app)
        assert find(group, "score sheet") is not None
        before = table_facts(db)
        await bob.start_bot()  # Bob unblocks: his hand comes back with a live keyboard
        await settle(fake, app)
        assert table_facts(db) == before
        found = live_hand([ann, bob])
        assert found is not None and found[0] is bob
        await play_out(fake, app, group, [ann, bob], random.Random(3))
        await settle(fake, app)
        assert len([m for m in group.messages() if "cannot send you your cards" in m.content]) == 1
        state, _, events, names = replay_log(db)
        assert state.over
        text = group_text(group)
        for line in log_lines("carnival", events, names, "en"):
            assert line in text
    bad = [e for e in not_modified_only(fake) if e[1] != 403]
    assert bad == []


@pytest.mark.fake(limits=RateLimits.loose())
async def test_group_upgraded_to_supergroup_mid_lobby_and_mid_game(fake, run_bot, db):
    ann = fake.user(first_name="Ann")
    bob = fake.user(first_name="Bob")
    lobby_group = fake.group("Lobby group", members=[bob], creator=ann)
    game_group = fake.group("Game group", members=[bob], creator=ann)
    async with run_bot() as app:  # the fake's errors are read once it stopped
        for user in (ann, bob):
            await user.start_bot()
        await settle(fake, app)

        # Mid-lobby: the table follows the chat to its new id.
        await ann.send(lobby_group, "/new carnival quarters=1")  # by hand: /join in the upgraded chat seats Bob
        await settle(fake, app)
        upgraded = lobby_group.migrate_to_supergroup(by=ann)
        await settle(fake, app)
        await bob.send(upgraded, "/join")
        await settle(fake, app)
        lobby = find(upgraded, "new table")
        assert lobby is not None and "Ann" in lobby.content and "Bob" in lobby.content
        await ann.send(upgraded, "/cancel")
        await settle(fake, app)
        assert "cancelled" in lobby.content

        # Mid-game: one human and two AI seats; the rest of the game is shown in the supergroup.
        await open_table_in(fake, app, "carnival", [ann], ais=2, options="quarters=1", group=game_group)
        await settle(fake, app)
        for _ in range(4):
            _, hand = live_hand([ann])
            first = play_buttons(hand)[0]
            await answered(fake, await ann.press(hand, lambda b, first=first: b == first))
            await settle(fake, app)
        upgraded_game = game_group.migrate_to_supergroup(by=ann)
        await settle(fake, app)
        await play_out(fake, app, upgraded_game, [ann], random.Random(5))
        await settle(fake, app)
        standings = find(upgraded_game, "🏁")
        assert standings is not None and "Ann" in standings.content and "🤖" in standings.content
        state, _, events, names = replay_log(db)
        for name, total in zip(names, state.scores(), strict=True):
            assert f"{name}: {total}" in standings.content
        text = group_text(game_group) + "\n" + group_text(upgraded_game)
        for line in log_lines("carnival", events, names, "en"):
            assert line in text
        assert db_rows(db, "SELECT COUNT(*) FROM tables WHERE chat_id IN (?, ?)",
                       lobby_group.id, game_group.id)[0][0] == 0
        await ann.send(upgraded_game, "/top")
        await settle(fake, app)
        assert find(upgraded_game, "League") is not None
    # Only the expected 400s from the old group's id (answered with migrate_to_chat_id).
    bad = [e for e in not_modified_only(fake) if "upgraded to a supergroup" not in (e[2] or "")]
    assert bad == []


@pytest.mark.fake(limits=RateLimits.loose())
async def test_settings_switch_the_dm_language_and_the_chat_language(fake, run_bot, db):
    ann = fake.user(first_name="Ann", language_code="en")
    bob = fake.user(first_name="Bob", language_code="en")
    group = fake.group("Cards", members=[bob], creator=ann)
    async with run_bot() as app:  # the fake's errors are read once it stopped
        for user in (ann, bob):
            await user.start_bot()
        await settle(fake, app)
        await ann.send("/settings")
        await settle(fake, app)
        menu = ann.last_dm()
        choice = await answered(fake, await ann.press(menu, "Русский"))
        assert choice.answer_text == "Язык: русский"
        await ann.send("/help")
        await settle(fake, app)
        assert "карточные игры" in ann.last_dm().content
        # Telegram's language_code no longer overrides the choice.
        await ann.send("/games")
        await settle(fake, app)
        assert "Карнавал" in ann.last_dm().content

        # The chat's language: only admins may change it.
        await bob.send(group, "/settings")
        await settle(fake, app)
        chat_menu = group.last()
        refused = await answered(fake, await bob.press(chat_menu, "Русский"))
        assert refused.show_alert and group.last() is chat_menu
        await answered(fake, await ann.press(chat_menu, "Русский"))
        await bob.send(group, "/new carnival quarters=1")  # by hand: the lobby in the chat's new language
        await settle(fake, app)
        assert "Карнавал" in group.last().content

        # A whole game: 1 human and 2 AI seats, Ann's hand in Russian, the group in Russian.
        lobby = group.last()
        await answered(fake, await ann.press(lobby, lambda b: b["callback_data"].endswith(":ai:")))
        await answered(fake, await ann.press(lobby, lambda b: b["callback_data"].endswith(":ai:")))
        await answered(fake, await bob.press(lobby, lambda b: b["callback_data"].endswith(":leave:")))
        await settle(fake, app)
        await answered(fake, await ann.press(lobby, lambda b: b["callback_data"].endswith(":join:")))
        await answered(fake, await ann.press(lobby, lambda b: b["callback_data"].endswith(":ai:")))
        await settle(fake, app)
        await answered(fake, await bob.press(lobby, lambda b: b["callback_data"].endswith(":start:")))
        await settle(fake, app)
        assert "Bob" not in lobby.content and "Ann" in lobby.content  # Bob left, but as creator may start
        found = live_hand([ann, bob])
        assert found is not None
        assert "Ваши карты" in found[1].content or "Ваши карты" in ann.last_dm().content
        await play_out(fake, app, group, [ann, bob], random.Random(11))
        await settle(fake, app)
        standings = find(group, "🏁")
        assert standings is not None and "🥇" in standings.content and "Ann" in standings.content
    assert not_modified_only(fake) == []


@pytest.mark.fake(limits=RateLimits.loose())
async def test_the_rummies_have_a_table_in_the_chat(fake, app, db):
    """Every rummy opens a lobby with /new (with its match-length buttons), /games offers them
    and /rules explains them."""
    ann = fake.user(first_name="Ann")
    group = fake.group("Rummy club", members=[], creator=ann)
    await ann.start_bot()
    await settle(fake, app)

    async def say(text: str) -> str:
        mark = last_id(group)
        await ann.send(group, text)
        await settle(fake, app)
        return newest(group, mark)

    listing = await say("/games")
    for game in ("carousel", "machiavelli", "tahiti", "guadalupe", "vatican", "shanghai", "manipulation"):
        assert game in listing
    reply = await say("/new machiavelli")  # by hand: the command's reply is checked
    assert "Machiavelli" in reply and "cannot be played" not in reply
    assert db_rows(db, "SELECT game FROM tables") == [("machiavelli",)]
    lobby = group.messages()[-1]
    await ann.press(lobby, "⚙️ House rules")
    await settle(fake, app)
    assert "deals: 1" in lobby.button_texts and "target: 0" in lobby.button_texts
    await ann.press(lobby, "deals: 1")
    await settle(fake, app)
    assert "deals: 2" in lobby.button_texts
    assert "Machiavelli" in await say("/rules machiavelli")
