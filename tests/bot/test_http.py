"""bot/http.py: the lean keep-alive client reads every answer shape HTTP/1.1 allows and reuses a connection only
when that is safe."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bot import http
from bot.http import HttpError, HttpPool

Reply = Callable[[bytes], list[bytes] | None]  # the request's bytes -> what to write (pieces); None: close


@asynccontextmanager
async def server(reply: Reply) -> AsyncIterator[tuple[str, list[bytes], list[int]]]:
    """A raw TCP server answering each request with ``reply``; (base url, requests seen, connections made)."""
    seen: list[bytes] = []
    connections: list[int] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length")))
                request = head + await reader.readexactly(length)
                seen.append(request)
                pieces = reply(request)
                if pieces is None:
                    break
                for piece in pieces:
                    writer.write(piece)
                    await writer.drain()
                    await asyncio.sleep(0.001)  # arrives in several reads
                if b"Connection: close" in b"".join(pieces) or b"Content-Length" not in b"".join(pieces) \
                        and b"chunked" not in b"".join(pieces):
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass  # the client went, or the test ended
        finally:
            writer.close()

    srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", seen, connections
    finally:
        srv.close()


def ok(body: bytes, extra: bytes = b"") -> list[bytes]:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + extra + b"Content-Length: " \
        + str(len(body)).encode() + b"\r\n\r\n"
    return [head[:10], head[10:] + body[:3], body[3:]]


async def test_requests_reuse_one_connection_and_send_a_plain_post() -> None:
    async with server(lambda req: ok(b'{"ok":true,"result":' + req.split(b"\r\n\r\n")[1] + b"}")) as (url, seen,
                                                                                                    conns):
        pool = HttpPool(url)
        for i in range(3):
            status, body = await pool.post("/bot1:x/sendMessage", b'{"n":%d}' % i)
            assert (status, body) == (200, b'{"ok":true,"result":{"n":%d}}' % i)
        assert len(conns) == 1 and pool.opened == 1
        head = seen[0].split(b"\r\n\r\n")[0].split(b"\r\n")
        assert head[0] == b"POST /bot1:x/sendMessage HTTP/1.1"
        assert b"Content-Type: application/json" in head and b"Content-Length: 7" in head
        assert any(line.startswith(b"Host: 127.0.0.1:") for line in head)
        pool.close()


async def test_concurrent_requests_take_their_own_connections_and_answers() -> None:
    async with server(lambda req: ok(req.split(b"\r\n\r\n")[1])) as (url, _, conns):
        pool = HttpPool(url, limit=3)
        answers = await asyncio.gather(*(pool.post("/m", b"%d" % i) for i in range(10)))
        assert [body for _, body in answers] == [b"%d" % i for i in range(10)]
        assert len(conns) <= 3
        pool.close()


async def test_chunked_answer_is_joined() -> None:
    chunked = [b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", b"5\r\n{\"ok", b"\"\r\n6;x=y\r\n:true}\r\n",
               b"0\r\n\r\n"]
    async with server(lambda req: chunked) as (url, _, conns):
        pool = HttpPool(url)
        assert await pool.post("/m", b"{}") == (200, b'{"ok":true}')
        assert await pool.post("/m", b"{}") == (200, b'{"ok":true}')
        assert len(conns) == 1
        pool.close()


async def test_connection_close_and_a_body_up_to_the_close() -> None:
    async with server(lambda req: ok(b"closing", b"Connection: close\r\n")) as (url, _, conns):
        pool = HttpPool(url)
        assert await pool.post("/m", b"{}") == (200, b"closing")
        assert await pool.post("/m", b"{}") == (200, b"closing")
        assert len(conns) == 2  # not reused after "Connection: close"
        pool.close()
    async with server(lambda req: [b"HTTP/1.1 502 Bad Gateway\r\n\r\n", b"up to ", b"the close"]) as (url, _, conns):
        pool = HttpPool(url)
        assert await pool.post("/m", b"{}") == (502, b"up to the close")
        pool.close()


async def test_an_interim_answer_is_skipped() -> None:
    async with server(lambda req: [b"HTTP/1.1 100 Continue\r\n\r\n", *ok(b"done")]) as (url, _, _conns):
        pool = HttpPool(url)
        assert await pool.post("/m", b"{}") == (200, b"done")
        pool.close()


async def test_a_server_that_hangs_up_raises_and_the_next_request_opens_a_new_connection() -> None:
    calls = [0]

    def reply(req: bytes) -> list[bytes] | None:
        calls[0] += 1
        return None if calls[0] == 2 else ok(b"fine")

    async with server(reply) as (url, _, conns):
        pool = HttpPool(url)
        assert await pool.post("/m", b"{}") == (200, b"fine")
        with pytest.raises(HttpError):
            await pool.post("/m", b"{}")
        assert await pool.post("/m", b"{}") == (200, b"fine")
        assert len(conns) == 2
        pool.close()


async def test_broken_answers_raise() -> None:
    for broken in ([b"SMTP ready\r\n\r\n"], [b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"],
                   [b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"]):
        async with server(lambda req, b=broken: b + [b"\r\n" * 3]) as (url, _, _conns):  # type: ignore[misc]
            pool = HttpPool(url)
            with pytest.raises(HttpError):
                await asyncio.wait_for(pool.post("/m", b"{}"), 5)
            pool.close()


async def test_a_timed_out_request_closes_its_connection() -> None:
    async def never(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.read(100)
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            pass

    srv = await asyncio.start_server(never, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{srv.sockets[0].getsockname()[1]}"
    pool = HttpPool(url)
    try:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.2):
                await pool.post("/m", b"{}")
        assert not pool._idle  # never handed to the next request
    finally:
        pool.close()
        srv.close()


async def test_an_old_idle_connection_is_not_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    async with server(lambda req: ok(b"x")) as (url, _, conns):
        pool = HttpPool(url)
        await pool.post("/m", b"{}")
        monkeypatch.setattr(http, "KEEPALIVE", -1.0)
        await pool.post("/m", b"{}")
        assert len(conns) == 2
        pool.close()


async def test_https_with_the_servers_certificate_checked(tmp_path: Path) -> None:
    """Telegram is reached over TLS: the pool verifies the certificate against the session's context."""
    if shutil.which("openssl") is None:
        pytest.skip("no openssl to make a certificate")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    server_side = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_side.load_cert_chain(cert, key)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
                body = await reader.readexactly(length)
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    srv = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=server_side)
    url = f"https://127.0.0.1:{srv.sockets[0].getsockname()[1]}"
    try:
        trusting = HttpPool(url, ssl_context=ssl.create_default_context(cafile=str(cert)))
        assert await trusting.post("/m", b'{"a":1}') == (200, b'{"a":1}')
        assert await trusting.post("/m", b'{"b":2}') == (200, b'{"b":2}')
        assert trusting.opened == 1
        trusting.close()
        doubting = HttpPool(url)  # the system's roots do not know this certificate
        with pytest.raises(ssl.SSLCertVerificationError):
            await doubting.post("/m", b"{}")
        doubting.close()
    finally:
        srv.close()
