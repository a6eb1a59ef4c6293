"""The JSON session (bot/json_session.py) against aiogram's form session, through the fake Bot API:
every call the bot makes without files reaches Telegram with the same parameters, and errors raise
the same exceptions. The outbox's raw-markup methods send what the keyboard's models would."""

from __future__ import annotations

from typing import Any

import pytest
from aiogram import Bot
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.enums import ParseMode
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import BufferedInputFile, InlineKeyboardMarkup

from bot.json_session import JsonSession
from bot.services.hands.buttons import play_markup
from bot.services.outbox import EditText, SendText, markup_data
from tests.fakebot import FakeTelegram, RateLimits

LEGAL = ["play 7S", "play 8S", "play 9H", "play TD", "play JC", "play JK over", "play JK under"]


@pytest.fixture
def fake_limits() -> RateLimits:
    return RateLimits.off()


def _bot(fake: FakeTelegram, session: AiohttpSession) -> Bot:
    return Bot(fake.token, session=session,
               default=DefaultBotProperties(parse_mode=ParseMode.HTML, link_preview_is_disabled=True))


async def _calls(fake: FakeTelegram, session: AiohttpSession) -> list[tuple[str, dict[str, Any]]]:
    """Every kind of call the bot makes without files; what the fake received, message ids left out."""
    user = fake.user(first_name="Ann", username="ann")
    await user.start_bot()
    bot = _bot(fake, session)
    markup = InlineKeyboardMarkup.model_validate(play_markup("carnival", 3, 7, LEGAL, "en"))
    first = len(fake.calls)
    try:
        sent = await bot.send_message(user.id, "<b>Hand</b> 7♠ &amp; 8♠", reply_markup=markup)
        await bot.edit_message_text(text="<i>Hand</i> 8♠", chat_id=user.id, message_id=sent.message_id,
                                    reply_markup=markup)
        await bot.edit_message_reply_markup(chat_id=user.id, message_id=sent.message_id)
        raw = await bot(SendText(chat_id=user.id, text="again", reply_markup=markup_data(markup)))
        await bot(EditText(chat_id=user.id, message_id=raw["message_id"], text="again, edited",
                           reply_markup=markup_data(markup)))
        await bot(EditText(chat_id=user.id, message_id=raw["message_id"], text="no keyboard", reply_markup=None))
        member = await bot.get_chat_member(user.id, user.id)
        assert member.user.id == user.id
        await bot.delete_message(user.id, sent.message_id)
        press = await user.press_data(user.dm.messages()[-1], "mv:3:7:0")
        await bot.answer_callback_query(press.id, text="7♠", show_alert=True)
        with pytest.raises(TelegramBadRequest, match="message is not modified"):
            await bot(EditText(chat_id=user.id, message_id=raw["message_id"], text="no keyboard"))
        photo = await bot.send_document(user.id, BufferedInputFile(b"data", filename="a.txt"), caption="<b>x</b>")
        assert photo.document is not None
    finally:
        await bot.session.close()
    out = []
    for call in fake.calls[first:]:
        params = {k: _typed(v) for k, v in call.params.items()
                  if k not in ("message_id", "chat_id", "callback_query_id", "user_id")}
        out.append((call.method, params))
    return out


def _typed(value: Any) -> Any:
    """A form sends every scalar as text ("true"); JSON keeps its type."""
    return {"true": True, "false": False}.get(value, value) if isinstance(value, str) else value


async def test_json_calls_reach_telegram_as_the_form_calls_do():
    # Two fakes built here, not the fixture: the same calls through each session, each in a fresh world.
    async with FakeTelegram(limits=RateLimits.off()) as fake:
        form = await _calls(fake, AiohttpSession(api=fake.api_server))
    async with FakeTelegram(limits=RateLimits.off()) as fake:
        json_ = await _calls(fake, JsonSession(api=fake.api_server))
        assert all(not c.ignored for c in fake.calls)
    assert [m for m, _ in json_] == [m for m, _ in form]
    assert json_ == form
    sent = dict(json_)["sendMessage"]
    assert sent["parse_mode"] == "HTML" and sent["reply_markup"]["inline_keyboard"][0][0]["callback_data"] == "mv:3:7:0"


def test_json_body_leaves_out_what_the_form_leaves_out():
    session = JsonSession()
    bot = Bot("1:x", session=session, default=DefaultBotProperties(parse_mode=ParseMode.HTML))
    body = session.json_body(bot, SendText(chat_id=5, text="hi", disable_notification=False, message_thread_id=0,
                                           reply_markup=None))
    assert body == {"chat_id": 5, "text": "hi", "parse_mode": "HTML"}


@pytest.mark.fake(limits=RateLimits.off())
async def test_calls_build_no_pydantic_model_class_once_warm(fake, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot's calls (the outbox's texts, answers, getUpdates) build no pydantic generic model class
    again after the garbage collector ran: such a class is kept only weakly by pydantic, and building
    one costs milliseconds of the event loop."""
    import gc

    from pydantic._internal import _generics

    import bot.services.outbox  # noqa: F401  (holds the answers' models)

    user = fake.user(first_name="Ann")
    await user.start_bot()
    bot = _bot(fake, JsonSession(api=fake.api_server))
    try:
        async def calls() -> None:
            raw = await bot(SendText(chat_id=user.id, text="hand", reply_markup=None))
            await bot(EditText(chat_id=user.id, message_id=raw["message_id"], text="hand, edited"))
            press = await user.press_data(user.dm.messages()[-1], "mv:3:7:0")
            await bot.answer_callback_query(press.id, text="7♠")
            await bot.get_updates(offset=-1, timeout=0)

        await calls()  # warm: whatever is built once is built now
        built: list[str] = []
        create = _generics.create_generic_submodel

        def spy(name: str, *args: Any) -> Any:
            built.append(name)
            return create(name, *args)

        monkeypatch.setattr(_generics, "create_generic_submodel", spy)
        gc.collect()
        await calls()
        assert built == []
    finally:
        await bot.session.close()
