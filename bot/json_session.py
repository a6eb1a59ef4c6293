"""aiogram's HTTP session, sending the text-only calls as one JSON body instead of a form.

aiogram encodes every call as a url-encoded form: each field is prepared on its own, nested objects
(a keyboard) are dumped to JSON strings, then every character is percent-quoted. For a hand edit with
its keyboard that is ~0.4 ms of CPU a call, over a third of what the bot spends on a move (bench/bot.py).
The Bot API takes the same parameters as a JSON object, built here in one dump (bot/codec.py). Calls that
upload files (a picture, a document) keep aiogram's multipart form. The answer is parsed by aiogram as
before, so errors (429, "message is not modified", ...) raise the same exceptions; a successful answer
that is used as plain JSON or only as success skips aiogram's pydantic ``Response`` model.
"""

from __future__ import annotations

import asyncio
import ssl
from typing import Any, cast
from urllib.parse import urlsplit

import aiogram
from aiogram import Bot
from aiogram import methods as api
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.session.base import Response
from aiogram.exceptions import TelegramNetworkError
from aiogram.methods.base import TelegramMethod, TelegramType
from aiohttp import ClientError, ClientTimeout

from bot import codec
from bot.http import HttpPool


class RawUpdates(api.GetUpdates):
    """getUpdates answered with the updates as parsed JSON: the intake stores each as received and builds
    its ``Update`` model itself (bot/intake.py), instead of dumping the model back to JSON (~40 us an update)."""

    __returning__ = list[dict[str, Any]]


# The calls the bot makes without files (the outbox's texts and keyboards, answers to presses, long polling).
JSON_METHODS = (api.SendMessage, api.EditMessageText, api.EditMessageReplyMarkup, api.AnswerCallbackQuery,
                api.DeleteMessage, api.GetChatMember, RawUpdates)
_SCALARS = (str, int, float)
# Answers used as plain JSON (the outbox's SendText and EditText, the intake's RawUpdates) or only as success
# (True): a successful one is returned as parsed, without building aiogram's ``Response`` model; errors still
# go through it.
_PLAIN_RESULTS = frozenset({bool, dict[str, Any], dict[str, Any] | bool, list[dict[str, Any]]})
# The error path's answer model, held: pydantic keeps parametrized models only weakly (bot/services/outbox.py).
_RAW_UPDATES_RESPONSE = Response[list[dict[str, Any]]]


_PLAIN: dict[type, bool] = {}


def _plain_fields(cls: type) -> bool:
    """Whether a method's fields are sent under their own names (no alias): its ``__dict__`` is its body."""
    plain = _PLAIN.get(cls)
    if plain is None:
        fields = cls.model_fields  # type: ignore[attr-defined]  # a pydantic model
        plain = _PLAIN[cls] = all(f.alias is None and f.serialization_alias is None and not f.exclude
                                  for f in fields.values())
    return plain


class JsonSession(AiohttpSession):
    """``AiohttpSession`` whose text-only calls go as ``application/json``, over bot/http.py's kept-alive
    connections (aiohttp's client cost ~200 us of CPU a request); calls with files stay aiohttp's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("json_loads", codec.loads)  # aiogram's answers and form fields too (bot/codec.py)
        kwargs.setdefault("json_dumps", codec.dumps)
        super().__init__(*args, **kwargs)
        self._pools: dict[str, HttpPool] = {}  # by scheme://host:port

    def json_body(self, bot: Bot, method: TelegramMethod[Any]) -> dict[str, Any]:
        """The call's parameters as aiogram's form would send them: defaults resolved (parse mode, link
        preview), empty values left out, nested objects as objects.

        The fields are read as they are held (``model_dump`` first copied them, ~40 us a call) where no
        field is renamed on the way out; a field a method declares raw (``__raw_fields__``: the outbox's
        stored keyboard, plain JSON already) goes as it is (aiogram's preparing walked every button of it,
        ~90 us a keyboard)."""
        files: dict[str, Any] = {}
        body: dict[str, Any] = {}
        cls = type(method)
        raw: frozenset[str] = getattr(cls, "__raw_fields__", frozenset())
        fields = method.__dict__ if _plain_fields(cls) else method.model_dump(warnings=False, exclude_none=True)
        for key, value in fields.items():
            if value is None:
                continue
            if key in raw:
                pass
            elif not isinstance(value, _SCALARS):  # a Default, a nested object, a list: aiogram's own preparing
                value = self.prepare_value(value, bot=bot, files=files, _dumps_json=False)
            if value:  # as the form: None, False, 0 and "" are not sent
                body[key] = value
        if files:
            raise ValueError(f"{type(method).__name__} has a file to upload: not a JSON call")
        return body

    def _pool(self, url: str) -> tuple[HttpPool, str] | None:
        """The kept-alive pool for the url's server and the url's path; None where aiohttp must do it
        (a proxy)."""
        if self._proxy is not None:
            return None
        scheme, netloc, path, query, _ = urlsplit(url)
        pools = self._pools
        key = f"{scheme}://{netloc}"
        pool = pools.get(key)
        if pool is None:
            context = self._connector_init.get("ssl")
            pool = pools[key] = HttpPool(key, limit=self._connector_init.get("limit", 100),
                                         ssl_context=context if isinstance(context, ssl.SSLContext) else None,
                                         user_agent=f"kozyr aiogram/{aiogram.__version__}")
        return pool, f"{path}?{query}" if query else path

    async def make_request(self, bot: Bot, method: TelegramMethod[TelegramType],
                           timeout: int | None = None) -> TelegramType:
        if not isinstance(method, JSON_METHODS):
            return await super().make_request(bot, method, timeout)
        # A string: ``TelegramMethod[Any]`` evaluated would build a pydantic generic model class on every call
        # once the garbage collector freed the last one (about a tenth of the bot's CPU, bench/sampler.py).
        call = cast("TelegramMethod[Any]", method)
        url = self.api.api_url(token=bot.token, method=call.__api_method__)
        data = codec.dumps_bytes(self.json_body(bot, call))
        seconds = self.timeout if timeout is None else timeout
        route = self._pool(url)
        try:
            if route is not None:  # the lean client (bot/http.py)
                async with asyncio.timeout(seconds):
                    status, body = await route[0].post(route[1], data)
            else:
                session = await self.create_session()
                async with session.post(url, data=data, headers={"Content-Type": "application/json"},
                                        timeout=ClientTimeout(total=seconds)) as resp:
                    body = await resp.read()
                status = resp.status
        except TimeoutError as e:
            raise TelegramNetworkError(method=call, message="Request timeout error") from e
        except (ClientError, OSError) as e:  # HttpError is a ConnectionError
            raise TelegramNetworkError(method=call, message=f"{type(e).__name__}: {e}") from e
        if status == 200 and call.__returning__ in _PLAIN_RESULTS:
            try:
                answer = codec.loads(body)
            except ValueError:
                answer = None
            if isinstance(answer, dict) and answer.get("ok") is True and "result" in answer:
                return cast(TelegramType, answer["result"])
        raw_result = body.decode("utf-8", errors="replace")
        response = self.check_response(bot=bot, method=call, status_code=status, content=raw_result)
        return cast(TelegramType, response.result)

    async def close(self) -> None:
        for pool in self._pools.values():
            pool.close()
        await super().close()
