"""The connection's stdio transport: newline-delimited JSON-RPC 2.0, every line checked
before the SDK's connection sees it.

The SDK's own stdio transport hands whatever ``json.loads`` returns to a connection that
assumes an object: a line such as ``[]``, ``42`` or ``"x"`` ended the server with an
internal error, ``null`` ended it as if the client had hung up, and a line that was not
JSON printed a traceback. Here every line the SDK could not take is answered as JSON-RPC
2.0 says (-32700 parse error, -32600 invalid request, id null where none can be read)
and the server goes on with the next line. A batch (an array) is served element by
element and answered with one array, as the specification asks; an empty array gets a
single -32600 error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from collections.abc import Callable
from typing import Any

MAX_LINE_BYTES = 50 * 1024 * 1024
"""A longer line is skipped to its end and refused unread (images in a prompt fit)."""

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def error_reply(code: int, details: str, request_id: Any = None) -> dict[str, Any]:
    message = "Parse error" if code == PARSE_ERROR else "Invalid request"
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": code, "message": message, "data": {"details": details}},
    }


def _valid_id(value: Any) -> bool:
    return value is None or (isinstance(value, str | int | float) and not isinstance(value, bool))


def check(message: Any) -> dict[str, Any] | None:
    """None when ``message`` is a request, notification or response the connection can
    take; else the error reply it gets."""
    if not isinstance(message, dict):
        kind = "null" if message is None else type(message).__name__
        return error_reply(INVALID_REQUEST, f"expected a JSON object, got {kind}")
    has_id = "id" in message
    request_id = message.get("id")
    if has_id and not _valid_id(request_id):
        return error_reply(INVALID_REQUEST, "id must be a string, a number or null")
    if message.get("jsonrpc", "2.0") != "2.0":
        return error_reply(INVALID_REQUEST, 'jsonrpc must be "2.0"', request_id)
    if "method" in message:
        if not isinstance(message["method"], str):
            return error_reply(INVALID_REQUEST, "method must be a string", request_id)
        params = message.get("params")
        if params is not None and not isinstance(params, dict | list):
            return error_reply(INVALID_REQUEST, "params must be an object or an array", request_id)
        return None
    if has_id and ("result" in message or "error" in message):
        return None  # a response to one of the agent's requests
    return error_reply(INVALID_REQUEST, "neither a request nor a response", request_id)


class _Batch:
    """The replies to one batch, sent as one array once every request is answered."""

    def __init__(self, replies: list[dict[str, Any]], waiting: list[Any]) -> None:
        self.replies = replies
        self.waiting = waiting


class NdjsonRpcTransport:
    """Implements the SDK's ``Transport`` (``send``/``receive``/``close`` of decoded
    messages) over an asyncio reader and writer."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._write_lock = asyncio.Lock()
        self.redactors: list[Callable[[bytes], bytes]] = []
        """Each session's ``secrets.redact_bytes`` (omp.config.secrets): no line written holds a
        credential omp knows, not even one the model repeated from the user."""
        self._ready: deque[dict[str, Any]] = deque()
        self._batches: list[_Batch] = []

    async def send(self, message: dict[str, Any]) -> None:
        batch = self._batch_awaiting(message)
        if batch is None:
            await self._write(message)
            return
        batch.replies.append(message)
        if not batch.waiting:
            self._batches.remove(batch)
            await self._write(batch.replies)

    async def receive(self) -> dict[str, Any] | None:
        while not self._ready:
            line = await self._read_line()
            if line is None:
                return None
            await self._take(line)
        return self._ready.popleft()

    async def close(self) -> None:
        self._writer.close()

    # -- reading --------------------------------------------------------------------

    async def _take(self, line: bytes) -> None:
        if len(line) > MAX_LINE_BYTES:
            await self._answer(
                error_reply(
                    INVALID_REQUEST, f"the line is over {MAX_LINE_BYTES // (1 << 20)} MiB; skipped"
                )
            )
            return
        line = line.strip()
        if not line:
            return
        try:
            message = json.loads(line.decode("utf-8"))
        except (ValueError, RecursionError) as exc:
            await self._answer(error_reply(PARSE_ERROR, f"not JSON: {_first_line(exc)}"))
            return
        if isinstance(message, list):
            await self._take_batch(message)
            return
        problem = check(message)
        if problem is None:
            self._ready.append(message)
        else:
            await self._answer(problem)

    async def _take_batch(self, elements: list[Any]) -> None:
        if not elements:
            await self._answer(error_reply(INVALID_REQUEST, "an empty batch"))
            return
        replies: list[dict[str, Any]] = []
        waiting: list[Any] = []
        for element in elements:
            problem = check(element)
            if problem is not None:
                replies.append(problem)
                continue
            self._ready.append(element)
            if "method" in element and "id" in element:
                waiting.append(element["id"])
        if waiting:
            self._batches.append(_Batch(replies, waiting))
        elif replies:
            await self._answer(replies)

    def _batch_awaiting(self, message: dict[str, Any]) -> _Batch | None:
        """The open batch that waits for this reply (the first, should two use one id)."""
        if "method" in message or "id" not in message:
            return None
        for batch in self._batches:
            if message["id"] in batch.waiting:
                batch.waiting.remove(message["id"])
                return batch
        return None

    async def _read_line(self) -> bytes | None:
        """The next line, or None at end of input; of a line over the limit only about
        the limit is kept (enough to know it is too long), the rest is read and dropped."""
        kept = b""
        while True:
            try:
                chunk = await self._reader.readuntil(b"\n")
            except asyncio.LimitOverrunError as exc:
                chunk = await self._reader.readexactly(exc.consumed)
                if len(kept) <= MAX_LINE_BYTES:
                    kept += chunk
                continue
            except asyncio.IncompleteReadError as exc:
                chunk = exc.partial
                if not chunk and not kept:
                    return None
            if len(kept) <= MAX_LINE_BYTES:
                kept += chunk
            return kept

    # -- writing --------------------------------------------------------------------

    async def _answer(self, payload: dict[str, Any] | list[dict[str, Any]]) -> None:
        """An error reply of the transport's own: a client that went away meanwhile is
        seen as the end of input, not as a failure of the server."""
        with contextlib.suppress(ConnectionError, OSError):
            await self._write(payload)

    async def _write(self, payload: dict[str, Any] | list[dict[str, Any]]) -> None:
        data = (json.dumps(payload, separators=(",", ":")) + "\n").encode("utf-8")
        for redact in self.redactors:
            data = redact(data)
        async with self._write_lock:
            self._writer.write(data)
            await self._writer.drain()


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
