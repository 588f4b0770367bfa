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

Other fields can come encoded too (``fixed``: a field's bytes, such as the tool list's,
which a provider keeps from one request to the next with ``EncodingMemo``); handlers
get such a list as a copy-on-read view as well, and the bytes are used while what
they return is that view with every item read unchanged.

A long body is not joined into one buffer per request: ``pieces`` gives the cached
runs of items (``runs``: the conversation's blocks, each one bytes object made once)
as they are, and joins only the short pieces between them; httpx sends them one
after another (``BodyPieces``). At 1,000 turns that saves copying ~1.5 MB, and the
page faults of a fresh buffer bigger than the last, on every request.
"""

from __future__ import annotations

import json
from typing import Any

_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


PIECE_BYTES = 64 * 1024
"""Pieces at least this long are sent as they are; shorter neighbours are joined."""


def dumps(value: Any) -> bytes:
    """The canonical encoding of a request body (or any part of one)."""
    return _encoder.encode(value).encode("utf-8")


class PreparedBody:
    """A request body: ``payload`` (a dict) whose ``payload[key]`` list has cached
    encodings ``encoded``: per item its bytes followed by a comma, or None where the
    item is encoded per request (``missing`` lists those indexes). ``runs`` are
    consecutive items' cached bytes joined: ``(end, bytes)`` for items
    ``[previous end (or runs_from), end)``, all of them cached."""

    def __init__(
        self,
        payload: dict[str, Any],
        key: str | None = None,
        encoded: list[bytes | None] | None = None,
        missing: list[int] | None = None,
        runs: list[tuple[int, bytes]] | None = None,
        runs_from: int = 0,
    ) -> None:
        self.payload, self.key = payload, key
        self.encoded: list[bytes | None] = encoded or []
        self.missing = (
            missing if missing is not None else [i for i, b in enumerate(self.encoded) if b is None]
        )
        self.runs = runs or []
        self.runs_from = runs_from
        self._view_items: Any = None
        self.fixed: dict[str, bytes] = {}
        """Encodings of other fields: ``payload[name]`` encoded is ``fixed[name]``."""
        self._fixed_views: dict[str, Any] = {}

    def view(self) -> dict[str, Any]:
        """The payload as handlers get it: theirs to change, the cached items untouched."""
        from omp import CopyOnRead

        view = dict(self.payload)
        if self.key is not None and self.key in view:
            view[self.key] = self._view_items = CopyOnRead(self.payload[self.key])
        for name in self.fixed:
            if type(view.get(name)) is list:
                view[name] = self._fixed_views[name] = CopyOnRead(view[name])
        return view

    def _fixed(self, name: str, value: Any, own: bool) -> bytes | None:
        """``fixed[name]`` when ``value`` is still what it encodes: the field itself in
        this body's own payload (no handler saw it), or its view with every item a
        handler read unchanged."""
        encoded = self.fixed.get(name)
        if encoded is None:
            return None
        original = self.payload.get(name)
        if own:
            return encoded if value is original else None
        if value is not self._fixed_views.get(name):
            return None
        read = value.copied_indexes()
        if read is None or any(list.__getitem__(value, i) != original[i] for i in read):
            return None
        return encoded

    def encode(self, payload: Any = None) -> bytes:
        """The bytes of ``payload`` (this body's own when None, or what handlers made of
        ``view()``), reusing the cached item encodings where they still hold."""
        return b"".join(self.pieces(payload))

    def pieces(self, payload: Any = None) -> list[bytes]:
        """``encode``'s bytes as pieces to send one after another: the cached runs as
        they are, the short pieces around them joined."""
        own = payload is None or payload is self.payload
        payload = self.payload if payload is None else payload
        if type(payload) is not dict or not all(type(k) is str for k in payload):
            return [dumps(payload)]
        out: list[bytes] = []
        short: list[bytes] = []
        for name, value in payload.items():
            short.append((b"," if short or out else b"{") + dumps(name) + b":")
            cached = self._cached_items(value) if name == self.key else None
            if cached is None:
                fixed = self._fixed(name, value, own) if self.fixed else None
                short.append(dumps(value) if fixed is None else fixed)
                continue
            before, runs, after = cached
            if not (before or runs or after):
                short.append(b"[]")
                continue
            short.append(b"[")
            short += before
            for run in runs:
                if len(run) >= PIECE_BYTES:
                    out.append(b"".join(short))
                    out.append(run)
                    short = []
                else:
                    short.append(run)
            short += after
            short[-1] = short[-1][:-1] + b"]"  # no comma after the last item
        short.append(b"}" if short or out else b"{}")
        out.append(b"".join(short))
        return out

    def _cached_items(self, value: Any) -> tuple[list[bytes], list[bytes], list[bytes]] | None:
        """The items' encodings when ``value`` is (a view of) the cached list, unchanged:
        those before the runs, the runs, those after them (never empty when there are
        items: the last item, whose comma goes, is never in a run)."""
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
        encoded = self.encoded
        runs = [run for end, run in self.runs if end < len(encoded)]
        start = self.runs_from if runs else 0
        end = self.runs[len(runs) - 1][0] if runs else 0
        before, after = encoded[:start], encoded[end:]  # the runs' items are all cached
        for index in self.missing:
            piece = dumps(original[index]) + b","
            if index < start:
                before[index] = piece
            elif index >= end:
                after[index - end] = piece
            else:  # inside a run: not this class's contract; encode it all
                return None
        return before, runs, after  # type: ignore[return-value]


class EncodingMemo:
    """The encodings of a payload field a provider builds the same way on each request
    (the tool list), keyed by what it is built from: a tuple compared with ``==``, in
    which objects that may change are given as ``id(...)`` and held in ``keep`` (a
    tool's parameters schema, built once by the kernel and never changed afterwards)."""

    def __init__(self, size: int = 8) -> None:
        self._entries: list[tuple[Any, Any, bytes]] = []
        self._size = size

    def encode(self, key: Any, keep: Any, value: Any) -> bytes:
        """``dumps(value)``, reused when ``value`` was built from ``key`` before."""
        entries = self._entries
        for index, (known, _, encoded) in enumerate(entries):
            if known == key:
                if index:
                    entries.insert(0, entries.pop(index))
                return encoded
        encoded = dumps(value)
        entries.insert(0, (key, keep, encoded))
        del entries[self._size :]
        return encoded

    def encode_strings(self, item: Any) -> bytes:
        """``dumps(item)``, reused for a dict of strings equal to one encoded before (a
        system message); anything else is encoded afresh."""
        if type(item) is not dict or not all(
            type(k) is str and type(v) is str for k, v in item.items()
        ):
            return dumps(item)
        return self.encode(("strings", *item.items()), None, item)


class BodyPieces:
    """A body sent as a few long pieces one after another, never joined; httpx reads
    it as an async iterable (the caller gives the Content-Length)."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces
        self.length = sum(map(len, pieces))

    async def __aiter__(self) -> Any:
        for piece in self.pieces:
            yield piece

    def __bytes__(self) -> bytes:
        return b"".join(self.pieces)


async def request_pieces(body: Any, options: Any = None) -> bytes | BodyPieces:
    """What to send for ``body`` (a PreparedBody or a plain payload), after the
    request's before_provider_request handlers (``options.on_payload``) saw it: bytes,
    or BodyPieces when the body is long enough to be sent in pieces."""
    prepared = body if isinstance(body, PreparedBody) else PreparedBody(body)
    on_payload = getattr(options, "on_payload", None)
    payload = None if on_payload is None else await on_payload(prepared.view())
    pieces = prepared.pieces(payload)
    return pieces[0] if len(pieces) == 1 else BodyPieces(pieces)


async def request_bytes(body: Any, options: Any = None) -> bytes:
    """``request_pieces`` joined into one bytes object."""
    content = await request_pieces(body, options)
    return content if isinstance(content, bytes) else bytes(content)
