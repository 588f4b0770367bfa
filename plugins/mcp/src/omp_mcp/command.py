"""``omp mcp list|add|remove|enable|disable|test``: the MCP servers omp starts."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omp import OmpError, UsageError

from omp_mcp.config import (
    agent_config_path,
    load_servers,
    normalise,
    project_config_path,
)

if TYPE_CHECKING:
    from omp import SubcommandContext

NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
USAGE = """\
usage: omp mcp list [--json]                      every server, where it comes from, on or off
       omp mcp add NAME [--project] [--env K=V]... [--timeout MS] -- COMMAND [ARGS...]
       omp mcp add NAME [--project] [--sse] [--header 'K: V']... URL
       omp mcp remove NAME [--project]            delete it from omp's mcp.json (or .mcp.json)
       omp mcp enable NAME | disable NAME         switch a server on or off (any source)
       omp mcp test NAME                          connect, list its tools and their token cost
       omp mcp login NAME                         OAuth in the browser for a remote server

Servers come from .mcp.json / mcp.json in trusted projects, ~/.omp/agent/mcp.json and the
MCP configs of Claude Code, Cursor, Windsurf, Codex, Gemini CLI and opencode.
"""


def run(args: list[str], ctx: SubcommandContext) -> int:
    if not args or args[0] in ("-h", "--help", "help"):
        print(USAGE, end="")
        return 0 if args else 2
    action, rest = args[0], args[1:]
    cwd, agent_dir = ctx.cwd, ctx.agent_dir
    settings = ctx.settings
    trusted = ctx.trusted
    import_others = settings.get("mcp.importOtherAgents", True)

    def servers() -> list[Any]:
        found, warnings = load_servers(cwd, agent_dir, trusted=trusted, import_others=import_others)
        for warning in warnings:
            print(f"omp: {warning}", file=sys.stderr)
        return found

    if action == "list":
        unknown = [a for a in rest if a != "--json"]
        if unknown:
            raise UsageError(f"unknown argument {unknown[0]!r}; usage: omp mcp list [--json]")
        return _list(servers(), "--json" in rest)
    if action == "add":
        return _add(rest, cwd, agent_dir, trusted)
    if action in ("remove", "enable", "disable", "test", "login"):
        name = _one_name(action, rest)
        if action == "remove":
            return _remove(name, "--project" in rest, cwd, agent_dir, servers())
        if action == "test":
            from omp_mcp.probe import probe

            return probe(_find(name, servers()), settings, agent_dir)
        if action == "login":
            import asyncio

            from omp_mcp.oauth import login

            timeout = settings.get("mcp.timeoutMs", 60000) / 1000
            return asyncio.run(login(_find(name, servers()), agent_dir, timeout))
        return _switch(name, action == "enable", agent_dir, servers())
    raise UsageError(
        f"unknown mcp command {action!r}; use list, add, remove, enable, disable, test or login"
    )


def _one_name(action: str, rest: list[str]) -> str:
    names = [a for a in rest if not a.startswith("-")]
    if len(names) != 1:
        raise UsageError(f"usage: omp mcp {action} NAME")
    return names[0]


def _find(name: str, servers: list[Any]) -> Any:
    for server in servers:
        if server.name == name:
            return server
    known = ", ".join(s.name for s in servers) or "none configured"
    raise OmpError(f"no MCP server named {name!r} (servers: {known})")


def _list(servers: list[Any], as_json: bool) -> int:
    if as_json:
        rows = [
            {
                "name": s.name,
                "enabled": s.enabled,
                "transport": s.transport,
                "target": s.describe(),
                "source": s.source,
                "problems": s.problems,
            }
            for s in servers
        ]
        print(json.dumps(rows, indent=2))
        return 0
    if not servers:
        print("no MCP servers configured (add one with `omp mcp add NAME -- COMMAND ...`)")
        return 0
    width = max(len(s.name) for s in servers)
    for s in servers:
        state = "on " if s.enabled else "off"
        problem = f"  [{'; '.join(s.problems)}]" if s.problems else ""
        print(
            f"{s.name:<{width}}  {state}  {s.transport:<5}  {s.describe()}  ({s.source}){problem}"
        )
    return 0


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except json.JSONDecodeError as exc:
        raise OmpError(f"{path} is not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise OmpError(f"{path} is not a JSON object")
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    """Written 0600 when created: an entry's env and headers may hold tokens. Atomic: a
    kill mid-write leaves the old file."""
    from omp import write_file

    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2) + "\n"
    write_file(path, text.encode("utf-8"), mode=None if path.exists() else 0o600)


def _add(rest: list[str], cwd: Path, agent_dir: Path, trusted: bool) -> int:
    head, _, command = (
        (rest[: rest.index("--")], None, rest[rest.index("--") + 1 :])
        if ("--" in rest)
        else (rest, None, [])
    )
    entry: dict[str, Any] = {}
    names: list[str] = []
    project = False
    words = iter(head)
    for word in words:
        if word == "--project":
            project = True
        elif word == "--sse":
            entry["type"] = "sse"
        elif word in ("--env", "--header", "--timeout"):
            value = next(words, None)
            if value is None:
                raise UsageError(f"{word} needs a value")
            if word == "--env":
                key, sep, val = value.partition("=")
                if not sep or not key:
                    raise UsageError(f"--env takes KEY=VALUE, not {value!r}")
                entry.setdefault("env", {})[key] = val
            elif word == "--header":
                key, sep, val = value.partition(":")
                if not sep or not key.strip():
                    raise UsageError(f"--header takes 'Name: value', not {value!r}")
                entry.setdefault("headers", {})[key.strip()] = val.strip()
            else:
                if not value.isdigit():
                    raise UsageError(f"--timeout takes milliseconds, not {value!r}")
                entry["timeout"] = int(value)
        elif word.startswith("-"):
            raise UsageError(f"unknown flag {word} (omp mcp --help)")
        else:
            names.append(word)
    if command:
        if len(names) != 1:
            raise UsageError("usage: omp mcp add NAME [options] -- COMMAND [ARGS...]")
        entry = {"command": command[0], "args": command[1:], **entry}
    elif len(names) == 2 and "://" in names[1]:
        entry = {"type": entry.get("type", "http"), "url": names[1], **entry}
    else:
        raise UsageError("usage: omp mcp add NAME -- COMMAND [ARGS...]  or  omp mcp add NAME URL")
    name = names[0]
    if not NAME.fullmatch(name):
        raise UsageError(f"cannot add {name!r}: a server name is letters, digits, - and _")
    url = entry.get("url", "")
    if url and not url.lower().startswith(("http://", "https://")):
        raise UsageError(f"cannot add {name}: {url} is not an http:// or https:// URL")
    if normalise(name, entry, "mcpServers", "", {}).problems and "${" not in json.dumps(entry):
        raise UsageError(f"cannot add {name}: nothing to start")
    path = project_config_path(cwd) if project else agent_config_path(agent_dir)
    data = _read(path)
    servers = data.setdefault("mcpServers", {})
    if name in servers:
        raise OmpError(f"{path} already has a server named {name!r}; remove it first")
    servers[name] = entry
    _write(path, data)
    print(f"added MCP server {name} to {path}")
    if project and not trusted:
        print("this directory is not trusted: it starts once you trust it (omp --trust)")
    return 0


def _remove(name: str, project: bool, cwd: Path, agent_dir: Path, servers: list[Any]) -> int:
    path = project_config_path(cwd) if project else agent_config_path(agent_dir)
    data = _read(path)
    if name not in (data.get("mcpServers") or {}):
        found = [s.source for s in servers if s.name == name]
        where = (
            f" it comes from {found[0]}; `omp mcp disable {name}` switches it off" if found else ""
        )
        raise OmpError(f"{path} has no server named {name!r};{where}".rstrip(";"))
    del data["mcpServers"][name]
    _write(path, data)
    print(f"removed MCP server {name} from {path}")
    return 0


def _switch(name: str, on: bool, agent_dir: Path, servers: list[Any]) -> int:
    _find(name, servers)
    path = agent_config_path(agent_dir)
    data = _read(path)
    disabled = [n for n in data.get("disabledServers") or [] if n != name]
    if not on:
        disabled.append(name)
    data["disabledServers"] = disabled
    entry = (data.get("mcpServers") or {}).get(name)
    if on and isinstance(entry, dict) and entry.get("enabled") is False:
        entry.pop("enabled")
    if not data["disabledServers"]:
        del data["disabledServers"]
    _write(path, data)
    print(f"{'enabled' if on else 'disabled'} MCP server {name}")
    return 0
