"""The cheap per-line path of a provider stream (issue 25): one idle timer per stream
(``omp_llm.watchdog``) and httpcore on plain asyncio streams (``omp_llm.netio``), with
every guarantee of the per-line ``asyncio.timeout`` and of anyio's streams kept."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import socket
import ssl
import threading
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest
from omp_llm.errors import ProviderError
from omp_llm.http import _new_pool, new_client
from omp_llm.netio import AsyncioStream, _Protocol
from omp_llm.transport import stream_lines
from omp_llm.watchdog import Watchdog

SSE = {"content-type": "text/event-stream"}


def later(delay: float, value: Any) -> asyncio.Future[Any]:
    future = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_later(delay, future.set_result, value)
    return future


def test_waits_each_shorter_than_the_limit_never_time_out():
    """Ten waits of 0.05 s under a 0.2 s limit: 0.5 s in all, and no timeout (the one
    timer is re-armed from the current wait, not the first)."""

    async def run() -> list[int]:
        watchdog = Watchdog()
        try:
            return [await watchdog.wait(later(0.05, index), 0.2) for index in range(10)]
        finally:
            watchdog.close()

    assert asyncio.run(run()) == list(range(10))


def test_a_wait_past_its_limit_times_out_and_the_task_goes_on():
    async def run() -> str:
        watchdog = Watchdog()
        await watchdog.wait(later(0.01, None), 0.1)
        with pytest.raises(TimeoutError):
            await watchdog.wait(asyncio.get_running_loop().create_future(), 0.1)
        watchdog.close()
        await asyncio.sleep(0)  # no cancellation left pending on the task
        return "went on"

    assert asyncio.run(run()) == "went on"


def test_an_abort_while_waiting_is_a_cancellation_not_a_timeout():
    async def run() -> None:
        started = asyncio.Event()

        async def reader() -> None:
            watchdog = Watchdog()
            started.set()
            await watchdog.wait(asyncio.get_running_loop().create_future(), 60)

        task = asyncio.create_task(reader())
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())


def test_a_stream_that_stalls_after_lines_is_ended_by_the_idle_timeout(replay_server):
    """Lines keep coming for longer than the idle limit, then stop: the stream ends with
    the stall error after the last one, not before."""
    chunks = [b"data: %d\n\n" % index for index in range(6)]
    replay_server.add(chunks, headers=SSE, pause=0.05, stall_after=len(chunks))

    async def run() -> tuple[list[str], str]:
        seen: list[str] = []
        with pytest.raises(ProviderError) as caught:
            async with aclosing(
                stream_lines(
                    new_client(),
                    replay_server.url + "/v1/x",
                    headers={},
                    body={},
                    idle_timeout=0.2,
                )
            ) as lines:
                async for line in lines:
                    seen.append(line)
        return seen, caught.value.kind

    seen, kind = asyncio.run(run())
    assert [line for line in seen if line] == [f"data: {index}" for index in range(6)]
    assert kind == "stall"


class _Transport:
    """A transport that records what is written."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return False


def test_a_requests_head_and_short_body_go_out_as_one_write():
    async def run() -> list[bytes]:
        transport, protocol = _Transport(), _Protocol()
        stream = AsyncioStream(transport, protocol)
        await stream.write(b"POST / HTTP/1.1\r\n\r\n")
        await stream.write(b'{"model":"m"}')
        assert transport.writes == []
        protocol.data_received(b"HTTP/1.1 200 OK\r\n")
        assert await stream.read(65536) == b"HTTP/1.1 200 OK\r\n"
        return transport.writes

    assert asyncio.run(run()) == [b'POST / HTTP/1.1\r\n\r\n{"model":"m"}']


class _EchoLengthServer(threading.Thread):
    """Reads one request per connection (head, then Content-Length bytes), answers
    with the body's length, and closes the connection without saying so."""

    def __init__(self, wrap: Any = None) -> None:
        super().__init__(daemon=True)
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.wrap = wrap
        self.closed = threading.Semaphore(0)
        self.connections = 0

    @property
    def port(self) -> int:
        return self.sock.getsockname()[1]

    def run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            if self.wrap is not None:
                try:
                    conn = self.wrap(conn)
                except OSError:  # a client that did not trust us
                    conn.close()
                    continue
            with conn, conn.makefile("rb") as reader:
                head = b""
                while not head.endswith(b"\r\n\r\n"):
                    head += reader.readline()
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
                got = len(reader.read(length))
                answer = str(got).encode()
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(answer) + answer
                )
            self.closed.release()


async def post(pool: Any, url: str, body: bytes) -> bytes:
    response = await pool.request("POST", url, content=body)
    return response.content


def test_a_long_body_is_sent_whole_and_a_connection_the_server_closed_is_not_reused():
    server = _EchoLengthServer()
    server.start()
    body = b"x" * (3 * 1024 * 1024)

    async def run() -> list[bytes]:
        pool = _new_pool(None)
        url = f"http://127.0.0.1:{server.port}/"
        first = await post(pool, url, body)
        await asyncio.to_thread(server.closed.acquire)
        second = await post(pool, url, b"short")
        await pool.aclose()
        return [first, second]

    try:
        assert asyncio.run(run()) == [str(len(body)).encode(), b"5"]
        assert server.connections == 2
    finally:
        server.sock.close()


def _certificate(tmp_path: Path) -> tuple[Path, Path]:
    crypto = pytest.importorskip("cryptography", reason="makes the test's certificate")
    del crypto
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def test_https_requests_go_through_a_verified_tls_handshake(tmp_path):
    cert, key = _certificate(tmp_path)
    served = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    served.load_cert_chain(cert, key)
    server = _EchoLengthServer(lambda conn: served.wrap_socket(conn, server_side=True))
    server.start()
    trusting = ssl.create_default_context(cafile=str(cert))

    async def run() -> bytes:
        pool = _new_pool(trusting)
        try:
            return await post(pool, f"https://127.0.0.1:{server.port}/", b"hello")
        finally:
            await pool.aclose()

    async def untrusted() -> None:
        pool = _new_pool(ssl.create_default_context())
        try:
            await post(pool, f"https://127.0.0.1:{server.port}/", b"hello")
        finally:
            await pool.aclose()

    try:
        assert asyncio.run(run()) == b"5"
        import httpcore

        with pytest.raises(httpcore.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            asyncio.run(untrusted())
    finally:
        server.sock.close()


def test_a_host_name_reaches_the_address_that_listens():
    """A name whose first address refuses (an IPv6 ``localhost`` nothing listens on,
    say): the addresses are raced and the one that listens answers."""
    server = _EchoLengthServer()
    server.start()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    stream = (socket.SOCK_STREAM, 6, "")
    addresses = [
        (socket.AF_INET, *stream, ("127.0.0.1", closed)),
        (socket.AF_INET, *stream, ("127.0.0.1", server.port)),
    ]

    async def run() -> bytes:
        async def resolve(host: str, port: int, **_: Any) -> list[Any]:
            assert host == "model.test"
            return addresses

        asyncio.get_running_loop().getaddrinfo = resolve  # type: ignore[method-assign]
        pool = _new_pool(None)
        try:
            return await post(pool, f"http://model.test:{server.port}/", b"hi")
        finally:
            await pool.aclose()

    try:
        assert asyncio.run(run()) == b"2"
    finally:
        server.sock.close()
