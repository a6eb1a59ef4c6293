"""Tests of the fake Telegram server itself, through a real aiogram Bot over HTTP."""

from __future__ import annotations

import asyncio
import io

import aiohttp
import pytest
from aiogram import Bot, Dispatcher, F
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.filters import Command, CommandStart
from aiogram.types import (
    BufferedInputFile,
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    Message,
)
from PIL import Image

from tests.fakebot import FakeTelegram, FakeUsageError, RateLimits


@pytest.fixture
def fake_limits() -> RateLimits:
    return RateLimits.loose()  # these tests are about behaviour; the rate-limit test builds its own fake


def kb(*buttons: tuple[str, str]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[[InlineKeyboardButton(text=t, callback_data=d) for t, d in buttons]])


def png(w: int = 400, h: int = 300) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), (10, 120, 30)).save(buf, "PNG")
    return buf.getvalue()


async def test_send_edit_and_not_modified(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann = fake.user(first_name="Ann", started=True)
    sent = await fake_bot.send_message(ann.id, "Hello", reply_markup=kb(("Go", "go")))
    stored = ann.last_dm()
    assert stored is not None and stored.text == "Hello" and stored.button_texts == ["Go"]

    await fake_bot.edit_message_text("Hello again", chat_id=ann.id, message_id=sent.message_id,
                                     reply_markup=kb(("Go", "go")))
    assert stored.text == "Hello again" and stored.edit_count == 1 and stored.history[0]["text"] == "Hello"
    with pytest.raises(TelegramBadRequest, match="message is not modified"):
        await fake_bot.edit_message_text("Hello again", chat_id=ann.id, message_id=sent.message_id,
                                         reply_markup=kb(("Go", "go")))
    with pytest.raises(TelegramBadRequest, match="message is not modified"):
        await fake_bot.edit_message_reply_markup(chat_id=ann.id, message_id=sent.message_id,
                                                 reply_markup=kb(("Go", "go")))
    # Same text but no keyboard is a modification: Telegram drops a keyboard that is not repeated.
    await fake_bot.edit_message_text("Hello again", chat_id=ann.id, message_id=sent.message_id)
    assert stored.buttons == [] and stored.edit_count == 2

    with pytest.raises(TelegramBadRequest, match="message to edit not found"):
        await fake_bot.edit_message_text("x", chat_id=ann.id, message_id=sent.message_id + 100)
    bob = fake.user(first_name="Bob", started=True)
    with pytest.raises(TelegramBadRequest, match="message to edit not found"):
        await fake_bot.edit_message_text("x", chat_id=bob.id, message_id=sent.message_id)
    with pytest.raises(TelegramBadRequest, match="no caption in the message"):
        await fake_bot.edit_message_caption(chat_id=ann.id, message_id=sent.message_id, caption="c")

    assert await fake_bot.delete_message(ann.id, sent.message_id)
    assert stored.deleted and ann.dm.visible() == []
    with pytest.raises(TelegramBadRequest, match="message to delete not found"):
        await fake_bot.delete_message(ann.id, sent.message_id)


async def test_forbidden_for_unstarted_and_blocking_users(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann = fake.user(first_name="Ann")
    with pytest.raises(TelegramForbiddenError, match="bot can't initiate conversation with a user"):
        await fake_bot.send_message(ann.id, "hi")
    with pytest.raises(FakeUsageError):
        await ann.send("hello")  # a real user must press START first
    await ann.start_bot("g42")
    await fake_bot.send_message(ann.id, "hi")
    ann.block_bot()
    with pytest.raises(TelegramForbiddenError, match="bot was blocked by the user"):
        await fake_bot.send_message(ann.id, "hi again")
    with pytest.raises(TelegramBadRequest, match="chat not found"):
        await fake_bot.send_message(999999999, "nobody")
    updates = await fake_bot.get_updates(timeout=0)
    kinds = [("message" if u.message else "my_chat_member") for u in updates]
    assert kinds == ["message", "my_chat_member"]
    assert updates[0].message.text == "/start g42"
    assert updates[1].my_chat_member.new_chat_member.status == "kicked"


async def test_inline_keyboard_validation(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann = fake.user(started=True)
    ok64 = "я" * 32  # 64 bytes in UTF-8
    await fake_bot.send_message(ann.id, "ok", reply_markup=kb(("A", ok64)))
    with pytest.raises(TelegramBadRequest, match="BUTTON_DATA_INVALID"):
        await fake_bot.send_message(ann.id, "too long", reply_markup=kb(("A", ok64 + "x")))
    two_actions = InlineKeyboardMarkup(inline_keyboard=[[
        InlineKeyboardButton(text="A", callback_data="a", url="https://example.org")]])
    with pytest.raises(TelegramBadRequest, match="exactly one action"):
        await fake_bot.send_message(ann.id, "x", reply_markup=two_actions)
    no_action = InlineKeyboardMarkup(inline_keyboard=[[InlineKeyboardButton(text="A")]])
    with pytest.raises(TelegramBadRequest, match="Text buttons are unallowed"):
        await fake_bot.send_message(ann.id, "x", reply_markup=no_action)
    assert len(ann.inbox()) == 1


async def test_html_parsing_and_length_limits(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann = fake.user(started=True)
    m = await fake_bot.send_message(ann.id, '<b>Bold <i>both</i></b> &lt;3 &#x1F0A1; <a href="https://t.me/x">l</a>',
                                    parse_mode="HTML")
    assert m.text == "Bold both <3 \U0001F0A1 l"
    types = [(e.type, e.offset, e.length) for e in m.entities]
    assert types == [("bold", 0, 9), ("italic", 5, 4), ("text_link", 16, 1)]  # 🂡 is 2 UTF-16 units
    for bad_html, msg in [("<b>open", "Can't find end tag"), ("<b>x</i>", "Unexpected end tag|Unmatched end tag"),
                          ("<div>x</div>", 'Unsupported start tag "div"'), ("1 < 2", "Unsupported start tag"),
                          ("Tom & Jerry", '"&"'), ("<b>x</i></b>", "Unmatched end tag"),
                          ('<span class="x">s</span>', "tg-spoiler")]:
        with pytest.raises(TelegramBadRequest, match="can't parse entities") as exc:
            await fake_bot.send_message(ann.id, bad_html, parse_mode="HTML")
        assert __import__("re").search(msg, str(exc.value)), (bad_html, str(exc.value))

    await fake_bot.send_message(ann.id, "<b>" + "x" * 4096 + "</b>", parse_mode="HTML")  # tags do not count
    with pytest.raises(TelegramBadRequest, match="message is too long"):
        await fake_bot.send_message(ann.id, "&amp;" + "x" * 4096, parse_mode="HTML")
    with pytest.raises(TelegramBadRequest, match="message text is empty"):
        await fake_bot.send_message(ann.id, "<b> </b>", parse_mode="HTML")
    photo = BufferedInputFile(png(), "p.png")
    with pytest.raises(TelegramBadRequest, match="caption is too long"):
        await fake_bot.send_photo(ann.id, photo, caption="<i>" + "c" * 1025 + "</i>", parse_mode="HTML")
    md = await fake_bot.send_message(ann.id, r"*Bold* and \_under\_ 1\.5", parse_mode="MarkdownV2")
    assert md.text == "Bold and _under_ 1.5" and md.entities[0].type == "bold"
    with pytest.raises(TelegramBadRequest, match="reserved"):
        await fake_bot.send_message(ann.id, "1.5", parse_mode="MarkdownV2")


@pytest.mark.fake(limits=RateLimits(per_chat_per_second=1.0, per_chat_burst=2, group_per_window=3, group_window=60.0,
                                     global_per_second=None))
async def test_rate_limits_surface_as_retry_after(fake: FakeTelegram, fake_bot: Bot) -> None:
    bot = fake_bot
    ann = fake.user(started=True)
    await bot.send_message(ann.id, "1")
    await bot.send_message(ann.id, "2")
    with pytest.raises(TelegramRetryAfter) as exc:
        await bot.send_message(ann.id, "3")
    assert exc.value.retry_after >= 1
    assert fake.stats["rate_limited"] == 1 and len(ann.inbox()) == 2
    # edits count toward the per-chat limit too
    with pytest.raises(TelegramRetryAfter):
        await bot.edit_message_text("2b", chat_id=ann.id, message_id=ann.inbox()[1].message_id)

    fake.limiter.limits.per_chat_per_second = None
    g = fake.group("G", members=[ann])
    for i in range(3):
        await bot.send_message(g.id, f"g{i}")
    with pytest.raises(TelegramRetryAfter) as exc:
        await bot.send_message(g.id, "g3")
    assert 55 <= exc.value.retry_after <= 60
    assert fake.stats["rate_limited"] == 3
    assert fake.stats["rate_limited_by_chat"] == {ann.id: 2, g.id: 1}


@pytest.mark.fake(limits=RateLimits(per_chat_per_second=1.0, per_chat_burst=1, group_per_window=2, group_window=60.0,
                                     global_per_second=None), time_scale=20)
async def test_a_time_scale_runs_the_limits_faster_and_keeps_them_strict(fake: FakeTelegram, fake_bot: Bot) -> None:
    """time_scale=20: a chat's one message a second is one every 0.05 s of real time, a group's minute lasts
    3 s; a send before its time is still refused, with retry_after counted in the fake's seconds."""
    ann = fake.user(started=True)
    g = fake.group("G", members=[ann])
    await fake_bot.send_message(ann.id, "1")
    with pytest.raises(TelegramRetryAfter):
        await fake_bot.send_message(ann.id, "too early")
    await asyncio.sleep(0.06)  # 1.2 of the fake's seconds
    await fake_bot.send_message(ann.id, "2")
    for i in range(2):
        await fake_bot.send_message(g.id, f"g{i}")
        await asyncio.sleep(0.06)  # the group is a chat too: one a (fake) second
    with pytest.raises(TelegramRetryAfter) as exc:
        await fake_bot.send_message(g.id, "g2")
    assert 55 <= exc.value.retry_after <= 60  # the fake's seconds, not real ones
    assert fake.stats["rate_limited"] == 2 and [m.content for m in ann.inbox()] == ["1", "2"]


async def test_photo_upload_then_file_id_reuse(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann = fake.user(started=True)
    first = await fake_bot.send_photo(ann.id, BufferedInputFile(png(1000, 500), "table.png"), caption="table")
    assert [(p.width, p.height) for p in first.photo][-1] == (1000, 500)
    file_id = first.photo[-1].file_id
    second = await fake_bot.send_photo(ann.id, file_id, caption="again")
    assert second.photo[-1].file_id == file_id
    assert (fake.stats["uploads"], fake.stats["file_reuses"]) == (1, 1)
    assert ann.inbox()[1].photo_file_id == file_id

    edited = await fake_bot.edit_message_media(InputMediaPhoto(media=BufferedInputFile(png(200, 200), "n.png")),
                                               chat_id=ann.id, message_id=first.message_id)
    assert edited.photo[-1].file_id != file_id and fake.stats["uploads"] == 2
    with pytest.raises(TelegramBadRequest, match="message is not modified"):
        await fake_bot.edit_message_media(InputMediaPhoto(media=file_id, caption="again"),
                                          chat_id=ann.id, message_id=second.message_id)
    with pytest.raises(TelegramBadRequest, match="IMAGE_PROCESS_FAILED"):
        await fake_bot.send_photo(ann.id, BufferedInputFile(b"not an image", "x.png"))
    with pytest.raises(TelegramBadRequest, match="wrong file identifier"):
        await fake_bot.send_photo(ann.id, "AgACnonexistent")
    doc = await fake_bot.send_document(ann.id, BufferedInputFile(b"log", "log.txt"))
    with pytest.raises(TelegramBadRequest, match="can't use file of type Document as Photo"):
        await fake_bot.send_photo(ann.id, doc.document.file_id)
    album = await fake_bot.send_media_group(ann.id, [InputMediaPhoto(media=file_id),
                                                     InputMediaPhoto(media=BufferedInputFile(png(), "a.png"))])
    assert len(album) == 2 and album[0].media_group_id == album[1].media_group_id
    assert (fake.stats["uploads"], fake.stats["file_reuses"]) == (4, 2)
    f = await fake_bot.get_file(file_id)
    data = await fake_bot.download_file(f.file_path)
    assert data is not None and data.read() == png(1000, 500)


async def test_get_updates_delivers_messages_and_callbacks(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann, bob = fake.user(first_name="Ann"), fake.user(first_name="Bob")
    g = fake.group("Cards", members=[ann, bob])
    poll = asyncio.create_task(fake_bot.get_updates(timeout=5))
    await asyncio.sleep(0.05)
    await ann.send(g, "/new@kozyr_test_bot carnival quarters=1")
    updates = await asyncio.wait_for(poll, 2)  # long poll returns as soon as there is an update
    msg = updates[0].message
    assert msg.text.startswith("/new@kozyr_test_bot") and msg.from_user.id == ann.id and msg.chat.id == g.id
    assert (msg.entities[0].type, msg.entities[0].offset, msg.entities[0].length) == ("bot_command", 0, 19)

    await bob.send(g, "just chatting")  # privacy mode: not delivered
    await bob.send(g, "/new@other_bot")  # another bot's command: not delivered
    sent = await fake_bot.send_message(g.id, "Join?", reply_markup=kb(("Join", "join:1"), ("Leave", "leave:1")))
    stored = g.last()
    cb = await bob.press(stored, "Join")
    with pytest.raises(FakeUsageError):
        await bob.press(stored, "Nonexistent")
    forged = await ann.press_data(stored, "admin:kill")

    updates = await fake_bot.get_updates(offset=updates[-1].update_id + 1, timeout=0)
    assert [u.callback_query.data for u in updates] == ["join:1", "admin:kill"]
    q = updates[0].callback_query
    assert q.from_user.id == bob.id and q.message.message_id == sent.message_id and q.id == cb.id
    assert await fake_bot.answer_callback_query(q.id, text="Joined")
    assert cb.answered and cb.answer_text == "Joined" and not forged.answered
    with pytest.raises(TelegramBadRequest, match="query is too old"):
        await fake_bot.answer_callback_query(q.id)
    assert [c.id for c in fake.unanswered_callbacks()] == [forged.id]
    # confirmed updates are gone
    assert await fake_bot.get_updates(offset=updates[-1].update_id + 1, timeout=0) == []


async def test_group_migration(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann = fake.user()
    g = fake.group("Old", members=[ann], creator=ann)
    await fake_bot.send_message(g.id, "before")
    new = g.migrate_to_supergroup(by=ann)
    with pytest.raises(TelegramMigrateToChat) as exc:
        await fake_bot.send_message(g.id, "after")
    assert exc.value.migrate_to_chat_id == new.id and str(new.id).startswith("-100")
    updates = await fake_bot.get_updates(timeout=0)
    assert [(u.message.chat.id, u.message.migrate_to_chat_id, u.message.migrate_from_chat_id) for u in updates] == [
        (g.id, new.id, None), (new.id, None, g.id)]
    await fake_bot.send_message(new.id, "after")
    member = await fake_bot.get_chat_member(new.id, ann.id)
    assert member.status == "creator"
    admins = await fake_bot.get_chat_administrators(new.id)
    assert [a.user.id for a in admins] == [ann.id]
    assert await fake_bot.send_chat_action(new.id, "typing")
    with pytest.raises(TelegramBadRequest, match="wrong parameter action"):
        await fake_bot.send_chat_action(new.id, "dancing")
    assert (await fake_bot.get_chat(new.id)).type == "supergroup"


async def test_raw_http_envelopes_and_spec_validation(fake: FakeTelegram) -> None:
    base = f"{fake.base_url}/bot{fake.token}"
    ann = fake.user(started=True)
    async with aiohttp.ClientSession() as s:
        async with s.post(f"{base}/sendMesage", json={"chat_id": ann.id, "text": "x"}) as r:
            assert r.status == 404 and await r.json() == {"ok": False, "error_code": 404, "description": "Not Found"}
        async with s.post(f"{base}/sendMessage", data={"chat_id": str(ann.id)}) as r:
            assert r.status == 400 and (await r.json())["description"] == "Bad Request: message text is empty"
        async with s.post(f"{base}/editMessageText", json={"chat_id": ann.id, "message_id": "x", "text": "t"}) as r:
            assert r.status == 400 and "must be of type Integer" in (await r.json())["description"]
        markup = {"inline_keyboard": [[{"callback_data": "a"}]]}
        async with s.post(f"{base}/sendMessage", json={"chat_id": ann.id, "text": "t", "reply_markup": markup}) as r:
            assert r.status == 400 and '"text" is required' in (await r.json())["description"]
        async with s.get(f"{base}/sendMessage", params={"chat_id": ann.id, "text": "q", "bogus": "1"}) as r:
            body = await r.json()
            assert r.status == 200 and body["ok"] and body["result"]["text"] == "q"
        async with s.post(f"{fake.base_url}/bot1:wrong/getMe") as r:
            assert r.status == 401
    assert ("sendMessage", "bogus") in fake.ignored_params


async def test_generic_and_unimplemented_methods(fake: FakeTelegram, fake_bot: Bot) -> None:
    from aiogram.types import BotCommand, MenuButtonCommands
    assert await fake_bot.set_chat_menu_button(menu_button=MenuButtonCommands())
    await fake_bot.set_my_commands([BotCommand(command="new", description="New game")], language_code="ru")
    assert [c.command for c in await fake_bot.get_my_commands(language_code="ru")] == ["new"]
    assert await fake_bot.get_my_commands() == []
    with pytest.raises(TelegramBadRequest, match="BOT_COMMAND_INVALID"):
        await fake_bot.set_my_commands([BotCommand(command="New-Game", description="x")])
    with pytest.raises(TelegramServerError, match="not implemented"):
        await fake_bot.get_star_transactions()


async def test_dispatcher_end_to_end(fake: FakeTelegram, fake_bot: Bot) -> None:
    """The intended use: a real Dispatcher polling the fake; the test acts as users and awaits reactions."""
    dp = Dispatcher()

    @dp.message(CommandStart())
    async def start(message: Message) -> None:
        await message.answer("Welcome", reply_markup=kb(("Play", "play")))

    @dp.message(Command("new"))
    async def new(message: Message) -> None:
        await message.answer("<b>New game</b>", parse_mode="HTML")

    @dp.callback_query(F.data == "play")
    async def play(query: CallbackQuery) -> None:
        await query.answer("Let's go")
        await query.message.edit_text("Playing")

    task = asyncio.create_task(dp.start_polling(fake_bot, handle_signals=False, polling_timeout=1))
    try:
        ann = fake.user(first_name="Ann")
        await ann.start_bot()
        welcome = await fake.wait_for_message(ann.dm, lambda m: m.text == "Welcome")
        cb = await ann.press(welcome, "Play")
        await fake.wait_until(lambda: cb.answered and welcome.text == "Playing")
        assert cb.answer_text == "Let's go" and welcome.buttons == []
        g = fake.group("G", members=[ann])
        await ann.send(g, "/new")
        reply = await fake.wait_for_message(g)
        assert reply.text == "New game" and reply.entities[0]["type"] == "bold"
        await fake.idle()
        assert fake.errors == []
    finally:
        await dp.stop_polling()
        await asyncio.wait_for(task, 5)


async def test_callback_answer_deadline_and_poll_conflict(fake: FakeTelegram, fake_bot: Bot) -> None:
    ann = fake.user(started=True)
    await fake_bot.send_message(ann.id, "x", reply_markup=kb(("A", "a")))
    cb = await ann.press(ann.last_dm(), "A")
    fake.callback_timeout = 0.0  # every answer is now too late
    await asyncio.sleep(0.01)
    with pytest.raises(TelegramBadRequest, match="query is too old"):
        await fake_bot.answer_callback_query(cb.id)
    assert cb.late and not cb.answered

    # allowed_updates filters (and persists); a second concurrent long poll terminates the first with 409.
    assert await fake_bot.get_updates(offset=-1, timeout=0, allowed_updates=["message"]) == []
    first = asyncio.create_task(fake_bot.get_updates(timeout=3))
    await asyncio.sleep(0.05)
    second = asyncio.create_task(fake_bot.get_updates(timeout=3))
    from aiogram.exceptions import TelegramConflictError
    with pytest.raises(TelegramConflictError):
        await asyncio.wait_for(first, 2)
    await ann.send("hello")
    updates = await asyncio.wait_for(second, 2)
    assert [u.message.text for u in updates] == ["hello"]
