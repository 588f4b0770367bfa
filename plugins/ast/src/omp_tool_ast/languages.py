"""Which ast-grep language parses a file: by its extension, or the ``lang`` the model
names (with the usual aliases)."""

from __future__ import annotations

import os

EXTENSIONS: dict[str, str] = {
    **dict.fromkeys(("sh", "bash", "zsh"), "bash"),
    **dict.fromkeys(("c", "h"), "c"),
    **dict.fromkeys(("cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "cu", "cuh", "ino"), "cpp"),
    "cs": "csharp",
    **dict.fromkeys(("css", "scss"), "css"),
    **dict.fromkeys(("ex", "exs"), "elixir"),
    "go": "go",
    "hs": "haskell",
    **dict.fromkeys(("hcl", "tf"), "hcl"),
    **dict.fromkeys(("html", "htm", "xhtml"), "html"),
    "java": "java",
    **dict.fromkeys(("js", "mjs", "cjs", "jsx"), "javascript"),
    "json": "json",
    **dict.fromkeys(("kt", "kts", "ktm"), "kotlin"),
    "lua": "lua",
    "nix": "nix",
    "php": "php",
    **dict.fromkeys(("py", "pyi", "py3", "bzl"), "python"),
    **dict.fromkeys(("rb", "rbw", "gemspec"), "ruby"),
    "rs": "rust",
    **dict.fromkeys(("scala", "sc", "sbt"), "scala"),
    "sol": "solidity",
    "swift": "swift",
    **dict.fromkeys(("ts", "mts", "cts"), "typescript"),
    "tsx": "tsx",
    **dict.fromkeys(("yml", "yaml"), "yaml"),
}

LANGUAGES = frozenset(EXTENSIONS.values())

ALIASES = {
    "py": "python",
    "js": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "rs": "rust",
    "golang": "go",
    "c++": "cpp",
    "cs": "csharp",
    "c#": "csharp",
    "sh": "bash",
    "shell": "bash",
    "yml": "yaml",
    "rb": "ruby",
    "kt": "kotlin",
}

_FAMILIES = ({"c", "cpp"}, {"javascript", "typescript", "tsx"})


class LanguageError(ValueError):
    """An unknown ``lang``."""


def language_named(name: str) -> str:
    """The ast-grep language for a ``lang`` parameter; LanguageError names the known ones."""
    key = name.strip().lower()
    lang = ALIASES.get(key, key)
    if lang not in LANGUAGES:
        known = ", ".join(sorted(LANGUAGES))
        raise LanguageError(f"Unknown language {name!r}; use one of: {known}")
    return lang


def language_of(path: str) -> str | None:
    """The language a file's extension implies, or None."""
    ext = os.path.splitext(path)[1][1:].lower()
    return EXTENSIONS.get(ext)


def parses_as(path: str, lang: str | None) -> str | None:
    """The language to parse ``path`` with: ``lang`` when the file is of that language
    or a close one (a ``.h`` file as C++, a ``.js`` file as TypeScript), else its own;
    None when the file is skipped."""
    own = language_of(path)
    if lang is None or own is None:
        return own
    if own == lang or any(own in family and lang in family for family in _FAMILIES):
        return lang
    return None
