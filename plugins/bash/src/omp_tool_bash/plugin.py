"""Entry module of omp-tool-bash: only the hook, cheap to import (``omp --help`` loads it)."""

from __future__ import annotations

from typing import Any

import omp
from omp import SettingSpec


@omp.hookimpl
def omp_register_tools(api: Any) -> list[Any]:
    from omp_tool_bash.tool import BashTool

    return [BashTool()]


@omp.hookimpl
def omp_register_settings(api: Any) -> list[SettingSpec]:
    from omp_tool_bash.limits import ARTIFACT_MAX_BYTES, HARD_LIMIT_BYTES

    return [
        SettingSpec(
            "bash.artifactMaxBytes",
            "integer",
            ARTIFACT_MAX_BYTES,
            "bash output kept in the artifact",
            minimum=4096,
        ),
        SettingSpec(
            "bash.outputHardLimitBytes",
            "integer",
            HARD_LIMIT_BYTES,
            "bash output that ends the command",
            minimum=4096,
        ),
    ]
