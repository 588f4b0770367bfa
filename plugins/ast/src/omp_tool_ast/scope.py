"""The files a call covers: each of its paths is a file, a folder or a glob. Folders
and globs are listed by the session's search backend (``ctx.search("find", ...)``),
so .gitignore and .ignore rules hold as for ``find``; a file named outright is taken
even when ignored."""

from __future__ import annotations

import glob as globbing
import os
from dataclasses import dataclass
from typing import Any

from omp import resolve_path, tool_cwd

from omp_tool_ast.languages import parses_as

FIND_LIMIT = 1_000_000


class ScopeError(ValueError):
    """A path that names nothing, or a search that could not run."""


@dataclass(frozen=True, slots=True)
class Target:
    path: str
    """Absolute."""
    shown: str
    """As the model sees it: relative to the cwd when inside it."""
    lang: str


def split_paths(raw: str | list[str] | None) -> list[str]:
    """omp's forms: a list, or one string of semicolon-separated paths; none is the cwd."""
    items = raw if isinstance(raw, list) else (raw or "").split(";")
    return [item.strip() for item in items if item.strip()] or ["."]


def shown(path: str, cwd: str) -> str:
    rel = os.path.relpath(path, cwd)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return path
    return rel.replace(os.sep, "/")


async def targets(ctx: Any, paths: list[str], lang: str | None) -> list[Target]:
    """Every file under ``paths`` that parses in a known language (``lang`` when given),
    each once, sorted by shown path."""
    cwd = tool_cwd(ctx)
    found: dict[str, Target] = {}
    for raw in paths:
        for path, explicit in await _files(ctx, raw, cwd):
            file_lang = lang if explicit and lang else parses_as(path, lang)
            if file_lang is not None and path not in found:
                found[path] = Target(path, shown(path, cwd), file_lang)
    return sorted(found.values(), key=lambda t: t.shown)


async def _files(ctx: Any, raw: str, cwd: str) -> list[tuple[str, bool]]:
    path = resolve_path(raw, cwd)
    if os.path.isfile(path):
        return [(path, True)]
    if os.path.isdir(path):
        return await _find(ctx, path, "**")
    if not globbing.has_magic(raw):
        raise ScopeError(f"Path not found: {raw}")
    base, pattern = _glob_base(raw)
    base_path = resolve_path(base, cwd)
    if not os.path.isdir(base_path):
        raise ScopeError(f"Path not found: {base} (in glob {raw})")
    return await _find(ctx, base_path, pattern)


def _glob_base(raw: str) -> tuple[str, str]:
    """``src/**/*.ts`` -> (``src``, ``**/*.ts``): the folder before the first wildcard."""
    parts = raw.replace(os.sep, "/").split("/")
    fixed: list[str] = []
    for part in parts:
        if globbing.has_magic(part):
            break
        fixed.append(part)
    base = "/".join(fixed) or "."
    if raw.startswith("/") and not fixed[1:]:
        base = "/"
    return base, "/".join(parts[len(fixed) :])


async def _find(ctx: Any, folder: str, pattern: str) -> list[tuple[str, bool]]:
    answer = await ctx.search("find", pattern=pattern, path=folder, limit=FIND_LIMIT)
    error = _field(answer, "error")
    if error:
        raise ScopeError(str(error))
    root = str(_field(answer, "root") or folder)
    return [
        (os.path.join(root, rel), False)
        for rel in _field(answer, "paths") or []
        if not rel.endswith("/")
    ]


def _field(answer: Any, name: str) -> Any:
    """A field of a backend's answer: a dataclass or a dict (see SearchEvent)."""
    return answer.get(name) if isinstance(answer, dict) else getattr(answer, name, None)
