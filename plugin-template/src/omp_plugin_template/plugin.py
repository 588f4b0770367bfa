"""The hooks: one tool, one event hook (a tool_call gate), one slash command and one
command-line flag.

omp imports this module on every run (``omp --help`` included), so keep it cheap:
import anything heavy inside the functions that need it.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

import omp

PLUGIN = "plugin_template"
TOOL = "plugin_template_hello"
FLAG = "plugin-template-greeting"
COMMAND = "plugin-template"
PROTECTED = {".env", ".env.local", "id_rsa"}


@omp.hookimpl
def omp_register_flags(api: Any) -> list[Any]:
    from omp.contrib import Flag

    return [Flag(FLAG, f"The greeting {TOOL} uses (default: Hello)", "string", metavar="TEXT")]


@omp.hookimpl
def omp_register_tools(api: Any) -> list[Any]:
    from omp_plugin_template.tool import hello_tool

    return [hello_tool()]


@omp.hookimpl
def omp_tool_call(event: Any, ctx: Any) -> dict[str, Any] | None:
    """Block any tool call whose ``path`` argument is a secrets file."""
    path = event.input.get("path")
    if isinstance(path, str) and PurePath(path).name in PROTECTED:
        return {"block": True, "reason": f"{path} holds secrets; {PLUGIN} keeps tools away"}
    return None


@omp.hookimpl
def omp_register_commands(api: Any) -> list[Any]:
    from omp.contrib import Command

    def greetings(args: str, ctx: Any) -> None:
        count = ctx.state.get(PLUGIN, {}).get("greetings", 0)
        ctx.ui.notify(f"{TOOL} greeted {count} time(s) in this session")

    return [Command(COMMAND, f"How often {TOOL} greeted in this session", greetings)]
