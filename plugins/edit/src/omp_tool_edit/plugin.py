"""Entry module of omp-tool-edit: only the hook, cheap to import (``omp --help`` loads it)."""

from __future__ import annotations

from typing import Any

import omp


@omp.hookimpl
def omp_register_tools(api: Any) -> list[Any]:
    from omp_tool_edit.edit import EditTool
    from omp_tool_edit.write import WriteTool

    return [WriteTool(), EditTool()]
