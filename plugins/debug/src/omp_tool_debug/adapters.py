"""Which debug adapters exist: debugpy (when importable, run by this interpreter) and
those configured in ``debug.adapters`` (a name to the adapter's command line)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from dataclasses import dataclass, field
from typing import Any

SETTING = "debug.adapters"


@dataclass(frozen=True)
class Adapter:
    name: str
    argv: list[str]
    file_types: tuple[str, ...] = ()
    launch_defaults: dict[str, Any] = field(default_factory=dict)


def debugpy_installed() -> bool:
    return importlib.util.find_spec("debugpy") is not None


def debugpy_adapter() -> Adapter | None:
    if not debugpy_installed():
        return None
    return Adapter(
        "debugpy",
        [sys.executable, "-m", "debugpy.adapter"],
        (".py", ".pyw"),
        # internalConsole: the debuggee's output comes as DAP output events (buffered
        # for `output`), never through a runInTerminal request omp cannot serve.
        {"console": "internalConsole", "justMyCode": False, "stopOnEntry": True},
    )


def configured(settings: Any) -> dict[str, Adapter]:
    raw = settings.get(SETTING, {}) if settings is not None else {}
    found: dict[str, Adapter] = {}
    for name, argv in (raw or {}).items():
        if isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv):
            found[name] = Adapter(name, list(argv), (), {"stopOnEntry": True})
    return found


def available(settings: Any) -> dict[str, Adapter]:
    """The adapters that can start: configured ones whose command resolves, then debugpy
    (a configured ``debugpy`` entry replaces the built-in one)."""
    found = {
        name: adapter
        for name, adapter in configured(settings).items()
        if os.path.isfile(adapter.argv[0]) or shutil.which(adapter.argv[0])
    }
    builtin = debugpy_adapter()
    if builtin is not None and "debugpy" not in found:
        found["debugpy"] = builtin
    return found


def choose(adapters: dict[str, Adapter], wanted: str | None, program: str | None) -> Adapter:
    """The adapter for a launch/attach; ValueError (one line) when there is none."""
    names = ", ".join(sorted(adapters)) or "none"
    if wanted:
        if wanted not in adapters:
            raise ValueError(f"adapter '{wanted}' is not available. Installed adapters: {names}")
        return adapters[wanted]
    suffix = os.path.splitext(program or "")[1].lower()
    for adapter in adapters.values():
        if suffix and suffix in adapter.file_types:
            return adapter
    if program is None and "debugpy" in adapters:
        return adapters["debugpy"]
    if len(adapters) == 1:
        return next(iter(adapters.values()))
    raise ValueError(
        f"No debugger adapter for {program or 'this target'}: pass adapter "
        f"(installed adapters: {names})"
    )
