"""An httpcore network backend on plain asyncio streams, for omp's own client's pools.

httpcore's default (anyio) backend opens a cancel scope around every read and write,
stops and restarts reading the socket on every read (two ``epoll_ctl`` calls) and
yields to the loop after every write: about a fifth of a local provider request's
CPU. This backend keeps the socket readable, buffers what arrives, and hands the
small writes of one request (its head, then its body) to the socket as one send, on
the next read. Errors and timeouts are httpcore's, as the anyio backend raises them:
a refused or failed connect is ``ConnectError("All connection attempts failed")``
caused by the OSError, a stall ``ReadTimeout``, and so on. Connecting races the
host's addresses as anyio does (Happy Eyeballs, 250 ms apart).

httpcore is imported on first use, never with this module.
"""

from __future__ import annotations

import asyncio
import select
import socket
import ssl
from collections import deque
from collections.abc import Awaitable, Iterable
from functools import partial
from typing import Any

COALESCE_BYTES = 64 * 1024
"""Writes shorter than this wait for the next read (or a longer write) to be sent."""

READ_PAUSE_BYTES = 1024 * 1024
"""Bytes received and not yet read at which the socket stops being read."""

HAPPY_EYEBALLS_DELAY = 0.25

_errors: Any = None


def _httpcore() -> Any:
    global _errors
    if _errors is None:
        import httpcore

        _errors = httpcore
    return _errors


class _Protocol(asyncio.Protocol):
    """What arrives, buffered until read; flow control both ways."""

    def __init__(self) -> None:
        self.transport: Any = None
        self.chunks: deque[bytes] = deque()
        self.buffered = 0
        self.eof = False
        self.error: BaseException | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.drained: asyncio.Future[None] | None = None
        self.paused = False

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.chunks.append(data)
        self.buffered += len(data)
        if self.buffered >= READ_PAUSE_BYTES:
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        self._wake()
        drained, self.drained = self.drained, None
        if drained is not None and not drained.done():
            drained.set_result(None)

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        drained, self.drained = self.drained, None
        if drained is not None and not drained.done():
            drained.set_result(None)

    def _wake(self) -> None:
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


class AsyncioStream:
    """httpcore's ``AsyncNetworkStream`` over an asyncio transport."""

    def __init__(self, transport: Any, protocol: _Protocol) -> None:
        self._transport, self._protocol = transport, protocol
        self._pending: list[bytes] = []
        self._pending_bytes = 0

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self._pending:
            await self._flush(timeout)
        protocol = self._protocol
        if not protocol.chunks:
            if not protocol.eof:
                waiter = protocol.waiter = asyncio.get_running_loop().create_future()
                if timeout is None:
                    await waiter
                else:
                    try:
                        async with asyncio.timeout(timeout):
                            await waiter
                    except TimeoutError:
                        raise _httpcore().ReadTimeout("") from None
            if not protocol.chunks:
                if protocol.error is not None:
                    raise _httpcore().ReadError(str(protocol.error)) from protocol.error
                return b""
        chunk = protocol.chunks.popleft()
        if len(chunk) > max_bytes:
            chunk, rest = chunk[:max_bytes], chunk[max_bytes:]
            protocol.chunks.appendleft(rest)
        protocol.buffered -= len(chunk)
        if protocol.buffered < READ_PAUSE_BYTES <= protocol.buffered + len(chunk):
            self._transport.resume_reading()
        return chunk

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        if self._pending_bytes + len(buffer) < COALESCE_BYTES:
            self._pending.append(buffer)
            self._pending_bytes += len(buffer)
            return
        await self._flush(timeout, buffer)

    async def _flush(self, timeout: float | None, more: bytes = b"") -> None:
        """Send the writes held back (and ``more``); wait while the transport's buffer
        is over its high-water mark."""
        pending, self._pending, self._pending_bytes = self._pending, [], 0
        transport, protocol = self._transport, self._protocol
        if protocol.error is not None or transport.is_closing():
            raise _httpcore().WriteError("the connection is closed")
        if pending:
            transport.write(pending[0] if len(pending) == 1 else b"".join(pending))
        if more:
            transport.write(more)
        if not protocol.paused:
            return
        drained = protocol.drained = asyncio.get_running_loop().create_future()
        try:
            async with asyncio.timeout(timeout):
                await drained
        except TimeoutError:
            raise _httpcore().WriteTimeout("") from None
        if protocol.error is not None:
            raise _httpcore().WriteError(str(protocol.error)) from protocol.error

    async def aclose(self) -> None:
        self._pending.clear()
        self._transport.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> AsyncioStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport = await loop.start_tls(
                    self._transport, self._protocol, ssl_context, server_hostname=server_hostname
                )
        except TimeoutError:
            self._transport.abort()
            raise _httpcore().ConnectTimeout("") from None
        except (OSError, ssl.SSLError, ConnectionError) as exc:
            self._transport.abort()
            raise _httpcore().ConnectError(str(exc)) from exc
        return AsyncioStream(transport, self._protocol)

    def get_extra_info(self, info: str) -> Any:
        transport = self._transport
        if info == "ssl_object":
            return transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return transport.get_extra_info("sockname")
        if info == "server_addr":
            return transport.get_extra_info("peername")
        if info == "socket":
            return transport.get_extra_info("socket")
        if info == "is_readable":  # an idle connection the server closed, or data unread
            protocol = self._protocol
            if protocol.chunks or protocol.eof or transport.is_closing():
                return True
            return _socket_readable(transport.get_extra_info("socket"))
        return None


def _socket_readable(sock: Any) -> bool:
    if sock is None or sock.fileno() < 0:
        return True
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    return bool(poller.poll(0))


async def _opened(
    connecting: Awaitable[tuple[Any, Any]],
    timeout: float | None,
    socket_options: Iterable[Any] | None,
) -> AsyncioStream:
    """A connection being made, as httpcore wants it: its errors and timeout as
    httpcore's, the socket options set."""
    httpcore = _httpcore()
    try:
        async with asyncio.timeout(timeout):
            transport, protocol = await connecting
    except TimeoutError:
        raise httpcore.ConnectTimeout("") from None
    except OSError as exc:
        raise httpcore.ConnectError(str(exc)) from exc
    sock = transport.get_extra_info("socket")
    for option in socket_options or ():
        sock.setsockopt(*option)
    return AsyncioStream(transport, protocol)


class AsyncioBackend:
    """httpcore's ``AsyncNetworkBackend`` on asyncio (see the module's docstring)."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> AsyncioStream:
        return await _opened(_connect(host, port, local_address), timeout, socket_options)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> AsyncioStream:
        connecting = asyncio.get_running_loop().create_unix_connection(_Protocol, path)
        return await _opened(connecting, timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def _connect(host: str, port: int, local_address: str | None) -> tuple[Any, _Protocol]:
    """A connection to the first of ``host``'s addresses to answer, tried 250 ms apart,
    IPv6 and IPv4 interleaved; all failing: OSError("All connection attempts failed")
    caused by the one error or a group of them, as anyio raises it."""
    from asyncio.staggered import staggered_race

    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found_addresses: list[tuple[int, Any]] = [
        (family, address[:2]) for family, *_, address in infos
    ]
    addresses = _interleave(list(dict.fromkeys(found_addresses)))
    local = (local_address, 0) if local_address else None
    failures: list[OSError] = []

    async def attempt(family: int, address: Any) -> tuple[Any, _Protocol]:
        try:
            return await loop.create_connection(
                _Protocol, address[0], address[1], family=family, local_addr=local
            )
        except OSError as exc:
            failures.append(exc)
            raise

    if len(addresses) == 1:
        found: Any = await _first(attempt(*addresses[0]))
    else:
        found, _, _ = await staggered_race(
            [partial(attempt, family, address) for family, address in addresses],
            HAPPY_EYEBALLS_DELAY,
        )
    if found is None:
        cause: BaseException = (
            failures[0]
            if len(failures) == 1
            else ExceptionGroup("multiple connection attempts failed", failures)
        )
        raise OSError("All connection attempts failed") from cause
    return found  # type: ignore[no-any-return]


async def _first(attempt: Any) -> Any:
    try:
        return await attempt
    except OSError:
        return None


def _interleave(addresses: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    """The addresses alternating between families, the first family first (RFC 8305)."""
    if not addresses:
        return addresses
    first = addresses[0][0]
    ones = [a for a in addresses if a[0] == first]
    others = [a for a in addresses if a[0] != first]
    out: list[tuple[int, Any]] = []
    for index in range(max(len(ones), len(others))):
        out += ones[index : index + 1] + others[index : index + 1]
    return out
