"""Glob patterns (find's ``pattern``, grep's ``glob``) and grep's file types.

A glob without ``/`` matches a name at any depth (``*.md``); one with ``/`` matches the
path relative to the search folder (``src/*.ts``; a leading ``/`` or ``./`` is
dropped). ``*`` and ``?`` stay within one path segment, ``**`` spans segments
(``**/*.py``, ``src/**``), ``[abc]``/``[!abc]`` are classes and ``{a,b}`` alternatives.
"""

from __future__ import annotations

import re
from collections.abc import Callable

FILE_TYPES: dict[str, tuple[str, ...]] = {
    "py": (".py", ".pyi"),
    "js": (".js", ".mjs", ".cjs", ".jsx"),
    "ts": (".ts", ".tsx", ".mts", ".cts"),
    "rust": (".rs",),
    "go": (".go",),
    "java": (".java",),
    "c": (".c", ".h"),
    "cpp": (".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h", ".inl"),
    "md": (".md", ".markdown", ".mdx"),
    "json": (".json", ".jsonl", ".jsonc"),
    "yaml": (".yaml", ".yml"),
    "toml": (".toml",),
    "sh": (".sh", ".bash", ".zsh"),
    "html": (".html", ".htm", ".xhtml"),
    "css": (".css", ".scss", ".sass", ".less"),
}
TYPE_ALIASES = {
    "python": "py",
    "javascript": "js",
    "typescript": "ts",
    "rs": "rust",
    "golang": "go",
    "markdown": "md",
    "yml": "yaml",
    "bash": "sh",
    "shell": "sh",
    "c++": "cpp",
}


def type_extensions(name: str) -> tuple[str, ...] | None:
    """The extensions of file type ``name`` (or an alias), None if unknown."""
    key = name.strip().lower().lstrip(".")
    return FILE_TYPES.get(TYPE_ALIASES.get(key, key))


def glob_to_regex(glob: str) -> str:
    """The regular expression (anchored, for ``fullmatch``) of a glob."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "*":
            if glob.startswith("**", i):
                at_start = i == 0 or glob[i - 1] == "/"
                after = i + 2
                if at_start and after < n and glob[after] == "/":
                    out.append("(?:.*/)?")
                    i = after + 1
                    continue
                if at_start and after == n:
                    out.append(".*")
                    i = after
                    continue
                i = after
            else:
                i += 1
            out.append("[^/]*")
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            end = _class_end(glob, i)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = glob[i + 1 : end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end + 1
                continue
        elif c == "{":
            end = glob.find("}", i)
            if end < 0:
                out.append(re.escape(c))
            else:
                options = glob[i + 1 : end].split(",")
                out.append("(?:" + "|".join(glob_to_regex(o) for o in options) + ")")
                i = end + 1
                continue
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _class_end(glob: str, start: int) -> int:
    i = start + 1
    if i < len(glob) and glob[i] in "!^":
        i += 1
    if i < len(glob) and glob[i] == "]":
        i += 1
    return glob.find("]", i)


def compile_glob(glob: str) -> Callable[[str, str], bool]:
    """A test ``(rel_path, name) -> bool`` for a glob; re.error if it is malformed."""
    pattern = glob.strip()
    while pattern.startswith("./"):
        pattern = pattern[2:]
    pattern = pattern.lstrip("/").rstrip("/") or "**"
    fullmatch = _fullmatcher(glob_to_regex(pattern))
    if "/" in pattern:
        return lambda rel, name: fullmatch(rel)
    return lambda rel, name: fullmatch(name)


def _fullmatcher(source: str) -> Callable[[str], bool]:
    regex = re.compile(source, re.DOTALL)
    fast = None
    if source.count("*") > 2:
        # Python's re takes time of the order of len(text) ** stars on a text that
        # almost matches; RE2's is linear.
        from omp_tool_search.engine import compile_re2
        from omp_tool_search.translate import translate

        fast = compile_re2(translate(source, re.DOTALL))
    if fast is None:
        return lambda text: regex.fullmatch(text) is not None

    def fullmatch(text: str) -> bool:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a name that is not UTF-8 (surrogate escapes)
            return regex.fullmatch(text) is not None
        return fast.fullmatch(data) is not None

    return fullmatch
