"""omp-natives: the Rust half of omp's search (``omp_natives._native``) and the plugin
that puts it behind the ``omp_search`` hook (``omp_natives.plugin``).

``load()`` gives the compiled module once it has checked that it was built from this
package's version (the version sentinel); a stale or missing build is reported by
``unavailable()`` and the pure-Python backend answers instead.
"""

from __future__ import annotations

from functools import cache
from typing import Any

DISTRIBUTION = "omp-natives"


@cache
def _loaded() -> tuple[Any, str | None]:
    try:
        from omp_natives import _native
    except ImportError as exc:
        return None, f"the compiled module does not load ({exc}); reinstall: bash scripts/setup"
    from importlib.metadata import PackageNotFoundError, version

    try:
        expected = version(DISTRIBUTION)
    except PackageNotFoundError:
        expected = _native.__version__
    if _native.__version__ != expected:
        return None, (
            f"the compiled module is version {_native.__version__} but {DISTRIBUTION} is "
            f"{expected}; rebuild it: pip install --force-reinstall ./natives"
        )
    return _native, None


def load() -> Any:
    """The compiled module; ImportError (with the reason) when it cannot be used."""
    native, problem = _loaded()
    if native is None:
        raise ImportError(problem)
    return native


def unavailable() -> str | None:
    """Why the compiled module cannot be used, or None when it can."""
    return _loaded()[1]
