"""A small Debug Adapter Protocol client: Content-Length framed JSON over an adapter's
stdio, requests matched to responses by ``seq``/``request_seq``, events handed to one
callback. The adapter runs in its own process group (tracked with
``omp.track_process_group`` so omp's exit kills it); a reader thread keeps the client
independent of any one event loop, since a debug session outlives tool calls."""

from __future__ import annotations

import asyncio
import json
import os
import signal as signals
import subprocess
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from omp import track_process_group, untrack_process_group

STDERR_KEEP = 4096


class DapError(Exception):
    """A request the adapter refused, or an adapter that went away (one line)."""


class DapClient:
    def __init__(
        self, argv: list[str], cwd: str, on_event: Callable[[dict[str, Any]], None]
    ) -> None:
        try:
            self.proc = subprocess.Popen(
                argv,
                cwd=cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise DapError(f"could not start adapter {argv[0]}: {exc.strerror or exc}") from None
        track_process_group(self.proc.pid)
        self._on_event = on_event
        self._seq = 0
        self._lock = threading.Lock()
        self._pending: dict[int, Future[dict[str, Any]]] = {}
        self._stderr = b""
        self.closed = False
        threading.Thread(target=self._read, daemon=True, name="dap-reader").start()
        threading.Thread(target=self._drain_stderr, daemon=True, name="dap-stderr").start()

    @property
    def alive(self) -> bool:
        return not self.closed and self.proc.poll() is None

    def send(self, command: str, arguments: dict[str, Any] | None = None) -> Future[dict[str, Any]]:
        """Send a request; a future of its response body (DapError when refused)."""
        future: Future[dict[str, Any]] = Future()
        with self._lock:
            if self.closed:
                future.set_exception(DapError(self._gone_message()))
                return future
            self._seq += 1
            seq = self._seq
            self._pending[seq] = future
            message = {"seq": seq, "type": "request", "command": command}
            if arguments is not None:
                message["arguments"] = arguments
            try:
                self._write(message)
            except OSError:
                self._pending.pop(seq, None)
                future.set_exception(DapError(self._gone_message()))
        return future

    async def request(
        self,
        command: str,
        arguments: dict[str, Any] | None,
        signal: Any,
        timeout: float,
    ) -> dict[str, Any]:
        """A request's response body, waited for at most ``timeout`` seconds or until
        ``signal`` aborts (both raise DapError)."""
        return await wait_future(self.send(command, arguments), signal, timeout, command)

    def respond(self, request: dict[str, Any], success: bool, message: str = "") -> None:
        """Answer a reverse request from the adapter (``runInTerminal``, ...)."""
        with self._lock:
            self._seq += 1
            reply: dict[str, Any] = {
                "seq": self._seq,
                "type": "response",
                "request_seq": request.get("seq", 0),
                "command": request.get("command", ""),
                "success": success,
            }
            if message:
                reply["message"] = message
            try:
                self._write(reply)
            except OSError:
                pass

    def kill(self) -> None:
        """Kill the adapter's process group (what it started too, unless it left it)."""
        self.closed = True
        try:
            os.killpg(self.proc.pid, signals.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        untrack_process_group(self.proc.pid)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        self._fail_pending()

    def _write(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        try:
            while True:
                length = None
                while True:
                    line = stream.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                if length is None:
                    continue
                self._dispatch(json.loads(stream.read(length)))
        except (OSError, ValueError):
            return
        finally:
            self.closed = True
            self._fail_pending()

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "response":
            with self._lock:
                future = self._pending.pop(message.get("request_seq", -1), None)
            if future is None or future.done():
                return
            if message.get("success"):
                future.set_result(message.get("body") or {})
            else:
                future.set_exception(DapError(_refusal(message)))
        elif kind in ("event", "request"):
            self._on_event(message)

    def _drain_stderr(self) -> None:
        stream = self.proc.stderr
        assert stream is not None
        try:
            for chunk in iter(lambda: os.read(stream.fileno(), 4096), b""):
                self._stderr = (self._stderr + chunk)[-STDERR_KEEP:]
        except (OSError, ValueError):
            return

    def _fail_pending(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(DapError(self._gone_message()))

    def _gone_message(self) -> str:
        tail = self._stderr.decode("utf-8", "replace").strip().splitlines()
        reason = f": {tail[-1]}" if tail else ""
        return f"the debug adapter exited{reason}"


def _refusal(message: dict[str, Any]) -> str:
    error = (message.get("body") or {}).get("error") or {}
    text = error.get("format") or message.get("message") or "request failed"
    for key, value in (error.get("variables") or {}).items():
        text = text.replace("{" + key + "}", str(value))
    return " ".join(str(text).split())


async def wait_future(future: Future[Any], signal: Any, timeout: float, what: str) -> Any:
    """``future``'s result, or DapError after ``timeout`` seconds or on abort."""
    waiting = asyncio.wrap_future(future)
    aborted = asyncio.ensure_future(signal.wait()) if signal is not None else None
    try:
        done, _ = await asyncio.wait(
            [waiting, *([aborted] if aborted else [])],
            timeout=timeout,
            return_when=asyncio.FIRST_COMPLETED,
        )
    finally:
        if aborted is not None:
            aborted.cancel()
    if waiting in done:
        return waiting.result()
    waiting.cancel()
    if aborted is not None and aborted in done:
        raise DapError(f"{what} aborted")
    raise DapError(f"{what} timed out after {timeout:g}s")
