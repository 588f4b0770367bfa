"""``omp plugins``: what is loaded, from where, implementing which hooks.

The listing is what runs: a FAILED plugin was unregistered (none of its hooks run), a
DEGRADED one keeps the hooks it lists."""

from __future__ import annotations

from typing import Any

USAGE = """usage: omp plugins [--no-plugins] [-e FILE]

The plugins this run loads, in load order: name, version, where each came from, its
hooks, and why one FAILED (none of its hooks run) or is DEGRADED; then which search
backend answers first.

  --no-plugins       the kernel alone: no entry-point plugins
  -e FILE            load a single-file extension too (repeatable)

`omp plugin list` adds each plugin's contributions and whether it is enabled;
`omp plugin --help` installs, removes, enables and disables them.
"""


def print_plugins(runtime: Any) -> int:
    records = runtime.host.records
    if not records:
        print("no plugins are loaded (the kernel alone)")
        return 0
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
    from omp.cli.subcommand_context import SubcommandContext

    line = SubcommandContext(runtime).search_backend_line()
    if line:
        print(line)
    return 0
