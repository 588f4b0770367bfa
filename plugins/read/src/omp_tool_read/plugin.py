"""Entry module of omp-tool-read: only the hooks, cheap to import (``omp --help`` loads it)."""

from __future__ import annotations

from typing import Any

import omp
from omp import SettingSpec

FORMAT_SETTINGS = {
    "pdf": "read.pdf",
    "notebook": "read.notebooks",
    "image": "read.images",
    "archive": "read.archives",
    "sqlite": "read.sqlite",
    "docx": "read.docx",
}
"""Each format's on/off setting (boolean, default on); here, not in ``kinds``, so that
declaring the settings (``omp --help`` does) imports nothing more."""
_OFF = "off: a notebook shows as JSON text, the others are refused"


@omp.hookimpl
def omp_register_tools(api: Any) -> list[Any]:
    from omp_tool_read.tool import ReadTool

    return [ReadTool()]


@omp.hookimpl
def omp_session_start(ctx: Any) -> None:
    """Offer read's image and PDF presentation to other plugins (fetch's downloads)."""
    from omp_tool_read.present import PRESENT_STATE, present_bytes

    ctx.state[PRESENT_STATE] = present_bytes


@omp.hookimpl
def omp_register_settings(api: Any) -> list[SettingSpec]:
    return [
        SettingSpec(key, "boolean", True, f"read presents {kind} files ({_OFF})")
        for kind, key in FORMAT_SETTINGS.items()
    ]
