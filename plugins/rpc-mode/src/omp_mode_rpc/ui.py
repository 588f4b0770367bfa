"""``ctx.ui`` in the rpc modes: omp's extension UI sub-protocol (§2.7).

Dialogs become ``extension_ui_request`` frames answered by ``extension_ui_response``
frames with the same id; the base class applies timeouts and aborts, and a dialog
withdrawn that way is followed by a ``cancel`` request naming it. Decorations are
one-way requests. Until the server attaches its writer, everything is a no-op.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from collections.abc import Callable
from typing import Any

from omp import UI

_sequence = itertools.count()
_EPOCH_MS = 1_288_834_974_657  # Twitter's snowflake epoch, as omp's ids use


def snowflake() -> str:
    """A server-minted id: milliseconds since the epoch, then a sequence number."""
    millis = int(time.time() * 1000) - _EPOCH_MS
    return str((millis << 22) | (next(_sequence) & 0x3FFFFF))


class RpcUI(UI):
    def __init__(self) -> None:
        super().__init__()
        self._send: Callable[[dict[str, Any]], None] | None = None
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._emit_title = os.environ.get("PI_RPC_EMIT_TITLE") == "1"

    def attach(self, send: Callable[[dict[str, Any]], None]) -> None:
        self._send = send

    def _request(self, method: str, **fields: Any) -> str:
        request_id = snowflake()
        if self._send is not None:
            payload = {k: v for k, v in fields.items() if v is not None}
            self._send(
                {"type": "extension_ui_request", "id": request_id, "method": method, **payload}
            )
        return request_id

    # -- answers from the host ------------------------------------------------------

    def resolve(self, frame: dict[str, Any]) -> None:
        """An ``extension_ui_response``; unknown ids are ignored."""
        future = self._pending.pop(str(frame.get("id")), None)
        if future is not None and not future.done():
            future.set_result(frame)

    def reject_all(self) -> None:
        """Stdin closed: every open dialog takes its default."""
        pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_result({"cancelled": True})

    async def _ask(self, method: str, timeout_ms: int | None, **fields: Any) -> dict[str, Any]:
        if self._send is None:
            return {"cancelled": True}
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        request_id = self._request(method, timeout=timeout_ms, **fields)
        self._pending[request_id] = future
        try:
            return await future
        except asyncio.CancelledError:
            self._pending.pop(request_id, None)
            self._request("cancel", targetId=request_id)
            raise

    async def select(self, title: str, options: list[Any], *, timeout=None, signal=None):  # type: ignore[no-untyped-def]
        labels = [o.get("label", "") if isinstance(o, dict) else str(o) for o in options]
        details = [
            {"description": o["description"]}
            if isinstance(o, dict) and o.get("description")
            else {}
            for o in options
        ]
        asked = self._ask(
            "select",
            _ms(timeout),
            title=title,
            options=labels,
            optionDetails=details if any(details) else None,
        )
        return _value(await self._dialog(asked, None, timeout, signal))

    async def confirm(self, title: str, message: str = "", *, timeout=None, signal=None):  # type: ignore[no-untyped-def]
        asked = self._ask("confirm", _ms(timeout), title=title, message=message)
        answer = await self._dialog(asked, None, timeout, signal)
        return bool(answer and answer.get("confirmed") and not answer.get("cancelled"))

    async def input(self, title: str, placeholder: str = "", *, timeout=None, signal=None):  # type: ignore[no-untyped-def]
        asked = self._ask("input", _ms(timeout), title=title, placeholder=placeholder or None)
        return _value(await self._dialog(asked, None, timeout, signal))

    async def editor(self, title: str, prefill: str = "", *, timeout=None, signal=None):  # type: ignore[no-untyped-def]
        asked = self._ask("editor", None, title=title, prefill=prefill or None)
        return _value(await self._dialog(asked, None, timeout, signal))

    # -- one-way requests -----------------------------------------------------------

    def notify(self, message: str, level: str = "info") -> None:
        self._request("notify", message=message, notifyType=level)

    def set_status(self, key: str, text: str | None) -> None:
        super().set_status(key, text)
        self._request("setStatus", statusKey=key, statusText=text)  # None: left out, clears

    def set_widget(self, key: str, lines: list[str] | None, **options: Any) -> None:
        super().set_widget(key, lines, **options)
        placement = options.get("placement") or options.get("widgetPlacement")
        self._request(
            "setWidget",
            widgetKey=key,
            widgetLines=list(lines) if lines is not None else None,  # None: left out, clears
            widgetPlacement=placement or None,
        )

    def set_title(self, title: str) -> None:
        super().set_title(title)
        if self._emit_title:
            self._request("setTitle", title=title)

    def set_editor_text(self, text: str) -> None:
        super().set_editor_text(text)
        self._request("set_editor_text", text=text)

    def get_editor_text(self) -> str:
        return ""  # the host owns the editor; omp answers "" too


def _ms(seconds: float | None) -> int | None:
    return None if seconds is None else int(seconds * 1000)


def _value(answer: dict[str, Any] | None) -> str | None:
    if not answer or answer.get("cancelled") or answer.get("value") is None:
        return None
    return str(answer["value"])
