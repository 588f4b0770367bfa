"""MCP prompts as slash commands: ``/mcp__<server>__<prompt> [args]`` fetches the
prompt (arguments by position in the prompt's order, or ``name=value``) and sends its
text as the user's prompt."""

from __future__ import annotations

import shlex
from typing import Any

from omp import Command

from omp_mcp.tools import tool_name


def prompt_command(connection: Any, prompt: Any) -> Command:
    arguments = list(prompt.arguments or [])
    hint = " ".join(f"<{a.name}>" if a.required else f"[{a.name}]" for a in arguments)

    async def handler(args: str, ctx: Any) -> None:
        from omp_mcp.connection import ServerDown
        from omp_mcp.results import convert_block

        try:
            values = parse_arguments(args, [a.name for a in arguments])
        except ValueError as exc:
            ctx.ui.notify(f"/{name}: {exc}", "error")
            return
        missing = [a.name for a in arguments if a.required and a.name not in values]
        if missing:
            usage = f"missing argument(s) {', '.join(missing)}; usage: /{name} {hint}"
            ctx.ui.notify(f"/{name}: {usage}", "error")
            return
        try:
            result = await connection.get_prompt(prompt.name, values)
        except ServerDown as exc:
            ctx.ui.notify(str(exc), "error")
            return
        except Exception as exc:
            error = connection.config.redact(str(exc))
            ctx.ui.notify(f"/{name}: the server refused the prompt: {error}", "error")
            return
        texts = []
        for message in result.messages:
            texts += [b.text for b in convert_block(message.content) if hasattr(b, "text")]
        await ctx.prompt("\n\n".join(texts), literal=True)

    name = tool_name(connection.name, prompt.name)
    description = prompt.description or f"MCP prompt {prompt.name} of {connection.name}"
    return Command(name, description, handler, argument_hint=hint or None, source="mcp_prompt")


def parse_arguments(args: str, names: list[str]) -> dict[str, str]:
    """``a b`` by position, ``name=value`` by name (quotes as in a shell)."""
    values: dict[str, str] = {}
    position = 0
    for word in shlex.split(args):
        key, sep, value = word.partition("=")
        if sep and key in names:
            values[key] = value
            continue
        while position < len(names) and names[position] in values:
            position += 1
        if position >= len(names):
            raise ValueError(f"too many arguments (it takes {', '.join(names) or 'none'})")
        values[names[position]] = word
        position += 1
    return values
