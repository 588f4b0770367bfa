"""The hooks: one tool, one event hook (a tool_call gate), one slash command, one
command-line flag and one setting.

omp imports this module on every run (``omp --help`` included), so keep it cheap:
import anything heavy inside the functions that need it.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING, Any

import omp

if TYPE_CHECKING:
    from omp import ToolCallDecision, ToolCallEvent

PLUGIN = "plugin_template"
TOOL = "plugin_template_hello"
FLAG = "plugin-template-greeting"
SETTING = "plugin_template.greeting"
COMMAND = "plugin-template"
PROTECTED = {".env", ".env.local", "id_rsa"}


@omp.hookimpl
def omp_register_flags(api: Any) -> list[Any]:
    from omp import Flag

    return [Flag(FLAG, f"The greeting {TOOL} uses (default: Hello)", "string", metavar="TEXT")]


@omp.hookimpl
def omp_register_settings(api: Any) -> list[Any]:
    """``omp config set plugin_template.greeting Hi`` checks and stores it; ``omp config
    list`` shows it with its default and this description."""
    from omp import SettingSpec

    return [SettingSpec(SETTING, "string", "Hello", f"the greeting {TOOL} uses (--{FLAG} wins)")]


@omp.hookimpl
def omp_register_tools(api: Any) -> list[Any]:
    from omp_plugin_template.tool import hello_tool

    return [hello_tool()]


@omp.hookimpl
def omp_tool_call(event: ToolCallEvent, ctx: Any) -> ToolCallDecision | None:
    """Block any tool call whose ``path`` argument is a secrets file. (A plain dict with
    the same keys works too; a key the result model lacks is reported as an error.)"""
    from omp import ToolCallDecision

    path = event.input.get("path")
    if isinstance(path, str) and PurePath(path).name in PROTECTED:
        reason = f"{path} holds secrets; {PLUGIN} keeps tools away"
        return ToolCallDecision(block=True, reason=reason)
    return None


@omp.hookimpl
def omp_register_commands(api: Any) -> list[Any]:
    from omp import Command

    def greetings(args: str, ctx: Any) -> None:
        count = ctx.state.get(PLUGIN, {}).get("greetings", 0)
        ctx.ui.notify(f"{TOOL} greeted {count} time(s) in this session")

    return [Command(COMMAND, f"How often {TOOL} greeted in this session", greetings)]
