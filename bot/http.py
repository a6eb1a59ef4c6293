"""A small keep-alive HTTP/1.1 client for the Bot API's JSON calls: POST a body, read the answer.

Why: aiohttp's client spends ~200 us of CPU on every request (a ClientRequest and a ClientResponse with
their headers, cookies, tracing and timer machinery, a stream reader), about a sixth of what the bot
spends on a move (bench/bot.py --sample), and the bot makes four calls a move. Here a request is one
write of a prepared head and body on a kept-alive connection, and the answer is parsed where it arrives.

What it does and does not: HTTP/1.1 over TCP or TLS, ``Content-Length`` or chunked answers (or, without
either, up to the close), connections kept alive and reused one request at a time, closed after
``KEEPALIVE`` idle seconds or when the server says so. No proxies, redirects, cookies or compression
(it asks for none): the session falls back to aiohttp for what it does not cover (bot/json_session.py).
A request is never sent twice: a connection that fails under it raises, like aiohttp, and the caller's
retry decides (the outbox keeps the row).
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections import deque
from urllib.parse import urlsplit

KEEPALIVE = 15.0  # seconds an idle connection is kept (aiohttp's default): an old one may be dead on the way
MAX_HEAD = 64 * 1024  # bytes of a response's status line and headers, at most


class HttpError(ConnectionError):
    """The connection failed or the server broke the protocol; the request may or may not have arrived."""


class _Connection(asyncio.Protocol):
    """One connection; one request at a time. The answer is parsed as its bytes arrive."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.idle_since = 0.0
        self._buffer = bytearray()
        self._answer: asyncio.Future[tuple[int, bytes]] | None = None
        self._status = 0
        self._head_done = False
        self._length: int | None = None  # Content-Length; None: chunked or up to the close
        self._chunked = False
        self.keep_alive = True

    # -- asyncio's callbacks ----------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self._answer is None or self._answer.done():  # nothing asked: the server is confused
            self.close()
            return
        self._buffer += data
        try:
            self._parse()
        except HttpError as exc:
            self._fail(exc)

    def eof_received(self) -> bool:
        return False  # close the transport; connection_lost finishes or fails the answer

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        answer = self._answer
        if answer is not None and not answer.done():
            if self._head_done and self._length is None and not self._chunked:
                answer.set_result((self._status, bytes(self._buffer)))  # the body ran up to the close
            else:
                answer.set_exception(HttpError(f"Server disconnected{f': {exc}' if exc else ''}"))

    # -- a request ----------------------------------------------------------------------------
    async def request(self, data: bytes) -> tuple[int, bytes]:
        assert self.transport is not None
        self._buffer.clear()
        self._status, self._head_done, self._length, self._chunked = 0, False, None, False
        self._answer = asyncio.get_running_loop().create_future()
        self.transport.write(data)
        try:
            return await self._answer
        finally:
            self._answer = None

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def _fail(self, exc: Exception) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_exception(exc)
        self.close()

    def _parse(self) -> None:
        buf = self._buffer
        if not self._head_done:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                if len(buf) > MAX_HEAD:
                    raise HttpError("response head too long")
                return
            lines = bytes(buf[:end]).decode("latin-1").split("\r\n")
            del buf[:end + 4]
            parts = lines[0].split(" ", 2)
            if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
                raise HttpError(f"bad status line {lines[0][:80]!r}")
            status = int(parts[1])
            if 100 <= status < 200:  # an interim answer (we never ask for one): the real one follows
                self._parse()
                return
            self._status = status
            self.keep_alive = parts[0] == "HTTP/1.1"
            for line in lines[1:]:
                name, _, value = line.partition(":")
                name = name.strip().lower()
                value = value.strip()
                if name == "content-length":
                    if not value.isdigit():
                        raise HttpError(f"bad Content-Length {value[:40]!r}")
                    self._length = int(value)
                elif name == "transfer-encoding":
                    self._chunked = "chunked" in value.lower()
                elif name == "connection":
                    token = value.lower()
                    if "close" in token:
                        self.keep_alive = False
                    elif "keep-alive" in token:
                        self.keep_alive = True
            if self._chunked:
                self._length = None
            elif self._length is None:
                self.keep_alive = False  # the body runs up to the close
            self._head_done = True
        if self._chunked:
            body = _dechunk(buf)
            if body is not None:
                self._finish(body)
        elif self._length is not None and len(buf) >= self._length:
            if len(buf) > self._length:
                raise HttpError("more bytes than the answer's Content-Length")
            self._finish(bytes(buf))

    def _finish(self, body: bytes) -> None:
        self._buffer.clear()
        if self._answer is not None and not self._answer.done():
            self._answer.set_result((self._status, body))


def _dechunk(buf: bytearray) -> bytes | None:
    """A complete chunked body (its chunks joined), or None while it is still arriving."""
    out = bytearray()
    pos = 0
    while True:
        eol = buf.find(b"\r\n", pos)
        if eol < 0:
            return None
        size_text = bytes(buf[pos:eol]).split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise HttpError(f"bad chunk size {size_text[:20]!r}") from None
        pos = eol + 2
        if size == 0:  # the last chunk; then trailers (none expected) and an empty line
            end = buf.find(b"\r\n\r\n", pos - 2)
            if end < 0:
                return None
            if end + 4 != len(buf):
                raise HttpError("bytes after the chunked answer")
            return bytes(out)
        if len(buf) < pos + size + 2:
            return None
        out += buf[pos:pos + size]
        if buf[pos + size:pos + size + 2] != b"\r\n":
            raise HttpError("bad chunk end")
        pos += size + 2


class HttpPool:
    """Kept-alive connections to one server (``base``: scheme://host[:port]); at most ``limit`` at once."""

    def __init__(self, base: str, limit: int = 100, ssl_context: ssl.SSLContext | None = None,
                 user_agent: str = "kozyr") -> None:
        parts = urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) server: {base!r}")
        self.host = parts.hostname
        self.tls = parts.scheme == "https"
        self.port = parts.port or (443 if self.tls else 80)
        self.ssl_context = (ssl_context or ssl.create_default_context()) if self.tls else None
        host_header = f"[{self.host}]" if ":" in self.host else self.host  # an IPv6 literal in brackets
        if self.port != (443 if self.tls else 80):
            host_header += f":{self.port}"
        self._head = (f"Host: {host_header}\r\nUser-Agent: {user_agent}\r\nAccept: */*\r\n"
                      "Content-Type: application/json\r\nContent-Length: ").encode("latin-1")
        self._idle: deque[_Connection] = deque()
        self._slots = asyncio.Semaphore(limit)
        self.opened = 0  # connections made (tests)

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        """POST ``body`` (JSON) to ``path``; the status and the body of the answer. Wrap it in a timeout:
        a cancelled request's connection is closed, never reused."""
        data = b"POST " + path.encode("latin-1") + b" HTTP/1.1\r\n" + self._head + str(len(body)).encode() \
            + b"\r\n\r\n" + body
        async with self._slots:
            conn = self._take()
            if conn is None:
                conn = await self._open()
            ok = False
            try:
                answer = await conn.request(data)
                ok = True
                return answer
            finally:
                if ok and conn.keep_alive and not conn.closed:
                    conn.idle_since = time.monotonic()
                    self._idle.append(conn)
                else:
                    conn.close()

    def _take(self) -> _Connection | None:
        """The most recently used live idle connection; older ones past KEEPALIVE are closed."""
        now = time.monotonic()
        idle = self._idle
        while idle and (idle[0].closed or now - idle[0].idle_since > KEEPALIVE):
            idle.popleft().close()
        while idle:
            conn = idle.pop()
            if not conn.closed:
                return conn
        return None

    async def _open(self) -> _Connection:
        loop = asyncio.get_running_loop()
        _, conn = await loop.create_connection(_Connection, self.host, self.port, ssl=self.ssl_context,
                                               server_hostname=self.host if self.tls else None)
        self.opened += 1
        return conn

    def close(self) -> None:
        while self._idle:
            self._idle.pop().close()
