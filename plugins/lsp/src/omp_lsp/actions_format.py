"""How the lsp tool's results read: paths relative to the workspace, each location
with its line of source, and every list bounded (``limit`` and "… N more")."""

from __future__ import annotations

from typing import Any

from omp_lsp.positions import file_of, read_lines, relative

SEVERITIES = {1: "error", 2: "warning", 3: "info", 4: "hint"}
SYMBOL_KINDS = [
    "File",
    "Module",
    "Namespace",
    "Package",
    "Class",
    "Method",
    "Property",
    "Field",
    "Constructor",
    "Enum",
    "Interface",
    "Function",
    "Variable",
    "Constant",
    "String",
    "Number",
    "Boolean",
    "Array",
    "Object",
    "Key",
    "Null",
    "EnumMember",
    "Struct",
    "Event",
    "Operator",
    "TypeParameter",
]
DEFAULT_LIMIT = 50


def bounded(lines: list[str], limit: int, noun: str, indent: str = "  ") -> list[str]:
    """``lines`` cut to ``limit``, with a last line saying how many were left out."""
    if len(lines) <= limit:
        return lines
    return [*lines[:limit], f"{indent}… {len(lines) - limit} more {noun}"]


def kind_name(kind: int | None) -> str:
    return SYMBOL_KINDS[kind - 1] if kind and 0 < kind <= len(SYMBOL_KINDS) else "Symbol"


def format_location(uri: str, range_: dict[str, Any], cwd: str) -> str:
    start = range_["start"]
    path = relative(file_of(uri), cwd)
    return f"{path}:{start['line'] + 1}:{start['character'] + 1}"


class SourceLines:
    """Files' lines read once per result, for the context under each location."""

    def __init__(self) -> None:
        self._files: dict[str, list[str]] = {}

    def line(self, uri: str, number: int) -> str | None:
        path = file_of(uri)
        if path not in self._files:
            self._files[path] = read_lines(path)
        lines = self._files[path]
        return lines[number] if 0 <= number < len(lines) else None


def with_context(
    found: list[tuple[str, dict[str, Any]]], cwd: str, limit: int, noun: str
) -> list[str]:
    """One entry a location, ``path:line:col`` and under it its line of source."""
    source = SourceLines()
    entries: list[str] = []
    for uri, range_ in found[:limit]:
        entry = f"  {format_location(uri, range_, cwd)}"
        text = source.line(uri, range_["start"]["line"])
        if text is not None:
            entry += f"\n    {range_['start']['line'] + 1}: {text.strip()}"
        entries.append(entry)
    if len(found) > limit:
        entries.append(f"  … {len(found) - limit} more {noun}")
    return entries


def format_diagnostic(diagnostic: dict[str, Any], rel_path: str) -> str:
    start = diagnostic["range"]["start"]
    severity = SEVERITIES.get(diagnostic.get("severity") or 1, "error")
    source = f"[{diagnostic['source']}] " if diagnostic.get("source") else ""
    code = f" ({diagnostic['code']})" if diagnostic.get("code") not in (None, "") else ""
    message = " ".join(str(diagnostic.get("message", "")).split())
    where = f"{rel_path}:{start['line'] + 1}:{start['character'] + 1}"
    return f"{where} [{severity}] {source}{message}{code}"


def sort_diagnostics(diagnostics: list[dict[str, Any]]) -> list[dict[str, Any]]:
    def key(d: dict[str, Any]) -> tuple[int, int, int, str]:
        start = d["range"]["start"]
        return (d.get("severity") or 1, start["line"], start["character"], d.get("message", ""))

    unique = {
        (
            d["range"]["start"]["line"],
            d["range"]["start"]["character"],
            d["range"]["end"]["line"],
            d["range"]["end"]["character"],
            d.get("message", ""),
        ): d
        for d in diagnostics
    }
    return sorted(unique.values(), key=key)


def diagnostics_summary(diagnostics: list[dict[str, Any]]) -> str:
    counts = {name: 0 for name in SEVERITIES.values()}
    for d in diagnostics:
        counts[SEVERITIES.get(d.get("severity") or 1, "error")] += 1
    parts = [f"{n} {name}(s)" for name, n in counts.items() if n]
    return ", ".join(parts) if parts else "no issues"


def format_document_symbols(symbols: list[dict[str, Any]], indent: int = 0) -> list[str]:
    """DocumentSymbol trees (indented by depth) or flat SymbolInformation lists."""
    lines: list[str] = []
    for symbol in symbols:
        range_ = symbol.get("range") or symbol.get("location", {}).get("range")
        line = range_["start"]["line"] + 1 if range_ else 0
        detail = f" {symbol['detail']}" if symbol.get("detail") else ""
        lines.append(
            f"{'  ' * indent}{kind_name(symbol.get('kind'))} {symbol['name']}{detail} @ line {line}"
        )
        lines.extend(format_document_symbols(symbol.get("children") or [], indent + 1))
    return lines


def format_workspace_symbol(symbol: dict[str, Any], cwd: str) -> str:
    location = symbol.get("location") or {}
    range_ = location.get("range") or {"start": {"line": 0, "character": 0}}
    container = f" ({symbol['containerName']})" if symbol.get("containerName") else ""
    where = format_location(location.get("uri", ""), range_, cwd)
    return f"{kind_name(symbol.get('kind'))} {symbol['name']}{container} @ {where}"


def hover_text(contents: Any) -> str:
    """Plain text of a Hover's contents (MarkupContent, MarkedString or a list)."""
    if isinstance(contents, str):
        return contents
    if isinstance(contents, list):
        return "\n\n".join(hover_text(c) for c in contents)
    if isinstance(contents, dict) and isinstance(contents.get("value"), str):
        return str(contents["value"])
    return str(contents)


def format_code_action(action: dict[str, Any], index: int) -> str:
    kind = action.get("kind") or "action"
    preferred = " (preferred)" if action.get("isPreferred") else ""
    disabled = action.get("disabled")
    off = f" (disabled: {disabled.get('reason', '')})" if isinstance(disabled, dict) else ""
    return f"{index}: [{kind}] {action.get('title', '')}{preferred}{off}"
