"""omp for Python: the kernel's public API.

Importing ``omp`` is cheap (pluggy only): ``omp --version`` and plugin entry modules
import it at startup. Everything heavier is imported from its own module when used:
``omp.tools``, ``omp.providers``, ``omp.messages``, ``omp.events``, ...
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """``omp.hookimpl``, the marker for hook implementations, created on first use so
    that ``omp --version`` does not import pluggy."""
    if name == "hookimpl":
        import pluggy

        marker = pluggy.HookimplMarker("omp")
        globals()["hookimpl"] = marker
        return marker
    raise AttributeError(f"module 'omp' has no attribute {name!r}")


__all__ = ["__version__", "hookimpl"]
