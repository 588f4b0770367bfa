"""MCP server configuration: omp's own files and the ones other agents' users already
have, each normalised to one shape (``ServerConfig``).

Sources, first of a name wins:

* project (trusted directories only): ``.mcp.json``, ``mcp.json``, ``.omp/mcp.json``,
  ``.cursor/mcp.json``, ``.gemini/settings.json``, ``opencode.json``;
* user: ``<agent dir>/mcp.json``, then (``mcp.importOtherAgents``) Claude Code
  (``~/.claude.json``: global and this project's servers), Cursor, Windsurf, Codex
  (``~/.codex/config.toml``), Gemini CLI and opencode.

``${VAR}``, ``${VAR:-default}``, Cursor's ``${env:VAR}``, ``${workspaceFolder}`` and
``${userHome}`` are expanded in commands, arguments, env, cwd, URLs and headers.
``<agent dir>/mcp.json`` may also hold ``disabledServers``, which switches off a server
whatever file defines it (``omp mcp disable``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omp_mcp.shapes import entry_headers, pairs, well_typed

TRANSPORTS = {"stdio": "stdio", "sse": "sse", "http": "http", "streamable-http": "http"}
TRANSPORTS |= {"streamablehttp": "http", "streamable_http": "http", "local": "stdio"}
TRANSPORTS |= {"remote": "http"}
MIN_REDACTED = 4
"""Shorter values from the environment are not hidden (they would garble the text)."""
_VAR = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
"""``${VAR}``, ``${VAR:-default}`` and Cursor's ``${env:VAR}``."""


@dataclass
class ServerConfig:
    """One MCP server, whatever file described it. ``timeout`` is the per-request
    timeout in seconds (None: the ``mcp.timeoutMs`` setting)."""

    name: str
    transport: str = "stdio"
    command: str = ""
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    enabled: bool = True
    timeout: float | None = None
    source: str = ""
    problems: list[str] = field(default_factory=list)
    """What is wrong with the entry (an unset variable, no command); it is not started."""
    expanded: dict[str, str] = field(default_factory=dict, repr=False)
    """Each value ``${VAR}`` expanded to, by the text it came from: never shown."""

    def __repr__(self) -> str:
        """No env, no headers, expanded values as their ``${VAR}``: safe in any log."""
        return f"ServerConfig({self.name!r}, {self.transport}, {self.describe()!r})"

    def describe(self) -> str:
        if self.transport == "stdio":
            return self.redact(" ".join([self.command, *self.args]).strip())
        return self.redact(self.url)

    def secret_values(self) -> list[tuple[str, str]]:
        """(label, value) of its credentials, for omp to hide everywhere: every value a
        variable named like a credential expanded to, and env and header values whose
        names say they are credentials (``GITHUB_TOKEN``, ``Authorization``)."""
        from omp import CREDENTIAL_NAME, ENV_SECRET_NAME

        found = [
            (f"mcp:{self.name}:{name}", value)
            for pairs in (self.env, self.headers)
            for name, value in pairs.items()
            if CREDENTIAL_NAME.search(name)
        ]
        for value, reference in self.expanded.items():
            variable = _VAR.match(reference)
            if variable and ENV_SECRET_NAME.search(variable.group(1)):
                found.append((f"mcp:{self.name}:{variable.group(1)}", value))
        return found

    def redact(self, text: str) -> str:
        """``text`` with every value taken from the environment shown as its ``${VAR}``."""
        for value in sorted(self.expanded, key=len, reverse=True):
            text = text.replace(value, self.expanded[value])
        return text


def agent_config_path(agent_dir: Path) -> Path:
    return agent_dir / "mcp.json"


def project_config_path(cwd: Path) -> Path:
    return cwd / ".mcp.json"


def project_sources(cwd: Path) -> list[tuple[Path, str]]:
    return [
        (cwd / ".mcp.json", "mcpServers"),
        (cwd / "mcp.json", "mcpServers"),
        (cwd / ".omp" / "mcp.json", "mcpServers"),
        (cwd / ".cursor" / "mcp.json", "mcpServers"),
        (cwd / ".gemini" / "settings.json", "gemini"),
        (cwd / "opencode.json", "opencode"),
    ]


def foreign_user_sources(home: Path) -> list[tuple[Path, str]]:
    return [
        (home / ".claude.json", "claude"),
        (home / ".cursor" / "mcp.json", "mcpServers"),
        (home / ".codeium" / "windsurf" / "mcp_config.json", "mcpServers"),
        (home / ".codex" / "config.toml", "codex"),
        (home / ".gemini" / "settings.json", "gemini"),
        (home / ".config" / "opencode" / "opencode.json", "opencode"),
    ]


def load_servers(
    cwd: Path,
    agent_dir: Path,
    *,
    trusted: bool,
    import_others: bool = True,
    environ: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> tuple[list[ServerConfig], list[str]]:
    """Every configured server (first of a name wins) and the warnings met on the way
    (unreadable files, project files skipped in an untrusted directory)."""
    home = home or Path.home()
    # Cursor's ${workspaceFolder} and ${userHome}, under whatever the environment says.
    places = {"workspaceFolder": str(cwd), "userHome": str(home)}
    environ = {**places, **(os.environ if environ is None else environ)}
    sources: list[tuple[Path, str]] = []
    warnings: list[str] = []
    project = [(p, kind) for p, kind in project_sources(cwd) if _has_servers(p, kind)]
    if trusted:
        sources += project
    elif project:
        names = ", ".join(str(p.relative_to(cwd)) for p, _ in project)
        warnings.append(
            f"MCP servers in {names} were not started: this directory is not trusted "
            "(trust it with `omp --trust`)"
        )
    sources.append((agent_config_path(agent_dir), "mcpServers"))
    if import_others:
        sources += foreign_user_sources(home)
    servers: dict[str, ServerConfig] = {}
    for path, kind in sources:
        try:
            entries = read_entries(path, kind, cwd)
        except (OSError, ValueError) as exc:
            warnings.append(f"{path}: {exc}")
            continue
        for name, raw in entries.items():
            if name in servers:
                continue
            if isinstance(raw, dict):
                servers[name] = normalise(name, raw, kind, str(path), environ)
            else:
                servers[name] = ServerConfig(name, source=str(path), problems=["not an object"])
    disabled = set(_disabled_names(agent_dir))
    for server in servers.values():
        if server.name in disabled:
            server.enabled = False
    return sorted(servers.values(), key=lambda s: s.name), warnings


def _has_servers(path: Path, kind: str) -> bool:
    try:
        return bool(read_entries(path, kind, path.parent))
    except (OSError, ValueError):
        return path.is_file()


def read_entries(path: Path, kind: str, cwd: Path) -> dict[str, Any]:
    """The raw server entries of one file, by name ({} when the file is absent)."""
    if not path.is_file():
        return {}
    text = path.read_text(encoding="utf-8")
    if kind == "codex":
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"not valid TOML ({exc})") from None
        found = data.get("mcp_servers")
        return found if isinstance(found, dict) else {}
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if kind == "opencode":
        found = data.get("mcp")
    elif kind == "claude":
        found = dict(data.get("mcpServers") or {})
        project = (data.get("projects") or {}).get(str(cwd)) or {}
        found = {**(project.get("mcpServers") or {}), **found}
    else:
        found = data.get("mcpServers")
    return found if isinstance(found, dict) else {}


def normalise(
    name: str, raw: Mapping[str, Any], kind: str, source: str, environ: Mapping[str, str]
) -> ServerConfig:
    """One entry, in any of the supported shapes, as a ServerConfig."""
    problems: list[str] = []
    expanded: dict[str, str] = {}
    raw = well_typed(raw, problems)

    def expand(value: Any) -> str:
        def substitute(match: re.Match[str]) -> str:
            variable, default = match.group(1), match.group(2)
            if variable in environ:
                if len(environ[variable]) >= MIN_REDACTED:
                    expanded[environ[variable]] = match.group(0)
                return environ[variable]
            if default is not None:
                return default
            problems.append(f"environment variable {variable} is not set")
            return ""

        return _VAR.sub(substitute, str(value))

    command = raw.get("command", "")
    args = [expand(a) for a in raw.get("args") or []]
    if isinstance(command, list):  # opencode: the command and its arguments in one list
        command, args = (command[0] if command else ""), [expand(a) for a in command[1:]]
    env_raw = pairs(raw.get("env") or raw.get("environment") or {})
    url = raw.get("url") or raw.get("httpUrl") or raw.get("serverUrl") or ""
    kind_name = str(raw.get("type") or raw.get("transport") or "").lower()
    if kind == "gemini" and raw.get("httpUrl"):
        kind_name = "http"
    elif kind == "gemini" and raw.get("url"):
        kind_name = kind_name or "sse"
    transport = TRANSPORTS.get(kind_name) or ("http" if url else "stdio")
    if kind_name and kind_name not in TRANSPORTS:
        problems.append(f"unknown transport type {kind_name!r} (use stdio, http or sse)")
    if not problems and transport == "stdio" and not command:
        problems.append("no command given")
    if not problems and transport != "stdio" and not url:
        problems.append("no url given")
    enabled = raw.get("enabled", True) is not False and not raw.get("disabled", False)
    return ServerConfig(
        name=name,
        transport=transport,
        command=expand(command),
        args=args,
        env={str(k): expand(v) for k, v in dict(env_raw).items()},
        cwd=expand(raw["cwd"]) if raw.get("cwd") else None,
        url=expand(url),
        headers={str(k): expand(v) for k, v in entry_headers(raw, kind).items()},
        enabled=enabled,
        timeout=_timeout(raw),
        source=source,
        problems=list(dict.fromkeys(problems)),
        expanded=expanded,
    )


def _timeout(raw: Mapping[str, Any]) -> float | None:
    """Seconds: ``timeout`` is in milliseconds (Gemini, omp), Codex says seconds."""
    if isinstance(raw.get("tool_timeout_sec"), int | float):
        return float(raw["tool_timeout_sec"])
    value = raw.get("timeout")
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return value / 1000
    return None


def _disabled_names(agent_dir: Path) -> Iterable[str]:
    try:
        data = json.loads(agent_config_path(agent_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    names = data.get("disabledServers") if isinstance(data, dict) else None
    return [n for n in names or [] if isinstance(n, str)]
