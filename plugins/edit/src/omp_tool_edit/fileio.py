"""Files for ``write`` and ``edit``: paths against the session cwd, text that keeps its
BOM and line endings. Writing goes through the kernel's ``omp.config.atomic_write``: the file
holds its old bytes or its new ones whatever kills the process."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from omp import tool_cwd

BOM = "\ufeff"
ENCODING = "utf-8"
ERRORS = "surrogateescape"
"""Bytes that are not UTF-8 survive a decode/encode round trip unchanged."""


def shown(ctx: Any, abs_path: str) -> str:
    """How a path is named to the model: relative to the cwd when inside it."""
    cwd = tool_cwd(ctx)
    try:
        rel = os.path.relpath(abs_path, cwd)
    except ValueError:
        return abs_path
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return abs_path
    return rel


def editor_text(ctx: Any, path: str) -> bytes | None:
    """The file as the user's editor holds it (``ctx.files``: unsaved edits included),
    or None: use the disk."""
    files = getattr(ctx, "files", None)
    text = files.read_text(path) if files is not None else None
    return text.encode(ENCODING, ERRORS) if text is not None else None


def written_by_editor(ctx: Any, path: str, data: bytes) -> bool:
    """Whether the user's editor wrote ``data`` to ``path`` (``ctx.files``); False: the
    caller writes the disk."""
    files = getattr(ctx, "files", None)
    return bool(files is not None and files.write_text(path, data.decode(ENCODING, ERRORS)))


def reason(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()


def read_only(target: str, st: os.stat_result) -> str | None:
    """Why an existing file must not be written, or None.

    A file with no write bit at all is read-only for everyone: root would be let
    through by the kernel, but the user marked the file so it would not change.
    """
    mode = stat.S_IMODE(st.st_mode)
    if not mode & 0o222:
        return f"it is read-only (mode {mode:04o})"
    if not os.access(target, os.W_OK):
        return "permission denied"
    return None


def count_lines(text: str) -> int:
    """Lines as an editor counts them: a final line without a newline counts too."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


@dataclass
class TextFile:
    """A file's text normalised for matching (``\\n`` line ends, no BOM) and what is
    needed to write an edited version back in the file's own conventions."""

    text: str
    bom: bool
    eol: str
    """The dominant line ending, given to new lines."""
    raw: str | None
    """The text with its original line endings, kept only when they are mixed."""

    @classmethod
    def decode(cls, data: bytes) -> TextFile:
        raw = data.decode(ENCODING, ERRORS)
        bom = raw.startswith(BOM)
        if bom:
            raw = raw[1:]
        crlf = raw.count("\r\n")
        lf = raw.count("\n") - crlf
        eol = "\r\n" if crlf > lf else "\n"
        text = raw.replace("\r\n", "\n") if crlf else raw
        return cls(text, bom, eol, raw if crlf and lf else None)

    def encode(self, new_text: str) -> bytes:
        """``new_text`` (normalised) in the file's encoding, BOM and line endings.
        UnicodeEncodeError when it holds a character UTF-8 cannot encode."""
        if self.raw is not None:
            body = _restore_mixed(self.raw, new_text, self.eol)
        elif self.eol == "\r\n":
            body = new_text.replace("\n", "\r\n")
        else:
            body = new_text
        return ((BOM if self.bom else "") + body).encode(ENCODING, ERRORS)


def _restore_mixed(raw: str, new_text: str, eol: str) -> str:
    """A file with mixed line endings: lines the edits left alone keep their own
    ending; new and changed lines get the dominant one."""
    old_lines: list[str] = []
    old_ends: list[str] = []
    for piece in raw.split("\n")[:-1]:
        if piece.endswith("\r"):
            old_lines.append(piece[:-1])
            old_ends.append("\r\n")
        else:
            old_lines.append(piece)
            old_ends.append("\n")
    old_lines.append(raw.split("\n")[-1])
    new_lines = new_text.split("\n")
    new_ends = [eol] * (len(new_lines) - 1)
    matcher = SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            continue
        for offset in range(i2 - i1):
            i, j = i1 + offset, j1 + offset
            if i < len(old_ends) and j < len(new_ends):
                new_ends[j] = old_ends[i]
    return (
        "".join(line + end for line, end in zip(new_lines, new_ends, strict=False))
        + (new_lines[-1])
    )
