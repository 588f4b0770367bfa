"""Read-only dicts and lists for session entries, so a session can hand out its entries
without copying them.

A session never changes an entry once it is written, and plugins only read the
entries they get (``ctx.session.branch_entries()``), so the stored entries are frozen
once, when they are loaded or appended: every later reader gets the same objects for
free, where a deep copy per call cost seconds on a long session. ``FrozenDict`` and
``FrozenList`` are real ``dict`` and ``list`` subclasses (``isinstance``, ``json.dumps``
and pydantic see plain containers); any change raises ``TypeError``, and
``copy.deepcopy`` (or ``thaw``) gives an ordinary mutable copy.
"""

from __future__ import annotations

from typing import Any, NoReturn

_LEAVES = frozenset({str, int, float, bool, type(None)})
_set_item = dict.__setitem__
_MESSAGE = (
    "session entries are read-only (they are shared, not copied); "
    "use copy.deepcopy(entry) for a copy you can change"
)


def _read_only(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(_MESSAGE)


class FrozenDict(dict):  # type: ignore[type-arg]
    """A dict that refuses every change."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        return thaw(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (thaw(self),))


class FrozenList(list):  # type: ignore[type-arg]
    """A list that refuses every change."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only
    append = extend = insert = remove = pop = clear = sort = reverse = _read_only

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return thaw(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (thaw(self),))


def freeze(value: Any) -> Any:
    """``value`` with every dict, list and tuple inside it made read-only (new objects
    where anything changed; strings and numbers are shared)."""
    kind = type(value)
    if kind in _LEAVES or kind is FrozenDict or kind is FrozenList:
        return value
    if isinstance(value, dict):
        frozen = FrozenDict(value)
        for key, item in value.items():
            if type(item) not in _LEAVES:
                _set_item(frozen, key, freeze(item))
        return frozen
    if isinstance(value, (list, tuple)):
        return FrozenList([v if type(v) in _LEAVES else freeze(v) for v in value])
    return value


def thaw(value: Any) -> Any:
    """A plain, mutable deep copy of a (possibly frozen) JSON-like value."""
    kind = type(value)
    if kind in _LEAVES:
        return value
    if isinstance(value, dict):
        return {k: v if type(v) in _LEAVES else thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [v if type(v) in _LEAVES else thaw(v) for v in value]
    import copy

    return copy.deepcopy(value)
