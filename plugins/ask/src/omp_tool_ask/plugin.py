"""Entry module of omp-tool-ask: only the hooks, cheap to import (``omp --help`` loads it).

The tool is offered only to a session whose UI can answer (``ctx.has_ui``: the terminal
UI, ``--mode rpc-ui``, ACP), never in print or json mode; a tool another plugin already
registered as ``ask`` is left in place."""

from __future__ import annotations

from typing import Any

import omp
from omp import SettingSpec

TIMEOUT_KEY = "ask.timeout"


@omp.hookimpl
def omp_register_settings(api: Any) -> list[SettingSpec]:
    return [
        SettingSpec(
            TIMEOUT_KEY,
            "number",
            0,
            "seconds an ask dialog waits before taking the recommended option (0: no limit)",
            minimum=0,
        )
    ]


@omp.hookimpl
def omp_session_start(ctx: Any, api: Any) -> None:
    if not ctx.has_ui or api.get_tool("ask") is not None:
        return
    from omp_tool_ask.tool import AskTool

    api.register_tool(AskTool(), scope="session")
