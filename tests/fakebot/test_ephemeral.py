"""Ephemeral messages in the fake Bot API, driven through a real aiogram Bot over HTTP.

The rules under test are the Bot API's ("Ephemeral Messages and Commands"; see tests/fakebot/ephemeral.py):
only the receiver sees the message, a non-administrator bot needs a fresh press by that receiver, an
administrator may send at any time, delivery can fail, and the normal message limits apply.
"""

from __future__ import annotations

import asyncio
import io

import aiohttp
import pytest
from aiogram import Bot, Dispatcher, F
from aiogram.exceptions import TelegramBadRequest, TelegramRetryAfter
from aiogram.filters import Command
from aiogram.types import (
    BotCommand,
    BufferedInputFile,
    CallbackQuery,
    EphemeralMessageParameters,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    LoginUrl,
    Message,
    ReplyParameters,
    Update,
)
from PIL import Image

from tests.fakebot import (
    CallbackRecord,
    FakeChat,
    FakeTelegram,
    FakeUsageError,
    FakeUser,
    RateLimits,
    StoredMessage,
)
from tests.fakebot.ephemeral import (
    EPH_CHAT_TYPE,
    EPH_LEGACY,
    EPH_LOGIN_URL,
    EPH_NO_RIGHTS,
    EPH_NOT_PARTICIPANT,
    EPH_OTHER_CHAT,
    EPH_OTHER_USER,
    EPH_REPLACE_EPHEMERAL,
    EPH_REPLACE_NEEDS_QUERY,
    EPH_REPLY_OTHER_USER,
    EPH_UNDELIVERABLE,
    EPH_USER_IS_BOT,
    EPH_USER_NOT_FOUND,
)
from tests.fakebot.methods_misc import QUERY_TOO_OLD
from tests.fakebot.methods_msg import EPH_REPLY_NOT_EPHEMERAL


@pytest.fixture
def fake_limits() -> RateLimits:
    return RateLimits.loose()  # behaviour tests; the rate-limit test asks for Telegram's limits itself


def kb(*buttons: tuple[str, str]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[[InlineKeyboardButton(text=t, callback_data=d) for t, d in buttons]])


def to(user: FakeUser, query: CallbackRecord | str | None = None, replace: bool | None = None
       ) -> EphemeralMessageParameters:
    qid = query.id if isinstance(query, CallbackRecord) else query
    return EphemeralMessageParameters(receiver_user_id=user.id, callback_query_id=qid,
                                      replace_callback_query_message=replace)


def png(color: tuple[int, int, int] = (10, 120, 30)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (300, 200), color).save(buf, "PNG")
    return buf.getvalue()


def eid(msg: StoredMessage) -> int:
    assert msg.ephemeral_message_id is not None
    return msg.ephemeral_message_id


def board_of(chat: FakeChat) -> StoredMessage:
    last = chat.last()
    assert last is not None
    return last


async def table(fake: FakeTelegram, bot: Bot, *, admin: bool = False) -> tuple[FakeUser, FakeUser, FakeChat]:
    ann, bob = fake.user(first_name="Ann"), fake.user(first_name="Bob")
    g = fake.supergroup("Cards", members=[ann, bob], bot_admin=admin)
    await bot.send_message(g.id, "Table", reply_markup=kb(("My hand", "hand")))
    return ann, bob, g


async def test_a_press_opens_a_message_only_the_presser_sees(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann, bob, g = await table(fake, fake_bot)
    board = g.last()
    assert board is not None
    press = await ann.press(board, "My hand")

    sent = await fake_bot.send_message(g.id, "Your hand: 7♠ 9♥", reply_markup=kb(("Play 7♠", "play:7S")),
                                       ephemeral_message_parameters=to(ann, press))
    assert sent.message_id == 0 and sent.ephemeral_message_id and sent.receiver_user
    assert sent.receiver_user.id == ann.id and sent.chat.id == g.id
    hand = ann.last_ephemeral(g)
    assert hand is not None and hand.content == "Your hand: 7♠ 9♥" and hand.receiver is ann
    assert hand.ephemeral_message_id == sent.ephemeral_message_id and hand.callback is press
    assert press.ephemeral_replies == [hand]
    # Nobody else sees it, and the chat's normal message lists never contain it.
    assert bob.ephemeral(g) == [] and bob.last_ephemeral(g) is None
    assert g.messages() == [board] and g.last() is board and hand not in g.all_messages()
    assert g.view_of(ann) == [board, hand] and g.view_of(bob) == [board]
    assert g.ephemerals() == [hand] and g.ephemerals(bob) == []
    with pytest.raises(FakeUsageError, match="only its receiver"):
        await bob.press(hand, "Play 7♠")

    # A press on it comes back as a callback query aiogram parses: message_id 0, the ephemeral id, the receiver.
    play = await ann.press(hand, "Play 7♠")
    assert play.ephemeral and play.message is hand
    updates = await fake_bot.get_updates(timeout=0)
    q, first = updates[-1].callback_query, updates[0].callback_query
    assert q is not None and q.id == play.id and q.data == "play:7S" and q.from_user.id == ann.id
    assert isinstance(q.message, Message) and q.message.message_id == 0
    assert q.message.ephemeral_message_id == hand.ephemeral_message_id
    assert q.message.receiver_user is not None and q.message.receiver_user.id == ann.id
    assert first is not None and isinstance(first.message, Message) and first.message.ephemeral_message_id is None
    assert q.message.chat.id == g.id and first.message.message_id == board.message_id
    assert fake.stats["ephemeral_sent"] == 1 and fake.errors == []


async def test_edits_and_deletion(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann, bob, g = await table(fake, fake_bot)
    press = await ann.press(board_of(g), "My hand")
    sent = await fake_bot.send_message(g.id, "Hand: 7♠", reply_markup=kb(("Play", "p")),
                                       ephemeral_message_parameters=to(ann, press))
    hand = ann.last_ephemeral(g)
    assert hand is not None
    # aiogram's shortcuts on the returned message fill chat_id, receiver_user_id and ephemeral_message_id.
    assert await sent.edit_ephemeral_text("Hand: 9♥", reply_markup=kb(("Play", "p"))) is True
    assert hand.text == "Hand: 9♥" and hand.edit_count == 1 and hand.history[0]["text"] == "Hand: 7♠"
    with pytest.raises(TelegramBadRequest, match="message is not modified"):
        await sent.edit_ephemeral_text("Hand: 9♥", reply_markup=kb(("Play", "p")))
    assert await sent.edit_ephemeral_reply_markup(reply_markup=kb(("Pass", "x"))) is True
    assert hand.button_texts == ["Pass"]
    await sent.edit_ephemeral_text("Hand: 9♥")  # an edit that omits the keyboard drops it, as for normal ones
    assert hand.buttons == []
    with pytest.raises(TelegramBadRequest, match="there is no caption in the message to edit"):
        await sent.edit_ephemeral_caption(caption="c")
    with pytest.raises(TelegramBadRequest, match="message is too long"):
        await sent.edit_ephemeral_text("x" * 4097)
    # The triple must name this receiver's message in this chat; normal-message methods never reach it.
    with pytest.raises(TelegramBadRequest, match="message to edit not found"):
        await fake_bot.edit_ephemeral_message_text(chat_id=g.id, receiver_user_id=bob.id,
                                                   ephemeral_message_id=eid(hand), text="x")
    with pytest.raises(TelegramBadRequest, match="message to edit not found"):
        await fake_bot.edit_message_text("x", chat_id=g.id, message_id=hand.ephemeral_message_id)
    with pytest.raises(TelegramBadRequest, match="message to edit not found"):
        await fake_bot.edit_message_text("x", chat_id=g.id, message_id=sent.message_id)  # 0

    assert await sent.delete_ephemeral() is True
    assert hand.deleted and ann.ephemeral(g) == [] and ann.ephemeral(g, include_deleted=True) == [hand]
    with pytest.raises(TelegramBadRequest, match="message to delete not found"):
        await sent.delete_ephemeral()
    with pytest.raises(TelegramBadRequest, match="message to edit not found"):
        await sent.edit_ephemeral_text("again")
    with pytest.raises(FakeUsageError, match="not on"):
        await ann.press(hand, "Pass")


async def test_photo_caption_and_media_edits(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann, _, g = await table(fake, fake_bot, admin=True)
    sent = await fake_bot.send_photo(g.id, BufferedInputFile(png(), "hand.png"), caption="Your hand",
                                     ephemeral_message_parameters=to(ann))
    hand = ann.last_ephemeral(g)
    assert hand is not None and hand.kind == "photo" and hand.caption == "Your hand" and sent.photo
    assert await sent.edit_ephemeral_caption(caption="Your new hand") is True and hand.caption == "Your new hand"
    with pytest.raises(TelegramBadRequest, match="there is no text in the message to edit"):
        await sent.edit_ephemeral_text("x")
    old = hand.photo_file_id
    assert await sent.edit_ephemeral_media(
        media=InputMediaPhoto(media=BufferedInputFile(png((200, 0, 0)), "h2.png"), caption="Redrawn")) is True
    assert hand.photo_file_id != old and hand.caption == "Redrawn"


async def test_who_may_send_and_when(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann, bob, g = await table(fake, fake_bot)
    stranger = fake.user(first_name="Eve", started=True)
    board = g.last()
    assert board is not None

    async def refused(text: str, match: str, params: EphemeralMessageParameters, chat_id: int = g.id,
                      **kw: object) -> None:
        with pytest.raises(TelegramBadRequest, match=match):
            await fake_bot.send_message(chat_id, text, ephemeral_message_parameters=params, **kw)  # type: ignore[arg-type]

    # Not an administrator: only in answer to a fresh press by the receiver, in this chat.
    await refused("hi", EPH_NO_RIGHTS, to(ann))
    await refused("hi", EPH_CHAT_TYPE, to(stranger), chat_id=stranger.id)
    bob_press = await bob.press(board, "My hand")
    await refused("hi", EPH_OTHER_USER, to(ann, bob_press))
    await fake_bot.send_message(stranger.id, "dm", reply_markup=kb(("Go", "go")))
    dm_press = await stranger.press(board_of(stranger.dm), "Go")
    g.add_member(stranger)
    await refused("hi", EPH_OTHER_CHAT, to(stranger, dm_press))
    await refused("hi", QUERY_TOO_OLD, to(ann, "4000000000000999999"))
    ann_press = await ann.press(board, "My hand")
    fake.age_callback(ann_press, 15.5)  # the window is 15 s from the press
    await refused("hi", QUERY_TOO_OLD, to(ann, ann_press))
    await refused("hi", EPH_REPLACE_NEEDS_QUERY, to(ann, None, replace=True))
    # Receivers: a non-bot member.
    g.set_bot_admin(True)
    await refused("hi", EPH_USER_IS_BOT, EphemeralMessageParameters(receiver_user_id=fake.bot_id))
    await refused("hi", EPH_USER_NOT_FOUND, EphemeralMessageParameters(receiver_user_id=999))
    g.remove_member(stranger)
    await refused("hi", EPH_NOT_PARTICIPANT, to(stranger))
    # An administrator may send to any member at any time, without a press; a stale press is still refused.
    await fake_bot.send_message(g.id, "Your turn", ephemeral_message_parameters=to(bob))
    assert [m.text for m in bob.ephemeral(g)] == ["Your turn"] and ann.ephemeral(g) == []
    await refused("hi", QUERY_TOO_OLD, to(ann, ann_press))
    # The same limits as a normal message.
    await refused("x" * 4097, "message is too long", to(bob))
    with pytest.raises(TelegramBadRequest, match="BUTTON_DATA_INVALID"):
        await fake_bot.send_message(g.id, "hi", ephemeral_message_parameters=to(bob),
                                    reply_markup=kb(("Play", "x" * 65)))
    login = InlineKeyboardMarkup(inline_keyboard=[[InlineKeyboardButton(
        text="Log in", login_url=LoginUrl(url="https://example.org/login"))]])
    with pytest.raises(TelegramBadRequest, match=EPH_LOGIN_URL):
        await fake_bot.send_message(g.id, "hi", ephemeral_message_parameters=to(bob), reply_markup=login)
    # A reply to a user's ephemeral command that does not exist (see the command tests for real ones).
    await refused("hi", "message to be replied not found", to(bob),
                  reply_parameters=ReplyParameters(ephemeral_message_id=123))
    # Bot API 10.2's top-level parameters (deprecated in aiogram 3.31) are refused, never sent to the group.
    with pytest.raises(TelegramBadRequest, match=EPH_LEGACY):
        await fake_bot.send_message(g.id, "secret", receiver_user_id=bob.id)
    assert [m.text for m in g.messages()] == ["Table"]
    assert fake.stats["ephemeral_sent"] == 1


async def test_replace_callback_query_message(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann, bob, g = await table(fake, fake_bot)
    board = g.last()
    assert board is not None
    await fake_bot.send_message(g.id, "Later")
    later = g.last()
    press = await ann.press(board, "My hand")
    await fake_bot.send_message(g.id, "Hand", reply_markup=kb(("Play", "p")),
                                ephemeral_message_parameters=to(ann, press, replace=True))
    hand = ann.last_ephemeral(g)
    assert hand is not None and hand.replaces is board
    assert g.view_of(ann) == [hand, later] and g.view_of(bob) == [board, later]
    with pytest.raises(FakeUsageError, match="in place of"):
        await ann.press(board, "My hand")
    await bob.press(board, "My hand")  # the others still have the original
    # A press on an ephemeral message may open another one, but not in place of it.
    play = await ann.press(hand, "Play")
    with pytest.raises(TelegramBadRequest, match=EPH_REPLACE_EPHEMERAL):
        await fake_bot.send_message(g.id, "x", ephemeral_message_parameters=to(ann, play, replace=True))
    await fake_bot.send_message(g.id, "Played", ephemeral_message_parameters=to(ann, play))
    assert [m.text for m in ann.ephemeral(g)] == ["Hand", "Played"]
    await fake_bot.delete_ephemeral_message(chat_id=g.id, receiver_user_id=ann.id,
                                            ephemeral_message_id=eid(hand))
    assert g.view_of(ann)[:2] == [board, later]
    await ann.press(board, "My hand")


async def test_injected_delivery_failures_and_expiry(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann, bob, g = await table(fake, fake_bot, admin=True)
    # Lost: accepted like a delivered one (Telegram does not guarantee delivery), but never on screen.
    ann.fail_ephemeral("lost")
    sent = await fake_bot.send_message(g.id, "Lost hand", reply_markup=kb(("Play", "p")),
                                       ephemeral_message_parameters=to(ann))
    assert sent.ephemeral_message_id and ann.ephemeral(g) == []
    lost = g.ephemerals(ann)[0]
    assert not lost.delivered and not lost.on_screen
    assert await sent.edit_ephemeral_text("Still lost") is True and ann.ephemeral(g) == []
    with pytest.raises(FakeUsageError):
        await ann.press(lost, "Play")
    # Refused, for the next send only.
    ann.fail_ephemeral("refused", times=1)
    with pytest.raises(TelegramBadRequest, match=EPH_UNDELIVERABLE):
        await fake_bot.send_message(g.id, "Refused", ephemeral_message_parameters=to(ann))
    await fake_bot.send_message(g.id, "Arrived", ephemeral_message_parameters=to(ann))  # one send only
    assert [m.text for m in ann.ephemeral(g)] == ["Arrived"]
    ann.fail_ephemeral("lost")
    ann.restore_ephemeral()
    await fake_bot.send_message(g.id, "Restored", ephemeral_message_parameters=to(ann))
    assert [m.text for m in ann.ephemeral(g)] == ["Arrived", "Restored"]
    bob.fail_ephemeral("refused", description="USER_CLIENT_TOO_OLD")
    with pytest.raises(TelegramBadRequest, match="USER_CLIENT_TOO_OLD"):
        await fake_bot.send_message(g.id, "x", ephemeral_message_parameters=to(bob))
    assert (fake.stats["ephemeral_sent"], fake.stats["ephemeral_lost"], fake.stats["ephemeral_refused"]) == (3, 1, 2)

    # Expiry (or an app restart): gone from the screen, and the server forgets it.
    arrived = ann.ephemeral(g)[0]
    ann.restart_app()
    assert arrived.expired and ann.ephemeral(g) == []
    with pytest.raises(TelegramBadRequest, match="message to edit not found"):
        await fake_bot.edit_ephemeral_message_text(chat_id=g.id, receiver_user_id=ann.id,
                                                   ephemeral_message_id=eid(arrived), text="x")
    await fake_bot.send_message(g.id, "Again", ephemeral_message_parameters=to(ann))
    again = ann.last_ephemeral(g)
    assert again is not None
    fake.expire_ephemeral(again)
    with pytest.raises(TelegramBadRequest, match="message to delete not found"):
        await fake_bot.delete_ephemeral_message(chat_id=g.id, receiver_user_id=ann.id,
                                                ephemeral_message_id=eid(again))


@pytest.mark.fake(limits=RateLimits())
async def test_ephemeral_messages_count_against_the_chat_limits(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann, _, g = await table(fake, fake_bot, admin=True)  # 1 send of the burst of 5 used by the table
    for i in range(4):
        await fake_bot.send_message(g.id, f"hand {i}", ephemeral_message_parameters=to(ann))
    with pytest.raises(TelegramRetryAfter):
        await fake_bot.send_message(g.id, "one too many", ephemeral_message_parameters=to(ann))
    assert fake.stats["rate_limited"] == 1 and len(ann.ephemeral(g)) == 4


@pytest.mark.fake(limits=RateLimits(ephemeral_counts=False))
async def test_the_reading_where_ephemeral_messages_do_not_count_against_the_group(fake: FakeTelegram,
                                                                                 fake_bot: Bot) -> None:
    """Each receiver's ephemeral messages have a pace of their own (a private chat's: a burst of 5) and leave the
    group's budget to its normal messages."""
    ann, bob, g = await table(fake, fake_bot, admin=True)  # 1 send of the group's burst of 5
    for user in (ann, bob):
        for i in range(5):
            await fake_bot.send_message(g.id, f"hand {i}", ephemeral_message_parameters=to(user))
        with pytest.raises(TelegramRetryAfter):  # the sixth to one receiver is one too many
            await fake_bot.send_message(g.id, "one too many", ephemeral_message_parameters=to(user))
    for i in range(4):  # the group's own burst is untouched by ten ephemeral messages
        await fake_bot.send_message(g.id, f"news {i}")
    shown = ann.ephemeral(g)[0]
    with pytest.raises(TelegramRetryAfter):  # an edit counts like a send, against the receiver's pace
        await fake_bot.edit_ephemeral_message_text(chat_id=g.id, receiver_user_id=ann.id,
                                                   ephemeral_message_id=eid(shown), text="edited")
    assert fake.stats["rate_limited"] == 3 and len(ann.ephemeral(g)) == 5 and len(bob.ephemeral(g)) == 5


@pytest.mark.fake(ephemeral_consumes_callback=True)
async def test_the_reading_where_an_ephemeral_reply_answers_the_query(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann, _, g = await table(fake, fake_bot)
    first = await ann.press(board_of(g), "My hand")
    await fake_bot.send_message(g.id, "Hand", ephemeral_message_parameters=to(ann, first))
    assert first.answered
    with pytest.raises(TelegramBadRequest, match="query is too old"):
        await fake_bot.answer_callback_query(first.id)
    second = await ann.press(board_of(g), "My hand")
    await fake_bot.answer_callback_query(second.id)
    with pytest.raises(TelegramBadRequest, match="query is too old"):
        await fake_bot.send_message(g.id, "Hand", ephemeral_message_parameters=to(ann, second))


async def test_strict_spec_validation_of_the_new_methods(fake: FakeTelegram) -> None:
    g = fake.supergroup("G", members=[fake.user()])
    async with aiohttp.ClientSession() as http:
        async def call(method: str, **payload: object) -> dict:
            async with http.post(f"{fake.base_url}/bot{fake.token}/{method}", json=payload) as r:
                return await r.json()

        missing = await call("sendMessage", chat_id=g.id, text="x", ephemeral_message_parameters={})
        assert missing["error_code"] == 400 and '"receiver_user_id" is required' in missing["description"]
        typed = await call("sendMessage", chat_id=g.id, text="x",
                           ephemeral_message_parameters={"receiver_user_id": "ann"})
        assert typed["error_code"] == 400 and "must be of type Integer" in typed["description"]
        no_id = await call("editEphemeralMessageText", chat_id=g.id, receiver_user_id=1, text="x")
        assert no_id["error_code"] == 400 and "ephemeral_message_id" in no_id["description"]
        odd = await call("deleteEphemeralMessage", chat_id=g.id, receiver_user_id=1, ephemeral_message_id=1,
                         colour="red")
        assert odd["description"] == "Bad Request: message to delete not found"
    assert ("deleteEphemeralMessage", "colour") in fake.ignored_params
    assert fake.spec.version == "Bot API 10.3" and fake.spec.base_version == "Bot API 10.1"


async def test_a_dispatcher_keeps_a_hand_in_the_group(fake: FakeTelegram, fake_bot: Bot) -> None:
    """The intended flow: the table's button opens the hand ephemerally; its buttons edit it in place."""
    dp = Dispatcher()

    @dp.callback_query(F.data == "hand")
    async def show_hand(query: CallbackQuery, bot: Bot) -> None:
        assert query.message is not None
        await bot.send_message(query.message.chat.id, "Hand: 7♠ 9♥", reply_markup=kb(("Play 7♠", "play:7S")),
                               ephemeral_message_parameters=EphemeralMessageParameters(
                                   receiver_user_id=query.from_user.id, callback_query_id=query.id))
        await query.answer()

    @dp.callback_query(F.data.startswith("play:"))
    async def play(query: CallbackQuery) -> None:
        assert isinstance(query.message, Message) and query.message.ephemeral_message_id is not None
        await query.message.edit_ephemeral_text("Hand: 9♥", reply_markup=kb(("Play 9♥", "play:9H")))
        await query.answer("Played 7♠")

    task = asyncio.create_task(dp.start_polling(fake_bot, handle_signals=False, polling_timeout=1))
    try:
        ann, bob, g = await table(fake, fake_bot)
        board = g.last()
        assert board is not None
        opened = await ann.press(board, "My hand")
        hand = await fake.wait_for_ephemeral(g, ann, lambda m: "7♠" in m.content)
        await fake.wait_until(lambda: opened.answered)
        played = await ann.press(hand, "Play 7♠")
        await fake.wait_until(lambda: played.answered and hand.text == "Hand: 9♥")
        assert hand.button_texts == ["Play 9♥"] and played.answer_text == "Played 7♠"
        await fake.idle()
        assert bob.ephemeral(g) == [] and [m.text for m in g.messages()] == ["Table"]
        assert fake.errors == [] and fake.stats["callbacks_unanswered"] == 0
    finally:
        await dp.stop_polling()
        await asyncio.wait_for(task, 5)


def test_update_parsing_of_a_press_on_an_ephemeral_message() -> None:
    """What aiogram makes of the fake's callback update (no server: the shape alone)."""
    raw = {"update_id": 1, "callback_query": {
        "id": "1", "from": {"id": 5, "is_bot": False, "first_name": "Ann"}, "chat_instance": "ci", "data": "p",
        "message": {"message_id": 0, "ephemeral_message_id": 500001, "date": 1700000000,
                    "chat": {"id": -100, "type": "supergroup", "title": "G"},
                    "from": {"id": 7, "is_bot": True, "first_name": "Kozyr"},
                    "receiver_user": {"id": 5, "is_bot": False, "first_name": "Ann"}, "text": "Hand"}}}
    q = Update.model_validate(raw).callback_query
    assert q is not None and isinstance(q.message, Message) and q.message.ephemeral_message_id == 500001


async def test_ephemeral_commands_open_the_window_too(fake: FakeTelegram, fake_bot: Bot) -> None:
    """The docs' second eligible action: a user's ephemeral command (BotCommand.is_ephemeral), answered by an
    ephemeral reply within 15 s; only the bot receives the command, whatever the privacy mode."""
    ann, bob, g = await table(fake, fake_bot)
    with pytest.raises(FakeUsageError, match="is_ephemeral"):
        await ann.send_ephemeral(g, "/hand")
    await fake_bot.set_my_commands([BotCommand(command="hand", description="My hand", is_ephemeral=True),
                                    BotCommand(command="new", description="New table")])
    assert [c.is_ephemeral for c in await fake_bot.get_my_commands()] == [True, None]
    with pytest.raises(FakeUsageError):
        await ann.send_ephemeral(g, "/new")
    with pytest.raises(FakeUsageError, match="another bot"):
        await ann.send_ephemeral(g, "/hand@other_bot")
    command = await ann.send_ephemeral(g, "/hand@kozyr_test_bot")
    assert command not in g.all_messages() and ann.ephemeral(g) == []
    update = (await fake_bot.get_updates(timeout=0))[-1]
    got = update.message
    assert got is not None and got.message_id == 0 and got.ephemeral_message_id == command.ephemeral_message_id
    assert got.from_user is not None and got.from_user.id == ann.id and got.text == "/hand@kozyr_test_bot"
    assert got.receiver_user is not None and got.receiver_user.id == fake.bot_id

    def reply_to(cmd: StoredMessage) -> ReplyParameters:
        return ReplyParameters(ephemeral_message_id=eid(cmd))

    with pytest.raises(TelegramBadRequest, match=EPH_REPLY_NOT_EPHEMERAL):
        await fake_bot.send_message(g.id, "Hand for all?", reply_parameters=reply_to(command))
    with pytest.raises(TelegramBadRequest, match=EPH_REPLY_OTHER_USER):
        await fake_bot.send_message(g.id, "x", ephemeral_message_parameters=to(bob), reply_parameters=reply_to(command))
    await fake_bot.send_message(g.id, "Hand: 7♠", ephemeral_message_parameters=to(ann),
                                reply_parameters=reply_to(command))
    hand = ann.last_ephemeral(g)
    assert hand is not None and hand.replied is command and bob.ephemeral(g) == []
    fake.age_ephemeral_command(command, 15.5)  # "may only be replied to within 15 seconds of being sent"
    with pytest.raises(TelegramBadRequest, match="message to be replied not found"):
        await fake_bot.send_message(g.id, "late", ephemeral_message_parameters=to(ann),
                                    reply_parameters=reply_to(command))
    with pytest.raises(TelegramBadRequest, match=EPH_NO_RIGHTS):
        await fake_bot.send_message(g.id, "late", ephemeral_message_parameters=to(ann))


async def test_aiogram_reply_to_an_ephemeral_command_is_ephemeral(fake: FakeTelegram, fake_bot: Bot) -> None:
    """aiogram 3.31's Message.reply() on an ephemeral command fills both parameters itself (Message.answer()
    would not: it would send a normal group message)."""
    dp = Dispatcher()

    @dp.message(Command("hand"))
    async def hand(message: Message) -> None:
        await message.reply("Your hand: 7♠")

    task = asyncio.create_task(dp.start_polling(fake_bot, handle_signals=False, polling_timeout=1))
    try:
        ann, bob, g = await table(fake, fake_bot)
        await fake_bot.set_my_commands([BotCommand(command="hand", description="My hand", is_ephemeral=True)])
        await ann.send_ephemeral(g, "/hand")
        shown = await fake.wait_for_ephemeral(g, ann)
        assert shown.text == "Your hand: 7♠" and bob.ephemeral(g) == [] and [m.text for m in g.messages()] == ["Table"]
        await fake.idle()
        assert fake.errors == []
    finally:
        await dp.stop_polling()
        await asyncio.wait_for(task, 5)
