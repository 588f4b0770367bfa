"""Applying a server's WorkspaceEdit to the user's files, all of it or none of it.

Every edit is validated (no snippets, no overlaps) before any file changes; files are
written with ``omp.write_file`` (atomic each), and when a later step fails the earlier
ones are undone, so a rename across files never leaves half the workspace renamed.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omp import write_file

from omp_lsp.positions import file_of, relative
from omp_lsp.uris import col_from_utf16


class EditError(Exception):
    """A workspace edit that cannot be applied; nothing was changed."""


@dataclass
class Op:
    kind: str  # "text" | "create" | "rename" | "delete"
    path: str
    edits: list[dict[str, Any]] = field(default_factory=list)
    target: str = ""
    options: dict[str, Any] = field(default_factory=dict)


def plan(edit: dict[str, Any]) -> list[Op]:
    """The edit's operations in order: ``changes`` first, then ``documentChanges``."""
    ops: list[Op] = []
    for uri, edits in (edit.get("changes") or {}).items():
        if edits:
            ops.append(Op("text", file_of(uri), list(edits)))
    for change in edit.get("documentChanges") or []:
        kind = change.get("kind")
        if kind is None and "textDocument" in change:
            edits = [e for e in change.get("edits", []) if "range" in e and "newText" in e]
            if edits:
                ops.append(Op("text", file_of(change["textDocument"]["uri"]), edits))
        elif kind in ("create", "delete"):
            ops.append(Op(kind, file_of(change["uri"]), options=change.get("options") or {}))
        elif kind == "rename":
            ops.append(
                Op(
                    "rename",
                    file_of(change["oldUri"]),
                    target=file_of(change["newUri"]),
                    options=change.get("options") or {},
                )
            )
    return ops


def text_edits_by_path(edit: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Every text edit of ``edit``, grouped by file (resource operations left out)."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for op in plan(edit):
        if op.kind == "text":
            grouped.setdefault(op.path, []).extend(op.edits)
    return grouped


def _line_starts(content: str) -> list[int]:
    starts = [0]
    index, size = 0, len(content)
    while index < size:
        char = content[index]
        if char == "\r" and index + 1 < size and content[index + 1] == "\n":
            index += 1
        if char in "\r\n":
            starts.append(index + 1)
        index += 1
    return starts


def _offset(content: str, starts: list[int], position: dict[str, int]) -> int:
    line = position["line"]
    if line >= len(starts):
        return len(content)
    begin = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(content)
    text = content[begin:end].rstrip("\r\n")
    return begin + col_from_utf16(text, position["character"])


def _describe(edit: dict[str, Any]) -> str:
    start, end = edit["range"]["start"], edit["range"]["end"]
    return f"{start['line'] + 1}:{start['character'] + 1}-{end['line'] + 1}:{end['character'] + 1}"


def validate(edits: list[dict[str, Any]]) -> None:
    """Refuse snippet edits and edits whose ranges overlap."""
    if any(e.get("insertTextFormat") == 2 for e in edits):
        raise EditError("snippet-formatted LSP edits are unsupported")

    def key(e: dict[str, Any]) -> tuple[int, int, int, int]:
        s, t = e["range"]["start"], e["range"]["end"]
        return (s["line"], s["character"], t["line"], t["character"])

    ordered = sorted(edits, key=key)
    for earlier, later in itertools.pairwise(ordered):
        if key(earlier) == key(later) and earlier["newText"] == later["newText"]:
            continue
        if key(earlier)[2:] > key(later)[:2]:
            raise EditError(
                f"overlapping LSP edits: {_describe(earlier)} conflicts with {_describe(later)}"
            )


def apply_text_edits(content: str, edits: list[dict[str, Any]]) -> str:
    """``content`` with ``edits`` (LSP TextEdits against it) applied."""
    validate(edits)
    starts = _line_starts(content)
    spans: list[tuple[int, int, int, str]] = []
    seen: set[tuple[int, int, str]] = set()
    for order, edit in enumerate(edits):
        begin = _offset(content, starts, edit["range"]["start"])
        end = _offset(content, starts, edit["range"]["end"])
        if begin != end and (begin, end, edit["newText"]) in seen:
            continue
        seen.add((begin, end, edit["newText"]))
        spans.append((begin, end, order, edit["newText"]))
    # Bottom-up, so earlier offsets stay valid; inserts at one place keep array order.
    for begin, end, _, text in sorted(spans, key=lambda s: (s[0], s[2]), reverse=True):
        content = content[:begin] + text + content[end:]
    return content


def _read(path: str) -> str:
    try:
        return Path(path).read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise EditError(f"file not found: {path}") from None
    except UnicodeDecodeError:
        raise EditError(f"not a UTF-8 text file: {path}") from None


class _Undo:
    """What was done so far, and how to take it back."""

    def __init__(self) -> None:
        self.steps: list[Callable[[], object]] = []

    def rollback(self) -> None:
        for step in reversed(self.steps):
            try:
                step()
            except OSError:
                pass


def _restore(path: str, data: bytes | None) -> Callable[[], object]:
    if data is None:
        return lambda: Path(path).unlink(missing_ok=True)
    return lambda: write_file(path, data)


def _run(op: Op, undo: _Undo, cwd: str) -> str:
    rel = relative(op.path, cwd)
    if op.kind == "text":
        before = Path(op.path).read_bytes() if os.path.exists(op.path) else None
        after = apply_text_edits(_read(op.path), op.edits)
        undo.steps.append(_restore(op.path, before))
        write_file(op.path, after.encode("utf-8"))
        return f"Applied {len(op.edits)} edit(s) to {rel}"
    if op.kind == "create":
        exists = os.path.exists(op.path)
        if exists and (op.options.get("ignoreIfExists") or not op.options.get("overwrite")):
            return f"Kept existing {rel}"
        before = Path(op.path).read_bytes() if os.path.exists(op.path) else None
        Path(op.path).parent.mkdir(parents=True, exist_ok=True)
        undo.steps.append(_restore(op.path, before))
        write_file(op.path, b"")
        return f"Created {rel}"
    if op.kind == "rename":
        if os.path.exists(op.target) and not op.options.get("overwrite"):
            if op.options.get("ignoreIfExists"):
                return f"Kept existing {relative(op.target, cwd)}"
            raise EditError(f"rename target already exists: {relative(op.target, cwd)}")
        move(op.path, op.target, undo)
        return f"Renamed {rel} → {relative(op.target, cwd)}"
    if not os.path.exists(op.path):
        if op.options.get("ignoreIfNotExists"):
            return f"Skipped missing {rel}"
        raise EditError(f"cannot delete missing {rel}")
    if os.path.isdir(op.path):
        raise EditError(f"deleting a directory is unsupported: {rel}")
    before_bytes = Path(op.path).read_bytes()
    os.unlink(op.path)
    undo.steps.append(lambda: write_file(op.path, before_bytes))
    return f"Deleted {rel}"


def move(source: str, dest: str, undo: _Undo) -> None:
    """Move ``source`` to ``dest`` (parents made), recording how to move it back."""
    parent = Path(dest).parent
    made = [p for p in [parent, *parent.parents] if not p.exists()]
    parent.mkdir(parents=True, exist_ok=True)
    os.rename(source, dest)

    def back() -> None:
        os.rename(dest, source)
        for directory in made:
            try:
                directory.rmdir()
            except OSError:
                break

    undo.steps.append(back)


def apply_workspace_edit(
    edit: dict[str, Any], cwd: str, then_move: tuple[str, str] | None = None
) -> list[str]:
    """Apply ``edit`` (and then move ``then_move`` = (source, dest)), all or nothing.

    Returns one line per change, paths relative to ``cwd``. Raises EditError (the
    workspace as it was) when any step fails.
    """
    ops = plan(edit)
    for op in ops:
        if op.kind == "text":
            validate(op.edits)
    undo = _Undo()
    applied: list[str] = []
    try:
        for op in ops:
            applied.append(_run(op, undo, cwd))
        if then_move is not None:
            move(*then_move, undo)
    except EditError:
        undo.rollback()
        raise
    except OSError as exc:
        undo.rollback()
        where = relative(str(exc.filename or ""), cwd)
        raise EditError(f"{exc.strerror or exc} ({where})") from None
    return applied


def summarize(edit: dict[str, Any], cwd: str) -> list[str]:
    """What ``edit`` would change, one line a file or resource operation (a preview)."""
    lines: list[str] = []
    for op in plan(edit):
        rel = relative(op.path, cwd)
        if op.kind == "text":
            lines.append(f"{rel}: {len(op.edits)} edit{'s' if len(op.edits) != 1 else ''}")
            for e in op.edits[:5]:
                start = e["range"]["start"]
                text = e["newText"].replace("\n", "\\n")
                text = text if len(text) <= 50 else text[:50] + "…"
                lines.append(f'  line {start["line"] + 1}:{start["character"] + 1} → "{text}"')
            if len(op.edits) > 5:
                lines.append(f"  … {len(op.edits) - 5} more")
        elif op.kind == "rename":
            lines.append(f"RENAME: {rel} → {relative(op.target, cwd)}")
        else:
            lines.append(f"{op.kind.upper()}: {rel}")
    return lines
