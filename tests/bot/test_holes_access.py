"""Cheating and access, driving the real bot over the fake Bot API: no peeking through any door,
no control of another chat's table, no joining a group's table from outside, no keyboard stripped from
someone else's message, no text reversed by a name, and no crash on anonymous senders."""

from __future__ import annotations

import json
import logging
import random

import pytest

from bot.services.pictures import Pictures
from engine.cards import pretty_text
from engine.core import State
from engine.record import replay
from tests.bot.harness import find, live_hand, open_table_in, play_buttons, play_out, settle
from tests.bot.helpers import answered, db_rows, not_modified_only
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import FakeTelegram
from tests.fakebot.users import FakeChat


def _documents(fake: FakeTelegram, chat) -> list[str]:
    return [fake.files.by_id[m.document["file_id"]].data.decode() for m in chat.messages() if m.document]


def _door_texts(fake: FakeTelegram, chat) -> str:
    """Everything the chat received from the bot: texts, captions and the documents' contents."""
    return "\n".join([m.content for m in chat.messages()] + _documents(fake, chat))


@pytest.mark.fake(limits=RateLimits.loose())
async def test_item1_mid_game_no_door_shows_a_hidden_card(fake, run_bot, db, monkeypatch, caplog):
    """Mid-deal, nothing any member can get (group texts, captions, pictures, /record, /score, INFO logs)
    holds a card still in a hand or the seed; after the game, /record is the full, replayable record."""
    caplog.set_level(logging.INFO)
    drawn: list[str] = []
    real_render = Pictures.render

    def spy(spec):  # the real renderer; the spy only keeps what it was asked to draw
        drawn.append(json.dumps(spec))
        return real_render(spec)

    monkeypatch.setattr(Pictures, "render", staticmethod(spy))
    ann, bob = fake.user(first_name="Ann"), fake.user(first_name="Bob")
    eve = fake.user(first_name="Eve")  # a member of the group who does not play
    group = fake.group("Cards", members=[bob, eve], creator=ann)
    async with run_bot(KOZYR_PICTURES=True) as app:  # the fake's errors are read once it stopped
        for user in (ann, bob, eve):
            await user.start_bot()
        await settle(fake, app)
        await open_table_in(fake, app, "oh_hell", [ann, bob], ais=1, options="hand_sizes=7", group=group)
        await settle(fake, app)
        rng = random.Random(3)
        while db_rows(db, "SELECT COUNT(*) FROM actions")[0][0] < 6:  # bids done, a trick under way
            user, message = live_hand([ann, bob])
            button = rng.choice(play_buttons(message))
            await answered(fake, await user.press(message, lambda b, d=button["callback_data"]: b.get(
                "callback_data") == d))
            await settle(fake, app)
        for command in ("/record", "/score"):
            await eve.send(group, command)
            await settle(fake, app)

        (seed, snapshot), = db_rows(db, "SELECT seed, state FROM tables")
        state = State.from_json(json.loads(snapshot))
        assert not state.over
        hidden = [card for seat in range(3) for card in state.view(seat)["hand"]]
        assert len(hidden) >= 15
        seen = _door_texts(fake, group)
        mid_record = _documents(fake, group)[-1]
        assert "Ann" in mid_record and "bids" in mid_record  # the public log: what the table showed
        assert str(seed) not in mid_record and '"seed"' not in mid_record and '"actions"' not in mid_record
        for card in hidden:
            assert pretty_text(card) not in seen, f"{card} (in a hand) reached the group"
            assert not any(f'"{card}"' in spec for spec in drawn), f"{card} (in a hand) was drawn for the group"
            assert not any(card in r.getMessage() or pretty_text(card) in r.getMessage()
                           for r in caplog.records if r.levelno >= logging.INFO), f"{card} was logged"
        assert drawn, "no picture was drawn (the picture door was not tested)"
        # Each player's own DM shows their own hand: the check above is not vacuous.
        assert pretty_text(state.view(0)["hand"][0]) in "\n".join(m.content for m in ann.inbox())

        await play_out(fake, app, group, [ann, bob], rng)
        await eve.send(group, "/record")
        await settle(fake, app)
        record = json.loads(_documents(fake, group)[-1])
        assert record["seed"] == seed and replay(record).over
    assert not_modified_only(fake) == []


@pytest.mark.fake(limits=RateLimits.loose())
async def test_item2_forged_lobby_presses_from_another_chat_change_nothing(fake, run_bot, db):
    ann, mallory = fake.user(first_name="Ann"), fake.user(first_name="Mallory")
    group = fake.group("Cards", creator=ann)
    own = fake.group("Mallory's own", creator=mallory)  # where Mallory is the creator, so "an admin"
    async with run_bot() as app:  # the fake's errors are read once it stopped
        for user in (ann, mallory):
            await user.start_bot()
        await settle(fake, app)
        await open_table_in(fake, app, "carnival", [ann], group=group, begin=False)
        mine = (await open_table_in(fake, app, "carnival", [mallory], group=own, begin=False)).lobby
        await settle(fake, app)
        (victim, before), = db_rows(db, "SELECT id, version FROM tables WHERE chat_id = ?", group.id)
        for op in ("ai", "opts", "opt:quarters", "start", "join", "cancel"):
            press = await answered(fake, await mallory.press_data(mine, f"lb:{victim}:{op}" +
                                                                 ("" if ":" in op else ":")))
            await settle(fake, app)
            assert press.answer_text and press.show_alert, op
        assert db_rows(db, "SELECT status, version FROM tables WHERE id = ?", victim) == [("lobby", before)]
        assert db_rows(db, "SELECT COUNT(*) FROM seats WHERE table_id = ?", victim) == [(1,)]
        # The same buttons on the table's own lobby still work.
        lobby = find(group, "new table")
        await answered(fake, await ann.press(lobby, "🤖 Add AI"))
        await settle(fake, app)
        assert db_rows(db, "SELECT COUNT(*) FROM seats WHERE table_id = ?", victim) == [(2,)]
    assert not_modified_only(fake) == []


@pytest.mark.fake(limits=RateLimits.loose())
async def test_item3_a_stranger_cannot_join_by_deep_link(fake, run_bot, db):
    ann = fake.user(first_name="Ann")
    eve = fake.user(first_name="Eve")  # a member who never opened the bot
    stranger = fake.user(first_name="Stranger")  # not in the group
    gone = fake.user(first_name="Gone")
    group = fake.group("Secret club", members=[eve, gone], creator=ann)
    async with run_bot() as app:  # the fake's errors are read once it stopped
        await ann.start_bot()
        await settle(fake, app)
        lobby = (await open_table_in(fake, app, "carnival", [ann], group=group, begin=False)).lobby
        await settle(fake, app)
        (table_id,), = db_rows(db, "SELECT id FROM tables")
        press = await answered(fake, await eve.press(lobby, "✋ Join"))
        payload = press.url.split("start=", 1)[1]
        group.remove_member(gone)  # was a member when the link was posted; left since
        for user, guess in ((stranger, f"j{table_id}"), (stranger, payload), (gone, payload)):
            await user.start_bot(guess)  # the old guessable link, then the real one (leaked)
            await settle(fake, app)
            reply = user.last_dm().content
            assert "Secret club" not in reply and "Ann" not in reply and "Join" in reply
        assert "Stranger" not in lobby.content and "Gone" not in lobby.content
        assert db_rows(db, "SELECT COUNT(*) FROM seats") == [(1,)]
        await eve.start_bot(payload)  # a member with the real link is seated
        await settle(fake, app)
        assert "Eve" in lobby.content
    assert not_modified_only(fake) == []


@pytest.mark.fake(limits=RateLimits.loose())
async def test_item5_a_stale_press_strips_no_keyboard_but_the_pressers_own(fake, run_bot, db):
    ann, mallory = fake.user(first_name="Ann"), fake.user(first_name="Mallory")
    group = fake.group("Cards", members=[mallory], creator=ann)
    other = fake.group("Other", members=[mallory], creator=ann)
    async with run_bot() as app:  # the fake's errors are read once it stopped
        for user in (ann, mallory):
            await user.start_bot()
        await settle(fake, app)
        lobby = (await open_table_in(fake, app, "carnival", [ann, mallory], ais=1, group=group)).lobby
        await settle(fake, app)
        victim = (await open_table_in(fake, app, "oh_hell", [ann], group=other, begin=False)).lobby
        await settle(fake, app)
        (table_id,), = db_rows(db, "SELECT id FROM tables WHERE chat_id = ?", group.id)
        buttons = list(victim.buttons)
        hello = next(m for m in mallory.inbox() if not m.buttons)  # a DM message with no keyboard
        for message in (victim, lobby, hello):
            await answered(fake, await mallory.press_data(message, f"mv:{table_id}:0:0"))  # version 0: stale
            await settle(fake, app)
        assert victim.buttons == buttons, "another group's lobby lost its keyboard"
        assert fake.calls_of("editMessageReplyMarkup") == []
    assert not_modified_only(fake) == []


@pytest.mark.fake(limits=RateLimits.loose())
async def test_item6_direction_overrides_and_invisible_characters_in_names_are_neutralised(fake, run_bot, db):
    nasty = "Ann\u202eevil\u200b\u2066x\u2069\u200f"
    ann = fake.user(first_name=nasty)
    bob = fake.user(first_name="\u200b\u200d\u202e")  # nothing visible at all
    group = fake.group("Cards\u202e", members=[bob], creator=ann)
    async with run_bot() as app:  # the stored table is read once it stopped
        for user in (ann, bob):
            await user.start_bot()
        await settle(fake, app)
        lobby = (await open_table_in(fake, app, "carnival", [ann, bob], ais=1, group=group)).lobby
        await settle(fake, app)
        sent = [m.content for chat in (group, ann.dm, bob.dm) for m in chat.messages()]
        controls = ("\u202e", "\u200b", "\u2066", "\u2069", "\u200f", "\u200d")
        assert not any(c in text for text in sent for c in controls)
        assert "Annevilx" in lobby.content and "?" in lobby.content
        assert db_rows(db, "SELECT name FROM seats ORDER BY seat")[:2] == [("Annevilx",), ("?",)]
    # Pictures too: a name drawn with the override draws exactly as the neutralised name.
    state = State.from_json(json.loads(db_rows(db, "SELECT state FROM tables")[0][0]))
    view = state.view(None)
    assert Pictures.render({"kind": "table", "view": view, "names": [nasty, "b", "c"], "lang": "en"}) == \
        Pictures.render({"kind": "table", "view": view, "names": ["Annevilx", "b", "c"], "lang": "en"})


@pytest.mark.fake(limits=RateLimits.loose())
async def test_item11_anonymous_admins_and_channels_are_answered_not_crashed(fake, run_bot, db, caplog):
    caplog.set_level(logging.ERROR)
    ann = fake.user(first_name="Ann")
    group = fake.supergroup("Cards", creator=ann)
    channel = FakeChat(fake, -1009999000001, "channel", title="News")  # Ann posts as her channel
    async with run_bot() as app:  # the log is read once it stopped
        await ann.start_bot()
        await settle(fake, app)
        for text, as_chat in (("/new carnival", None), ("/begin", None), ("/score", channel), ("/join", channel)):
            before = len(group.messages())
            await fake.message_as_chat(ann, group, text, as_chat)  # as the group (anonymous admin) or a channel
            await settle(fake, app)
            replies = group.messages()[before:]
            assert len(replies) == 1 and "as yourself" in replies[0].content, text
        assert db_rows(db, "SELECT COUNT(*) FROM tables") == [(0,)]
        await fake.message_as_chat(ann, group, "hello, no command")  # nothing to answer
        await settle(fake, app)
        assert "as yourself" in group.messages()[-1].content and len(group.messages()) == 4
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


def test_item2_every_callback_data_fits_in_64_bytes_with_the_largest_ids():
    """Telegram refuses callback data over 64 bytes (BUTTON_DATA_INVALID): with table ids and versions far
    beyond any real ones, every button the bot makes still fits."""
    from bot.services.lobby import option_choices
    from bot.ui.callbacks import Lang, Lobby, Menu, Move, Pick
    from engine.core import all_games

    big = 2**53
    datas = [Move(t=big, v=big, i=999).pack(), Menu(t=big, v=big, g=-1).pack(), Lang(scope="c", lang="ru").pack()]
    for verb in ("discard", "return", "give", "build", "trail"):
        datas.append(Pick(t=big, v=big, w=verb, m=2**24 - 1, go=1).pack())
    for game in all_games():
        for op in ("join", "leave", "ai", "start", "cancel", "opts", "back"):
            datas.append(Lobby(t=big, op=op).pack())
        datas += [Lobby(t=big, op="opt", k=key).pack() for key in option_choices(game.id)]
    too_long = [d for d in datas if len(d.encode()) > 64]
    assert not too_long, too_long
