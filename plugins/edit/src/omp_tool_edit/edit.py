"""The ``edit`` tool: replace text in a file, all edits or none, keeping the file's line
endings, BOM, owner, mode and extended attributes, written atomically (``omp.config.atomic_write``);
the result has a short summary and a unified diff."""

from __future__ import annotations

import difflib
import os
import stat
from pathlib import Path
from typing import Any

from omp import NotRestored, Tool, ToolResult, resolve_path, tool_cwd, write_file
from pydantic import BaseModel, Field

from omp_tool_edit.fileio import (
    TextFile,
    editor_text,
    read_only,
    reason,
    shown,
    written_by_editor,
)
from omp_tool_edit.matching import Edit, EditError, apply_edits

MAX_BYTES = 16 * 1024 * 1024
"""Larger files are refused (they are not source a model should edit by text)."""
DIFF_CONTEXT = 3


class EditOp(BaseModel):
    oldText: str = Field(min_length=1, description="Exact text to find (unique in the file).")
    newText: str = Field(description="Text to put in its place.")
    replaceAll: bool = Field(default=False, description="Replace every match of oldText.")


class EditParams(BaseModel):
    path: str = Field(description="File to edit, relative to the working directory or absolute.")
    edits: list[EditOp] = Field(
        min_length=1, description="Replacements, applied in order; all succeed or none."
    )


class EditTool(Tool):
    name = "edit"
    label = "Edit"
    description = (
        "Edit a file by replacing text. Each oldText must match the file exactly and "
        "uniquely (unless replaceAll); edits apply in order, all or none. "
        "Use write to create a file."
    )
    parameters = EditParams

    def execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        abs_path = resolve_path(params.path, tool_cwd(ctx))
        name = shown(ctx, abs_path)
        target = os.path.realpath(abs_path)  # edit through a symlink, keep the link
        details: dict[str, Any] = {"path": abs_path}
        unchanged = f"\nNo edits were applied; {name} is unchanged."

        try:
            st = os.stat(target)
        except (FileNotFoundError, NotADirectoryError):
            return ToolResult.error(f"File not found: {name}. Use write to create it.", details)
        except OSError as exc:
            return ToolResult.error(f"Cannot edit {name}: {reason(exc)}.", details)
        if stat.S_ISDIR(st.st_mode):
            return ToolResult.error(f"{name} is a directory, not a file.", details)
        if not stat.S_ISREG(st.st_mode):
            return ToolResult.error(f"Cannot edit {name}: it is not a regular file.", details)
        if st.st_size > MAX_BYTES:
            return ToolResult.error(
                f"Cannot edit {name}: it is {st.st_size:,} bytes, over the "
                f"{MAX_BYTES // (1024 * 1024)} MiB edit limit.",
                details,
            )
        refusal = read_only(target, st)
        if refusal is not None:
            return ToolResult.error(f"Cannot edit {name}: {refusal}.", details)
        try:
            data = editor_text(ctx, target)
            if data is None:
                with open(target, "rb") as handle:
                    data = handle.read()
        except OSError as exc:
            return ToolResult.error(f"Cannot read {name}: {reason(exc)}.", details)
        if b"\0" in data[:8192]:
            return ToolResult.error(f"Cannot edit {name}: it is a binary file.", details)

        notes = _read_notes(ctx, abs_path, name)
        original = TextFile.decode(data)
        edits = [Edit(_lf(op.oldText), _lf(op.newText), op.replaceAll) for op in params.edits]
        try:
            applied = apply_edits(original.text, edits, name, signal)
        except EditError as exc:
            return ToolResult.error("\n".join([str(exc) + unchanged, *notes]), details)
        if applied.text == original.text:
            return ToolResult.error(f"The edits would not change {name}." + unchanged, details)
        try:
            new_data = original.encode(applied.text)
        except UnicodeEncodeError:
            return ToolResult.error(
                "newText contains characters that cannot be written as UTF-8 "
                "(an unpaired surrogate?)." + unchanged,
                details,
            )
        if signal is not None and signal.aborted:
            return ToolResult.error("Edit aborted." + unchanged, details)
        try:
            if not written_by_editor(ctx, target, new_data):
                write_file(target, new_data)
        except OSError as exc:
            kept = "" if isinstance(exc, NotRestored) else unchanged
            return ToolResult.error(f"Cannot write {name}: {reason(exc)}.{kept}", details)
        ledger = getattr(ctx, "file_reads", None)
        if ledger is not None:
            ledger.record(Path(abs_path), new_data)
        return _summary(name, original.text, applied, notes, details)


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def _lines(text: str) -> list[str]:
    """Lines with their newline (only ``\n`` ends a line, unlike str.splitlines)."""
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def _read_notes(ctx: Any, abs_path: str, name: str) -> list[str]:
    """What the model should know about its view of the file being out of date."""
    ledger = getattr(ctx, "file_reads", None)
    if ledger is None:
        return []
    changed = ledger.changed_since_read(Path(abs_path))
    if changed is None:
        return [f"note: {name} was not read in this session before this edit"]
    if changed:
        return [f"note: {name} changed on disk since you last read it"]
    return []


def _summary(
    name: str, before: str, applied: Any, notes: list[str], details: dict[str, Any]
) -> ToolResult:
    old_lines, new_lines = _lines(before), _lines(applied.text)
    diff_lines = list(
        difflib.unified_diff(old_lines, new_lines, f"a/{name}", f"b/{name}", n=DIFF_CONTEXT)
    )
    diff = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
        for line in diff_lines
    )
    body = diff_lines[2:]  # after the ---/+++ header
    added = sum(1 for line in body if line[:1] == "+")
    removed = sum(1 for line in body if line[:1] == "-")
    first = next(
        (i for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=False)) if a != b),
        min(len(old_lines), len(new_lines)),
    )
    count = applied.replacements
    lines = [
        f"Edited {name}: {count} replacement{'s' if count != 1 else ''}, +{added} -{removed} lines"
    ]
    for index, at in applied.fuzzy:
        where = ("line " if len(at) == 1 else "lines ") + ", ".join(str(n) for n in at)
        lines.append(
            f"edits[{index}] matched ignoring whitespace differences ({where}); "
            "newText was re-indented to fit."
        )
    lines += notes
    details.update(
        diff=diff,
        replacements=count,
        fuzzy=bool(applied.fuzzy),
        firstChangedLine=first + 1,
    )
    return ToolResult.text("\n".join(lines), details)
