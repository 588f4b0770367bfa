"""``omp plugins``: what is loaded, from where, implementing which hooks.

The listing is what runs: a FAILED plugin was unregistered (none of its hooks run), a
DEGRADED one keeps the hooks it lists."""

from __future__ import annotations

from typing import Any

USAGE = """usage: omp plugins [--no-plugins] [-e FILE]

The plugins this run loads, in load order: name, version, where each came from, its
hooks, and why one FAILED (none of its hooks run) or is DEGRADED; whether tools that
need something (a language server, a debug adapter) are offered here, and why not;
then which search backend answers first.

  --no-plugins       the kernel alone: no entry-point plugins
  -e FILE            load a single-file extension too (repeatable)

`omp plugin list` adds each plugin's contributions and whether it is enabled;
`omp plugin --help` installs, removes, enables and disables them.
"""


def print_plugins(runtime: Any) -> int:
    from omp.cli.subcommand_context import SubcommandContext

    records = runtime.host.records
    if not records:
        print("no plugins are loaded (the kernel alone)")
        return 0
    context = SubcommandContext(runtime)
    offered = tool_lines(context.tool_checks())
    for record in records:
        version = f" {record.version}" if record.version else ""
        status = "" if record.status == "loaded" else f"  [{record.status.upper()}]"
        print(f"{record.name}{version}  -  {record.source}{status}")
        if record.error:
            print(f"    reason: {record.error}")
        if record.status == "failed":
            print("    none of its hooks run")
        elif record.hooks:
            print(f"    hooks: {', '.join(record.hooks)}")
        for note in offered.get(record.name, []):
            print(f"    {note}")
    backend = context.search_backend_line()
    if backend:
        print(backend)
    return 0


def tool_lines(checks: list[tuple[str, str, str | None]]) -> dict[str, list[str]]:
    """Plugin name -> its ``tools X: offered here`` / ``tools X: not offered here: why``."""
    lines: dict[str, list[str]] = {}
    for plugin, tools, reason in checks:
        state = f"not offered here: {reason}" if reason else "offered here"
        lines.setdefault(plugin, []).append(f"tools {tools}: {state}")
    return lines
