"""extension_error names the failing plugin's source file (omp's extensionPath) and
keeps its name apart, off the wire."""

from __future__ import annotations

import asyncio

import omp
from omp.agent.events import ExtensionErrorEvent, TurnStartEvent
from omp.agent.messages import to_wire


class Broken:
    @omp.hookimpl
    def omp_turn_start(self, event):
        raise RuntimeError("broken on purpose")


def test_extension_error_carries_the_plugin_file_and_its_name(omp_harness) -> None:
    session = omp_harness.session(plugins=[Broken()])
    errors: list[ExtensionErrorEvent] = []
    session.subscribe(lambda e: errors.append(e) if e.type == "extension_error" else None)
    asyncio.run(session.emit(TurnStartEvent()))
    assert len(errors) == 1
    error = errors[0]
    assert error.extension_path == __file__
    assert error.extension_name and error.extension_name in _plugin_names(session)
    assert to_wire(error) == {
        "type": "extension_error",
        "extensionPath": __file__,
        "event": "turn_start",
        "error": "RuntimeError: broken on purpose",
    }


def _plugin_names(session) -> list[str]:
    return [name for name, _ in session.dispatcher.pm.list_name_plugin()]
