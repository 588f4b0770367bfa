"""Entry module of omp-tool-bash: only the hook, cheap to import (``omp --help`` loads it)."""

from __future__ import annotations

from typing import Any

import omp


@omp.hookimpl
def omp_register_tools(api: Any) -> list[Any]:
    from omp_tool_bash.tool import BashTool

    return [BashTool()]
