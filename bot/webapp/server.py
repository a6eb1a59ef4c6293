"""The table app's routes (an aiohttp sub-application): the page, and the API it calls.

Mounted at ``/app`` beside the webhook in webhook mode, or served on its own port in polling mode
(``KOZYR_APP_HOST``/``KOZYR_APP_PORT``). Every API request carries Telegram's initData in
``X-Telegram-Init-Data`` (checked by ``auth.Gate``); after ``POST /api/open`` it also carries the
session proof in ``X-App-Session``. A table is named by its signed token (``bot/ui/app_links.py``),
never by its id. Routes:

- ``POST api/open`` {t}: a session (the initData's first use) and the table as the user may see it;
- ``GET api/state?t=``: the table again; ``GET api/stream?t=``: every change, as server-sent events;
- ``POST api/move`` {t, version, action, request}: a move by its text, as its button would play it;
- ``POST api/lay`` {t, version, layout, request}: a rummy lay-down as the whole new table;
- ``POST api/propose`` {t, cards}: the solver's table with those hand cards (nothing is played).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable
from importlib import resources
from typing import Any

from aiohttp import web

from bot import codec
from bot.services.app_moves import AppMoves
from bot.services.core import TableCore
from bot.services.types import Actor, Answer, Loaded
from bot.ui.app_links import AppLinks
from bot.webapp.auth import Gate, Refused, Visitor, claimed_lang
from bot.webapp.fanout import RedisFanout
from bot.webapp.hub import Hub
from bot.webapp.views import table_json
from bot.webapp.words import refusal
from engine.core import State

log = logging.getLogger(__name__)

PREFIX = "/app"
INIT_HEADER = "X-Telegram-Init-Data"
SESSION_HEADER = "X-App-Session"
KEEP_ALIVE = 15.0  # seconds between a stream's comments when nothing changes (proxies close idle streams)
LOOK = 1.0  # seconds between looks at whether a quiet stream's app is still there (it holds a slot)
STATIC = {"index.html": "text/html", "app.js": "text/javascript", "app.css": "text/css"}
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; script-src 'self' https://telegram.org; "
                               "style-src 'self'; img-src 'self' data:; connect-src 'self'",
}
def static_files() -> dict[str, bytes]:
    """The page, read once from the package (it ships in the wheel: pyproject's package-data)."""
    folder = resources.files("bot.webapp") / "static"
    return {name: (folder / name).read_bytes() for name in STATIC}


def request_update_id(user_id: int, request: str) -> int:
    """A request id as an update id: negative (Telegram's are positive), per user, 56 bits of a hash."""
    digest = hashlib.sha256(f"{user_id}:{request}".encode()).digest()
    return -(int.from_bytes(digest[:7], "big") + 1)


Moving = tuple[Visitor, int, dict[str, Any], int, Actor, str]  # who, table, body, update id, actor, language


class TableApp:
    """The app's server side; ``application()`` is the sub-app, ``start`` runs it alone (polling mode)."""

    def __init__(self, core: TableCore, moves: AppMoves, links: AppLinks, gate: Gate,
                 now: Callable[[], float | None], fanout: RedisFanout | None = None) -> None:
        self.core = core
        self.moves = moves
        self.links = links
        self.gate = gate
        self.now = now
        self.fanout = fanout  # several workers: changes to and from the others (bot/webapp/fanout.py)
        self.hub = Hub(core, self._picture, fanout)
        self.files = static_files()
        self._runner: web.AppRunner | None = None
        self._streams: set[asyncio.Task[Any]] = set()

    def application(self) -> web.Application:
        app = web.Application(client_max_size=64 << 10)
        app.router.add_get("/", self._page)
        for name in STATIC:
            app.router.add_get(f"/{name}", self._page)
        app.router.add_post("/api/open", self._open)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/stream", self._stream)
        app.router.add_post("/api/move", self._move)
        app.router.add_post("/api/lay", self._lay)
        app.router.add_post("/api/propose", self._propose)
        return app

    def mount(self, parent: web.Application) -> None:
        parent.router.add_get(PREFIX, self._to_page)  # first: the page's relative URLs need the trailing slash
        parent.add_subapp(PREFIX, self.application())

    @staticmethod
    async def _to_page(request: web.Request) -> web.Response:
        raise web.HTTPFound(PREFIX + "/" + (f"?{request.query_string}" if request.query_string else ""))

    async def listen(self) -> None:
        """Hear the other workers' changes (several workers); nothing to do for one."""
        if self.fanout is not None:
            await self.fanout.start(self.hub.remote)

    async def start(self, host: str, port: int) -> int:
        """Serve the app on its own port (polling mode); returns the port (0 given: the kernel's choice)."""
        root = web.Application()
        self.mount(root)
        self._runner = web.AppRunner(root, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        bound = int(sockets[0].getsockname()[1]) if sockets else port
        log.info("table app listening on %s:%d%s/", host, bound, PREFIX)
        return bound

    async def stop(self) -> None:
        if self.fanout is not None:
            await self.fanout.stop()
        await self.hub.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # -- helpers ------------------------------------------------------------------------
    def _picture(self, loaded: Loaded, state: State | None, user_id: int, lang: str) -> dict[str, Any]:
        return table_json(loaded, state, user_id, lang, self.now())

    @staticmethod
    def _refused(reason: str, lang: str, status: int = 401) -> web.Response:
        return web.json_response({"ok": False, "error": reason, "text": refusal(reason, lang)},
                                 status=status, headers={"Cache-Control": "no-store"})

    def _refusal(self, request: web.Request, exc: Refused) -> web.Response:
        """A request turned away before its visitor is known: in the language its initData claims (only words
        are chosen by it), 404 for a table that is not there, 401 for the rest."""
        lang = claimed_lang(request.headers.get(INIT_HEADER, ""))
        return self._refused(exc.reason, lang, 404 if exc.reason == "no table" else 401)

    def _table_id(self, token: Any) -> int:
        table_id = self.links.table_of(token) if isinstance(token, str) else None
        if table_id is None:
            raise Refused("no table")
        return table_id

    async def _body(self, request: web.Request) -> dict[str, Any]:
        try:
            body = codec.loads(await request.read())
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise web.HTTPBadRequest(text="a JSON object, please")
        return body

    def _visitor(self, request: web.Request) -> Visitor:
        return self.gate.check(request.headers.get(INIT_HEADER, ""), request.headers.get(SESSION_HEADER, ""))

    def _watching(self, request: web.Request) -> tuple[Visitor, int] | web.Response:
        """What a GET that watches a table shares (the state, the stream): the session and the table (``?t=``),
        or the refusal."""
        try:
            return self._visitor(request), self._table_id(request.query.get("t"))
        except Refused as exc:
            return self._refusal(request, exc)

    async def _posted(self, request: web.Request) -> tuple[Visitor, dict[str, Any], int] | web.Response:
        """What a POST at a table shares (a move, a lay-down, a proposal): the session, the JSON body and the
        table it names (``t``), or the refusal."""
        try:
            visitor = self._visitor(request)
            body = await self._body(request)
            return visitor, body, self._table_id(body.get("t"))
        except Refused as exc:
            return self._refusal(request, exc)

    async def _table_lang(self, table_id: int, visitor: Visitor) -> str:
        """The words of a request at a table: its chat's language (the visitor's own while there is no table)."""
        async with self.core.store.read() as tx:
            row = await tx.table(table_id)
            return await tx.chat_lang(row.chat_id) if row is not None else visitor.lang

    async def _view(self, table_id: int, user_id: int) -> dict[str, Any] | None:
        async with self.core.store.read() as tx:
            loaded = await self.core.load(tx, table_id)
            if loaded is None:
                return None
            lang = await tx.chat_lang(loaded.row.chat_id)
        state = self.core.state(loaded.row) if loaded.row.state is not None else None
        return self._picture(loaded, state, user_id, lang)

    @staticmethod
    def _json(data: dict[str, Any], status: int = 200) -> web.Response:
        return web.Response(body=codec.dumps_bytes(data), status=status, content_type="application/json",
                            headers={"Cache-Control": "no-store"})

    # -- routes -------------------------------------------------------------------------
    async def _page(self, request: web.Request) -> web.Response:
        name = request.path.rsplit("/", 1)[-1] or "index.html"
        kind = STATIC.get(name)
        if kind is None:
            raise web.HTTPNotFound()
        return web.Response(body=self.files[name], content_type=kind, charset="utf-8",
                            headers={**SECURITY_HEADERS, "Cache-Control": "no-cache"})

    async def _open(self, request: web.Request) -> web.Response:
        try:
            body = await self._body(request)
            visitor, proof = await self.gate.open(request.headers.get(INIT_HEADER, ""))
            table_id = self._table_id(body.get("t") or visitor.start_param)
        except Refused as exc:
            return self._refusal(request, exc)
        view = await self._view(table_id, visitor.user_id)
        if view is None:
            return self._refused("no table", visitor.lang, 404)
        return self._json({"ok": True, "session": proof, "t": self.links.token(table_id), "table": view})

    async def _state(self, request: web.Request) -> web.Response:
        got = self._watching(request)
        if isinstance(got, web.Response):
            return got
        visitor, table_id = got
        view = await self._view(table_id, visitor.user_id)
        if view is None:
            return self._refused("no table", visitor.lang, 404)
        return self._json({"ok": True, "table": view})

    async def _stream(self, request: web.Request) -> web.StreamResponse:
        got = self._watching(request)
        if isinstance(got, web.Response):
            return got
        visitor, table_id = got
        sub = self.hub.subscribe(table_id, visitor.user_id)  # first: a change while reading is pushed too
        if sub is None:
            return self._refused("too many", visitor.lang, 429)
        view = await self._view(table_id, visitor.user_id)
        if view is None:
            self.hub.unsubscribe(sub)
            return self._refused("no table", visitor.lang, 404)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store",
                                               "X-Accel-Buffering": "no"})
        expires = visitor.auth_date + self.gate.max_age  # the stream ends with its initData
        try:
            await response.prepare(request)
            await response.write(b"event: table\ndata: " + codec.dumps_bytes(view) + b"\n\n")
            quiet_since = time.monotonic()
            while not sub.closed:
                left = expires - time.time()
                if left <= 0:
                    await response.write(b"event: expired\ndata: {}\n\n")
                    break
                picture = await sub.next(min(LOOK, left))
                transport = request.transport
                if sub.closed or transport is None or transport.is_closing():  # the app was closed
                    break
                if picture is not None:
                    await response.write(b"event: table\ndata: " + codec.dumps_bytes(picture) + b"\n\n")
                    quiet_since = time.monotonic()
                elif time.monotonic() - quiet_since >= KEEP_ALIVE:
                    await response.write(b": keep-alive\n\n")
                    quiet_since = time.monotonic()
        except (ConnectionResetError, ConnectionError):
            pass
        finally:
            self.hub.unsubscribe(sub)
        return response

    async def _moving(self, request: web.Request) -> Moving | web.Response:
        """What every move request shares: the session, the table, the version and the request id."""
        got = await self._posted(request)
        if isinstance(got, web.Response):
            return got
        visitor, body, table_id = got
        version, req = body.get("version"), body.get("request")
        if not isinstance(version, int) or not isinstance(req, str) or not 8 <= len(req) <= 64:
            raise web.HTTPBadRequest(text="version (int) and request (8-64 characters) are required")
        lang = await self._table_lang(table_id, visitor)
        actor = Actor(visitor.user_id, visitor.name, lang)
        return visitor, table_id, body, request_update_id(visitor.user_id, req), actor, lang

    async def _answer(self, answer: Answer, table_id: int, user_id: int) -> web.Response:
        view = await self._view(table_id, user_id)
        return self._json({"ok": not answer.alert, "text": answer.text, "stale": answer.stale, "table": view},
                          status=200 if not answer.alert else 409)

    async def _move(self, request: web.Request) -> web.Response:
        got = await self._moving(request)
        if isinstance(got, web.Response):
            return got
        visitor, table_id, body, update_id, actor, lang = got
        action = body.get("action")
        if not isinstance(action, str) or not action or len(action) > 200:
            raise web.HTTPBadRequest(text="action (text) is required")
        answer = await self.moves.move(table_id, body["version"], action, actor, lang, update_id)
        return await self._answer(answer, table_id, visitor.user_id)

    async def _lay(self, request: web.Request) -> web.Response:
        got = await self._moving(request)
        if isinstance(got, web.Response):
            return got
        visitor, table_id, body, update_id, actor, lang = got
        layout = body.get("layout")
        if not isinstance(layout, list) or not all(isinstance(m, str) and 0 < len(m) < 400 for m in layout) \
                or len(layout) > 80:
            raise web.HTTPBadRequest(text="layout (a list of melds, as text) is required")
        answer = await self.moves.lay(table_id, body["version"], layout, actor, lang, update_id)
        return await self._answer(answer, table_id, visitor.user_id)

    async def _propose(self, request: web.Request) -> web.Response:
        got = await self._posted(request)
        if isinstance(got, web.Response):
            return got
        visitor, body, table_id = got
        cards = body.get("cards")
        if not isinstance(cards, list) or not all(isinstance(c, str) and len(c) <= 8 for c in cards) \
                or len(cards) > 120:
            raise web.HTTPBadRequest(text="cards (a list of card texts) is required")
        lang = await self._table_lang(table_id, visitor)
        result = await self.moves.propose(table_id, cards, Actor(visitor.user_id, visitor.name, lang), lang)
        if isinstance(result, Answer):
            return self._json({"ok": False, "text": result.text}, status=409)
        return self._json({"ok": True, "layout": result})
