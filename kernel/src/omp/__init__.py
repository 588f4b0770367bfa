"""omp for Python: the kernel's public API.

Importing ``omp`` is cheap (pluggy only): ``omp --version`` and plugin entry modules
import it at startup. Everything heavier is imported from its own module when used:
``omp.tools``, ``omp.providers``, ``omp.messages``, ``omp.events``, ...
"""

from __future__ import annotations

import pluggy

__version__ = "0.1.0"

hookimpl = pluggy.HookimplMarker("omp")
"""Marker for hook implementations: ``@omp.hookimpl def omp_tool_call(event): ...``."""

__all__ = ["__version__", "hookimpl"]
