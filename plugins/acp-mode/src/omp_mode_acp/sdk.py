"""Loading the ACP SDK, whose import is most of the time an editor waits for
``initialize``.

``acp.schema`` defines about 280 pydantic models and, on import, builds every one's
validator and reads every field's docstring from the source file (on Python < 3.13 by
re-tokenising the class from its frame). Here the import runs with pydantic building a
model's validator on its first use (``defer_build``, pydantic's own option: only the
few dozen models a session touches are ever built) and without the docstrings of the
SDK's own fields (they only become JSON-schema descriptions, which the protocol never
sends). Both are undone when the import returns, so every other model behaves as
before. If pydantic's internals differ from what is expected, the plain import runs.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

SDK_PACKAGE = "acp"


def load_sdk() -> ModuleType:
    """The ``acp`` package, imported the cheap way if nothing imported it yet."""
    loaded = sys.modules.get(SDK_PACKAGE)
    if loaded is not None:
        return loaded
    with _deferred_models():
        import acp
    return acp


@contextmanager
def _deferred_models() -> Iterator[None]:
    try:
        from pydantic._internal import _config, _fields
    except ImportError:
        yield
        return
    defaults: Any = getattr(_config, "config_defaults", None)
    read_docstrings = getattr(_fields, "_update_fields_from_docstrings", None)
    if not isinstance(defaults, dict) or "defer_build" not in defaults or read_docstrings is None:
        yield
        return

    def docstrings_outside_the_sdk(cls: type, *args: Any, **kwargs: Any) -> None:
        if not cls.__module__.startswith(f"{SDK_PACKAGE}."):
            read_docstrings(cls, *args, **kwargs)

    saved = defaults["defer_build"]
    defaults["defer_build"] = True
    _fields._update_fields_from_docstrings = docstrings_outside_the_sdk
    try:
        yield
    finally:
        defaults["defer_build"] = saved
        _fields._update_fields_from_docstrings = read_docstrings
