"""lsprotocol's typed classes for those who want them: convert raw JSON both ways.
Importing lsprotocol is costly, so only code that runs a request imports this module."""

from __future__ import annotations

from functools import cache
from typing import Any, TypeVar

T = TypeVar("T")


@cache
def _converter() -> Any:
    from lsprotocol.converters import get_converter

    return get_converter()


def structure(data: Any, cls: type[T]) -> T:
    """``data`` (a raw JSON result) as an instance of the lsprotocol class ``cls``."""
    return _converter().structure(data, cls)  # type: ignore[no-any-return]


def unstructure(obj: Any) -> Any:
    """An lsprotocol object as raw JSON params."""
    return _converter().unstructure(obj)
