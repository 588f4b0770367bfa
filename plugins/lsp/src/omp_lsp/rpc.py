"""JSON-RPC 2.0 over a language server's stdio (``Content-Length`` framing).

Our own small layer rather than pygls's client: omp needs the process in its own group
(tracked for SIGTERM), a per-request time budget that never waits on a hung server, and
a restart policy; pygls's client owns the process and its loop in ways that fight those.
The wire types are lsprotocol's (see ``omp_lsp.typed``); messages here stay plain JSON.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger("omp.lsp")

Handler = Callable[[Any], Any | Awaitable[Any]]


class LspError(Exception):
    """A request failed: the server answered with an error (``code``, ``message``)."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class LspTimeout(LspError):
    """The server did not answer within the request's budget."""


class LspServerDied(LspError):
    """The server's process ended (or its pipes closed) before answering."""


class Connection:
    """One server's message stream: requests with timeouts, notifications, and the
    server's own requests and notifications dispatched to registered handlers."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self.request_handlers: dict[str, Handler] = {}
        self.notification_handlers: dict[str, Handler] = {}
        self.closed = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._read_loop())

    async def request(self, method: str, params: Any, timeout: float) -> Any:
        """Send a request and await its result; ``LspTimeout`` after ``timeout`` seconds
        (and a ``$/cancelRequest``), ``LspServerDied`` if the stream ends first."""
        if self.closed.is_set():
            raise LspServerDied(f"LSP server is not running ({method})")
        self._next_id += 1
        msg_id = self._next_id
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        try:
            self._send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            if not self.closed.is_set():
                self._send(
                    {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": msg_id}}
                )
            raise LspTimeout(
                f"LSP request {method} timed out after {timeout * 1000:.0f}ms"
            ) from None
        finally:
            self._pending.pop(msg_id, None)

    def notify(self, method: str, params: Any) -> None:
        if not self.closed.is_set():
            self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message, ensure_ascii=False).encode("utf-8")
        try:
            self._writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        except (ConnectionError, RuntimeError):  # pipe gone: the reader sees EOF
            pass

    async def _read_message(self) -> dict[str, Any] | None:
        length = None
        while True:
            line = await self._reader.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if length is None:
            return {}
        body = await self._reader.readexactly(length)
        parsed = json.loads(body)
        return parsed if isinstance(parsed, dict) else {}

    async def _read_loop(self) -> None:
        try:
            while True:
                message = await self._read_message()
                if message is None:
                    break
                self._dispatch(message)
        except (asyncio.IncompleteReadError, ConnectionError, ValueError) as exc:
            log.debug("lsp stream ended: %s", exc)
        finally:
            self.closed.set()
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(LspServerDied("LSP server exited"))

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" not in message:  # a response
            future = self._pending.get(message.get("id"))  # type: ignore[arg-type]
            if future is None or future.done():
                return
            error = message.get("error")
            if error:
                future.set_exception(
                    LspError(str(error.get("message", "error")), error.get("code"))
                )
            else:
                future.set_result(message.get("result"))
            return
        method = message["method"]
        params = message.get("params")
        if "id" in message:
            asyncio.get_running_loop().create_task(self._answer(message["id"], method, params))
        else:
            handler = self.notification_handlers.get(method)
            if handler is not None:
                try:
                    outcome = handler(params)
                    if asyncio.iscoroutine(outcome):
                        asyncio.get_running_loop().create_task(outcome)
                except Exception:  # a bad notification never ends the stream
                    log.exception("lsp notification handler %s failed", method)

    async def _answer(self, msg_id: Any, method: str, params: Any) -> None:
        handler = self.request_handlers.get(method)
        if handler is None:
            self._send(
                {
                    "jsonrpc": "2.0",
                    "id": msg_id,
                    "error": {"code": -32601, "message": f"unhandled method {method}"},
                }
            )
            return
        try:
            result = handler(params)
            if asyncio.iscoroutine(result):
                result = await result
        except Exception as exc:
            self._send(
                {"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32603, "message": str(exc)}}
            )
            return
        self._send({"jsonrpc": "2.0", "id": msg_id, "result": result})

    async def aclose(self) -> None:
        self._task.cancel()
        try:
            self._writer.close()
        except (ConnectionError, RuntimeError):
            pass
        try:
            await self._task
        except (asyncio.CancelledError, Exception):
            pass
