"""The ``write`` tool: create a file (and its directories) or write into an existing one."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from omp import NotRestored, Tool, ToolResult, resolve_path, tool_cwd, write_file
from pydantic import BaseModel, Field

from omp_tool_edit.fileio import (
    count_lines,
    read_only,
    reason,
    shown,
    written_by_editor,
)


class WriteParams(BaseModel):
    path: str = Field(description="File to write, relative to the working directory or absolute.")
    content: str = Field(description="The complete content of the file.")


class WriteTool(Tool):
    name = "write"
    label = "Write"
    description = (
        "Write content to a file, creating it and its parent directories, or replacing "
        "the whole file if it exists. Prefer edit to change part of a file."
    )
    parameters = WriteParams

    def execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        abs_path = resolve_path(params.path, tool_cwd(ctx))
        name = shown(ctx, abs_path)
        target = os.path.realpath(abs_path)  # write through a symlink, keep the link
        details: dict[str, Any] = {"path": abs_path}

        try:
            st: os.stat_result | None = os.stat(target)
        except FileNotFoundError:
            st = None
        except NotADirectoryError:
            return ToolResult.error(
                f"Cannot write {name}: a parent of it is a file, not a directory.", details
            )
        except OSError as exc:
            return ToolResult.error(f"Cannot write {name}: {reason(exc)}.", details)
        if st is not None:
            if stat.S_ISDIR(st.st_mode):
                return ToolResult.error(
                    f"{name} is a directory; give the path of a file to write.", details
                )
            if not stat.S_ISREG(st.st_mode):
                return ToolResult.error(f"Cannot write {name}: it is not a regular file.", details)
            refusal = read_only(target, st)
            if refusal is not None:
                return ToolResult.error(f"Cannot write {name}: {refusal}.", details)
        try:
            data = params.content.encode("utf-8")
        except UnicodeEncodeError:
            return ToolResult.error(
                "content contains characters that cannot be written as UTF-8 "
                "(an unpaired surrogate?); nothing was written.",
                details,
            )
        if signal is not None and signal.aborted:
            return ToolResult.error("Write aborted; nothing was written.", details)

        parent = os.path.dirname(target)
        try:
            os.makedirs(parent, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            return ToolResult.error(
                f"Cannot write {name}: a parent of it is a file, not a directory.", details
            )
        except OSError as exc:
            return ToolResult.error(
                f"Cannot create the directory of {name}: {reason(exc)}.", details
            )
        try:
            if not written_by_editor(ctx, target, data):
                write_file(target, data)
        except OSError as exc:
            kept = "" if st is None or isinstance(exc, NotRestored) else f"\n{name} is unchanged."
            return ToolResult.error(f"Cannot write {name}: {reason(exc)}.{kept}", details)

        ledger = getattr(ctx, "file_reads", None)
        if ledger is not None:
            ledger.record(Path(abs_path), data)
        lines = count_lines(params.content)
        details.update(bytes=len(data), lines=lines, created=st is None)
        return ToolResult.text(
            f"Wrote {_plural(len(data), 'byte')} ({_plural(lines, 'line')}) to {name}", details
        )


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"
