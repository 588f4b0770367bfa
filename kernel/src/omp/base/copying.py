"""A fast deep copy of message models, for handing handlers a conversation they may
change in place without touching the stored one (``context`` handlers).

``copy.deepcopy`` and pydantic's ``model_copy(deep=True)`` cost about 30 us a message;
this copies only what can be mutated (models, lists, dicts, sets) and shares immutable
leaves (str, numbers, bytes, None), about 4 us a message.
"""

from __future__ import annotations

from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

_IMMUTABLE = frozenset({str, int, float, bool, bytes, type(None)})
_new = object.__new__
_set = object.__setattr__


def deep_copy(value: Any) -> Any:
    """A copy of ``value`` sharing no mutable part with it (models included)."""
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    if kind is list:
        return [item if type(item) in _IMMUTABLE else deep_copy(item) for item in value]
    if kind is dict:
        return {
            key: item if type(item) in _IMMUTABLE else deep_copy(item)
            for key, item in value.items()
        }
    plan = _plans.get(kind)
    if plan is not None or isinstance(value, BaseModel):
        return _copy_model(value, kind, plan)
    if kind is set:
        return set(value)
    import copy

    return copy.deepcopy(value)


def _copy_model(model: BaseModel, kind: type, plan: tuple[str, ...] | None) -> BaseModel:
    if plan is None:
        plan = _plans[kind] = _mutable_fields(kind)
    fields = model.__dict__.copy()
    for key in plan:
        value = fields[key]
        if type(value) not in _IMMUTABLE:
            fields[key] = deep_copy(value)
    clone: BaseModel = _new(kind)
    _set(clone, "__dict__", fields)
    _set(clone, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    extra = model.__pydantic_extra__
    _set(
        clone,
        "__pydantic_extra__",
        (deep_copy(extra) if extra else {}) if extra is not None else None,
    )
    private = model.__pydantic_private__
    _set(clone, "__pydantic_private__", None if private is None else deep_copy(private))
    return clone


_plans: dict[type, tuple[str, ...]] = {}


def _mutable_fields(kind: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``kind`` whose declared type can hold a mutable value (a validated
    model keeps a ``str | None`` field a str or None, so those are shared, not copied)."""
    return tuple(name for name, info in kind.model_fields.items() if not _leaf(info.annotation))


def _leaf(annotation: Any) -> bool:
    if annotation in _IMMUTABLE or annotation is None:
        return True
    origin = get_origin(annotation)
    if origin is Literal:
        return True
    if origin in (Union, UnionType):
        return all(_leaf(arg) for arg in get_args(annotation))
    return False


class CopyOnRead(list):  # type: ignore[type-arg]
    """A list of models, each deep-copied the first time it is read.

    What a ``context`` handler gets: it may read, change in place, reorder or replace
    the messages, and nothing of that reaches the stored conversation, but a handler that
    only looks at the last few messages (or at none) copies only those. Any change to the
    list itself copies everything first, so indexes stay right.
    """

    __slots__ = ("_fresh",)

    def __init__(self, originals: list[Any]) -> None:
        super().__init__(originals)
        self._fresh: bytearray | None = bytearray(len(originals))
        """1 where the item is already this list's own copy."""

    def _item(self, index: int) -> Any:
        fresh = self._fresh
        if fresh is None or fresh[index]:
            return list.__getitem__(self, index)
        value = deep_copy(list.__getitem__(self, index))
        list.__setitem__(self, index, value)
        fresh[index] = 1
        return value

    def _own_all(self) -> None:
        if self._fresh is not None:
            for index in range(len(self)):
                self._item(index)
            self._fresh = None

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._item(i) for i in range(*index.indices(len(self)))]
        return self._item(range(len(self))[index])

    def __iter__(self) -> Any:
        for index in range(len(self)):
            yield self._item(index)

    def __reversed__(self) -> Any:
        for index in range(len(self) - 1, -1, -1):
            yield self._item(index)

    def copied_indexes(self) -> list[int] | None:
        """The indexes of the items read (and so copied) so far; None once the list
        itself was changed (everything is a copy then)."""
        fresh = self._fresh
        if fresh is None:
            return None
        found, index = [], fresh.find(1)
        while index != -1:
            found.append(index)
            index = fresh.find(1, index + 1)
        return found

    def append(self, item: Any) -> None:
        """Adding at the end moves no index, so nothing needs copying first."""
        list.append(self, item)
        if self._fresh is not None:
            self._fresh.append(1)

    def extend(self, items: Any) -> None:
        added = list(items)
        list.extend(self, added)
        if self._fresh is not None:
            self._fresh.extend(b"\x01" * len(added))

    # list's own __iadd__ returns the list too; mypy compares it with the inherited
    # __add__, which returns a new plain list.
    def __iadd__(self, items: Any) -> CopyOnRead:  # type: ignore[misc]
        self.extend(items)
        return self

    def settled(self) -> list[Any]:
        """A plain list for the request: the copies a handler read (and may have
        changed), the originals where nothing was read."""
        return list.copy(self)


def _owning(name: str) -> Any:
    method = getattr(list, name)

    def change(self: CopyOnRead, *args: Any, **kwargs: Any) -> Any:
        self._own_all()
        return method(self, *args, **kwargs)

    change.__name__ = name
    return change


for _name in (
    "__setitem__", "__delitem__", "__imul__", "__contains__", "__eq__",
    "__ne__", "__add__", "__mul__", "__rmul__", "__repr__", "insert",
    "remove", "pop", "clear", "sort", "reverse", "index", "count", "copy",
):  # fmt: skip
    setattr(CopyOnRead, _name, _owning(_name))
