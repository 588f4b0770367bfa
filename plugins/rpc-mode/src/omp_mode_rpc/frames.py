"""Writing frames to stdout: one JSON object per line, at most 1 MiB a line.

Under protocol v1 an oversized frame degrades as omp's do (a failed response, an
``agent_end`` without its already-streamed messages, or progressively shrunk values,
else an ``rpc_frame_error``); under v2 it is sent losslessly as ``rpc_chunk`` frames of
256 KiB of raw bytes each. Frames are written to a file descriptor of their own, so
nothing a plugin prints can land between them.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

MAX_FRAME_BYTES = 1 << 20
MAX_REASSEMBLED_BYTES = 64 << 20
CHUNK_PAYLOAD_BYTES = 256 << 10
SUPPORTED_VERSIONS = (1, 2)
SHRINK_PASSES = (
    (256 << 10, 512, 512),
    (64 << 10, 256, 256),
    (16 << 10, 128, 128),
    (4 << 10, 64, 64),
    (1 << 10, 32, 32),
    (256, 8, 16),
    (64, 1, 8),
)


def ready_frame() -> dict[str, Any]:
    return {
        "type": "ready",
        "protocolVersion": 1,
        "supportedProtocolVersions": list(SUPPORTED_VERSIONS),
        "maxFrameBytes": MAX_FRAME_BYTES,
        "maxReassembledFrameBytes": MAX_REASSEMBLED_BYTES,
    }


@contextmanager
def frame_channel() -> Iterator[FrameWriter]:
    """A writer on the real stdout, while file descriptor 1 and ``sys.stdout`` point at
    stderr (so nothing but frames reaches the client); both are put back on exit."""
    stdout = sys.stdout
    stdout.flush()
    frames_fd = os.dup(1)
    saved_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        yield FrameWriter(frames_fd)
    finally:
        os.dup2(saved_fd, 1)
        os.close(saved_fd)
        os.close(frames_fd)
        sys.stdout = stdout


def encode(frame: dict[str, Any]) -> bytes:
    try:
        text = json.dumps(frame, ensure_ascii=False, separators=(",", ":"), default=str)
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: JSON escapes keep the line valid
        return (json.dumps(frame, separators=(",", ":"), default=str) + "\n").encode("ascii")


class FrameWriter:
    """Writes whole frames to ``fd`` from any thread; frames never interleave."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.protocol_version = 1
        self._lock = threading.Lock()
        self._chunk_ids = itertools.count(1)
        self.redact: Callable[[bytes], bytes] = _unchanged
        """Hides the session's secrets in every frame (omp.config.secrets.Secrets.redact_bytes)."""

    def write(self, frame: dict[str, Any]) -> None:
        data = self.redact(encode(frame))
        if len(data) > MAX_FRAME_BYTES:
            if self.protocol_version >= 2 and len(data) - 1 <= MAX_REASSEMBLED_BYTES:
                self._write_chunks(data[:-1])
                return
            data = self.redact(encode(degrade(frame)))
        with self._lock:
            self._write_all(data)

    def write_encoded(self, data: bytes, frame: Callable[[], dict[str, Any]]) -> None:
        """A frame already encoded as one line; ``frame()`` builds it as a dict when
        the line is over the limit and has to be chunked or degraded."""
        if len(data) > MAX_FRAME_BYTES:
            self.write(frame())
            return
        data = self.redact(data)
        with self._lock:
            self._write_all(data)

    def _write_chunks(self, payload: bytes) -> None:
        chunk_id = f"rpc-{next(self._chunk_ids)}"
        count = -(-len(payload) // CHUNK_PAYLOAD_BYTES)
        with self._lock:  # consecutive, never interleaved with another frame
            for index in range(count):
                piece = payload[index * CHUNK_PAYLOAD_BYTES : (index + 1) * CHUNK_PAYLOAD_BYTES]
                chunk = {
                    "type": "rpc_chunk",
                    "chunkId": chunk_id,
                    "index": index,
                    "count": count,
                    "byteLength": len(payload),
                    "data": base64.b64encode(piece).decode("ascii"),
                }
                self._write_all(encode(chunk))

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self.fd, view) :]
        except (BrokenPipeError, OSError):
            pass  # the client went away; reading stdin will end the run


def _unchanged(data: bytes) -> bytes:
    return data


def fits(frame: dict[str, Any]) -> bool:
    return len(encode(frame)) <= MAX_FRAME_BYTES


def degrade(frame: dict[str, Any]) -> dict[str, Any]:
    """The v1 stand-in for a frame over the limit."""
    kind = frame.get("type")
    if kind == "response":
        failed = {
            "type": "response",
            "command": frame.get("command"),
            "success": False,
            "error": "RPC response exceeded the transport limit",
        }
        return {"id": frame["id"], **failed} if "id" in frame else failed
    if kind == "agent_end":
        count = len(frame.get("messages") or [])
        stripped = {k: v for k, v in frame.items() if k != "messages"}
        stripped = {**stripped, "messages": [], "messageCount": count}
        return (
            stripped
            if fits(stripped)
            else {
                "type": "agent_end",
                "messages": [],
                "messageCount": count,
            }
        )
    for limits in SHRINK_PASSES:
        shrunk = _shrink(frame, *limits)
        if fits(shrunk):
            return shrunk
    return {
        "type": "rpc_frame_error",
        "originalType": kind,
        "error": "RPC frame exceeded the transport limit",
    }


def _shrink(value: Any, max_chars: int, max_items: int, max_keys: int) -> Any:
    if isinstance(value, str):
        if len(value) <= max_chars:
            return value
        elided = len(value) - max_chars
        return value[:max_chars] + f"…[{elided} chars elided for RPC frame]"
    if isinstance(value, list):
        kept = [_shrink(v, max_chars, max_items, max_keys) for v in value[:max_items]]
        if len(value) > max_items:
            kept.append(f"…[{len(value) - max_items} items elided for RPC frame]")
        return kept
    if isinstance(value, dict):
        keys = list(value)
        # ``type`` (and the ids a client correlates by) always survive.
        first = [k for k in ("type", "id", "toolCallId", "role") if k in value]
        keys = first + [k for k in keys if k not in first]
        out = {k: _shrink(value[k], max_chars, max_items, max_keys) for k in keys[:max_keys]}
        if len(keys) > max_keys:
            out["rpcFrameElidedKeys"] = keys[max_keys:]
        return out
    return value


def message_update_line(event: Any) -> bytes | None:
    """A ``message_update`` event as one line, the partial message (which the frame
    carries twice, as ``message`` and ``assistantMessageEvent.partial``) encoded once:
    on a long reply this is most of the work of every frame. None when the event
    does not have that shape."""
    from pydantic_core import to_json

    update = event.assistant_message_event
    if update.get("partial") is not event.message or not hasattr(event.message, "model_dump_json"):
        return None
    message = event.message.model_dump_json(exclude_none=True).encode("utf-8")
    rest = {k: v for k, v in update.items() if k != "partial"}
    fields = to_json(rest, by_alias=True, exclude_none=True)[1:-1]
    return b"".join(
        (
            b'{"type":"message_update","message":',
            message,
            b',"assistantMessageEvent":{',
            fields + b"," if fields else b"",
            b'"partial":',
            message,
            b"}}\n",
        )
    )
