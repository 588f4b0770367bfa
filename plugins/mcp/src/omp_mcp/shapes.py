"""The shapes of a server entry's fields: each checked for its type (a hand-edited file
must not break every other server, nor ``omp mcp list``), pairs in either of their
forms, and Codex's header fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_TEXT_KEYS = ("url", "httpUrl", "serverUrl", "cwd", "type", "transport", "bearer_token_env_var")
_PAIRS_KEYS = {
    "env": "env",
    "environment": "env",
    "headers": "headers",
    "http_headers": "headers",
    "env_http_headers": "headers",
}


def well_typed(raw: Mapping[str, Any], problems: list[str]) -> dict[str, Any]:
    """``raw`` without the fields of a wrong type, each named in ``problems`` (a hand-
    edited file must not break every other server, nor ``omp mcp list``)."""
    out = dict(raw)
    command = out.get("command")
    if command is not None and not (
        isinstance(command, str) or (isinstance(command, list) and all(map(_scalar, command)))
    ):
        problems.append("command must be a string")
        del out["command"]
    args = out.get("args")
    if args is not None and not (isinstance(args, list) and all(map(_scalar, args))):
        problems.append("args must be a list of strings")
        del out["args"]
    for key, label in _PAIRS_KEYS.items():
        if key in out and out[key] is not None and not _is_pairs(out[key]):
            problems.append(f"{label} must be an object of strings")
            del out[key]
    for key in _TEXT_KEYS:
        if out.get(key) is not None and not isinstance(out[key], str):
            problems.append(f"{key} must be a string")
            del out[key]
    return out


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _is_pairs(value: Any) -> bool:
    """A mapping of scalars, or ACP's list of ``{"name": ..., "value": ...}``."""
    if isinstance(value, Mapping):
        return all(map(_scalar, value.values()))
    return isinstance(value, list) and all(
        isinstance(item, Mapping) and isinstance(item.get("name"), str) for item in value
    )


def entry_headers(raw: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """The entry's headers; Codex's ``http_headers``, ``env_http_headers`` (a header's
    value from a variable) and ``bearer_token_env_var`` as ``${VAR}`` references."""
    headers = pairs(raw.get("headers") or {})
    if kind != "codex":
        return headers
    headers.update(pairs(raw.get("http_headers") or {}))
    for name, variable in pairs(raw.get("env_http_headers") or {}).items():
        headers[name] = f"${{{variable}}}"
    if isinstance(raw.get("bearer_token_env_var"), str):
        headers["Authorization"] = f"Bearer ${{{raw['bearer_token_env_var']}}}"
    return headers


def pairs(value: Any) -> dict[str, Any]:
    """A mapping, or ACP's list of ``{"name": ..., "value": ...}`` as one."""
    if isinstance(value, list):
        return {
            item["name"]: item.get("value", "")
            for item in value
            if isinstance(item, Mapping) and isinstance(item.get("name"), str)
        }
    return dict(value)
