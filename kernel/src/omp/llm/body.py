"""The JSON body of a provider request, encoded once per item.

Every body is sent as the bytes of one canonical encoding (``dumps``: UTF-8, no
spaces, no NaN - what httpx's ``json=`` produces), so a body assembled from cached
pieces is byte for byte the body encoded in one go. ``PreparedBody`` holds the payload
dict and, for its one long list (the conversation), the bytes of the items encoded by
an earlier request; ``encode`` joins those and encodes only the rest.

before_provider_request handlers need the dict: they get ``view()``, a shallow copy
whose long list deep-copies an item the first time a handler reads it, so nothing a
handler does reaches the cached items. What they return is encoded reusing the cached
bytes where the list is still the view and every item read is unchanged; anything else
(another list, a list changed in place, an item changed) is encoded in full.
"""

from __future__ import annotations

import json
from typing import Any

_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def dumps(value: Any) -> bytes:
    """The canonical encoding of a request body (or any part of one)."""
    return _encoder.encode(value).encode("utf-8")


class PreparedBody:
    """A request body: ``payload`` (a dict) whose ``payload[key]`` list has cached
    encodings ``encoded``: per item its bytes followed by a comma, or None where the
    item is encoded per request (``missing`` lists those indexes)."""

    def __init__(
        self,
        payload: dict[str, Any],
        key: str | None = None,
        encoded: list[bytes | None] | None = None,
        missing: list[int] | None = None,
    ) -> None:
        self.payload, self.key = payload, key
        self.encoded: list[bytes | None] = encoded or []
        self.missing = (
            missing if missing is not None else [i for i, b in enumerate(self.encoded) if b is None]
        )
        self._view_items: Any = None

    def view(self) -> dict[str, Any]:
        """The payload as handlers get it: theirs to change, the cached items untouched."""
        from omp.copying import CopyOnRead

        view = dict(self.payload)
        if self.key is not None and self.key in view:
            view[self.key] = self._view_items = CopyOnRead(self.payload[self.key])
        return view

    def encode(self, payload: Any = None) -> bytes:
        """The bytes of ``payload`` (this body's own when None, or what handlers made of
        ``view()``), reusing the cached item encodings where they still hold. The
        pieces are joined once: a long body is copied once."""
        payload = self.payload if payload is None else payload
        if type(payload) is not dict or not all(type(k) is str for k in payload):
            return dumps(payload)
        chunks: list[bytes] = []
        for name, value in payload.items():
            chunks.append(b"," + dumps(name) + b":" if chunks else b"{" + dumps(name) + b":")
            items = self._cached_items(value) if name == self.key else None
            if items is None:
                chunks.append(dumps(value))
            elif items:
                chunks.append(b"[")
                chunks += items
                chunks[-1] = chunks[-1][:-1] + b"]"  # no comma after the last item
            else:
                chunks.append(b"[]")
        chunks.append(b"}" if chunks else b"{}")
        return b"".join(chunks)

    def _cached_items(self, value: Any) -> list[bytes] | None:
        """The items' encodings when ``value`` is (a view of) the cached list, unchanged."""
        original = self.payload.get(self.key) if self.key else None
        if original is None or len(self.encoded) != len(original):
            return None
        if value is self._view_items:
            read = value.copied_indexes()
            if read is None:  # the list itself was changed
                return None
            if any(list.__getitem__(value, i) != original[i] for i in read):
                return None
        elif value is not original:
            return None
        parts = self.encoded.copy()
        for index in self.missing:
            parts[index] = dumps(original[index]) + b","
        return parts  # type: ignore[return-value]


async def request_bytes(body: Any, options: Any = None) -> bytes:
    """What to send for ``body`` (a PreparedBody or a plain payload), after the
    request's before_provider_request handlers (``options.on_payload``) saw it."""
    prepared = body if isinstance(body, PreparedBody) else PreparedBody(body)
    on_payload = getattr(options, "on_payload", None)
    if on_payload is None:
        return prepared.encode()
    return prepared.encode(await on_payload(prepared.view()))
