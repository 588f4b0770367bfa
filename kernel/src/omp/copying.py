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
    clone = _new(kind)
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
