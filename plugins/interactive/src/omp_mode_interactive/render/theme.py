"""Colours of the terminal UI: dark, light, and none at all (``NO_COLOR``).

Roles map to SGR parameters, written straight into the output, so a status line costs
no rich import; the Markdown half (``markdown_styles``, ``code_theme``) is handed to
rich when an answer is rendered.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

RESET = "\x1b[0m"


@dataclass(frozen=True)
class Theme:
    """``styles``: role -> SGR parameters (``"1;31"``); ``color_system`` is rich's
    name (``"truecolor"``, ``"256"``) or None, which means no escape codes at all."""

    name: str
    styles: Mapping[str, str] = field(default_factory=dict)
    markdown_styles: Mapping[str, str] = field(default_factory=dict)
    code_theme: str = "monokai"
    color_system: str | None = "256"

    @property
    def colored(self) -> bool:
        return self.color_system is not None

    def paint(self, text: str, role: str) -> str:
        """``text`` in the role's style (unchanged without colours or for an unknown role)."""
        sgr = self.styles.get(role) if self.color_system else None
        if not sgr or not text:
            return text
        return f"\x1b[{sgr}m{text}{RESET}"

    @classmethod
    def dark(cls, color_system: str | None = None) -> Theme:
        return cls("dark", DARK, DARK_MARKDOWN, "monokai", color_system or _color_system())

    @classmethod
    def light(cls, color_system: str | None = None) -> Theme:
        return cls("light", LIGHT, LIGHT_MARKDOWN, "friendly", color_system or _color_system())

    @classmethod
    def no_color(cls) -> Theme:
        return cls("no-color", {}, {}, "monokai", None)

    @classmethod
    def from_environment(
        cls, name: str | None = None, env: Mapping[str, str] | None = None
    ) -> Theme:
        """``NO_COLOR`` (any non-empty value) wins; then ``name`` ("dark", "light");
        then ``COLORFGBG`` (a light background when its last field is 7 or 15)."""
        env = os.environ if env is None else env
        if env.get("NO_COLOR"):
            return cls.no_color()
        if name is None:
            background = env.get("COLORFGBG", "").rsplit(";", 1)[-1]
            name = "light" if background in ("7", "15") else "dark"
        system = _color_system(env)
        if name == "light":
            return cls.light(system)
        if name == "dark":
            return cls.dark(system)
        raise ValueError(f"unknown theme {name!r}: use dark or light")


def choose_theme(settings: Any) -> Theme:
    """The theme of the ``theme`` setting ("dark", "light"), NO_COLOR winning."""
    name = settings.get("theme")
    try:
        return Theme.from_environment(name if name in ("dark", "light") else None)
    except ValueError:
        return Theme.dark()


def _color_system(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    return "truecolor" if env.get("COLORTERM", "") in ("truecolor", "24bit") else "256"


DARK = {
    "accent": "38;5;75",
    "dim": "2",
    "muted": "38;5;246",
    "thinking": "2;3",
    "user": "1;38;5;255;48;5;237",
    "tool": "1;38;5;75",
    "tool_running": "38;5;214",
    "tool_ok": "38;5;114",
    "error": "38;5;203",
    "error_title": "1;38;5;203",
    "warning": "38;5;214",
    "success": "38;5;114",
    "info": "38;5;75",
    "diff_add": "38;5;114",
    "diff_del": "38;5;203",
    "diff_hunk": "38;5;80",
    "diff_meta": "1",
    "footer": "38;5;250",
    "footer_dim": "38;5;244",
    "ctx_warn": "38;5;214",
    "ctx_full": "38;5;203",
    "status": "38;5;75",
}

LIGHT = {
    **DARK,
    "accent": "38;5;25",
    "muted": "38;5;242",
    "user": "1;38;5;232;48;5;254",
    "tool": "1;38;5;25",
    "tool_running": "38;5;130",
    "tool_ok": "38;5;28",
    "error": "38;5;160",
    "error_title": "1;38;5;160",
    "warning": "38;5;130",
    "success": "38;5;28",
    "info": "38;5;25",
    "diff_add": "38;5;28",
    "diff_del": "38;5;160",
    "diff_hunk": "38;5;30",
    "footer": "38;5;238",
    "footer_dim": "38;5;244",
    "ctx_warn": "38;5;130",
    "ctx_full": "38;5;160",
    "status": "38;5;25",
}

DARK_MARKDOWN = {
    "markdown.h1": "bold bright_white",
    "markdown.h2": "bold bright_white",
    "markdown.h3": "bold",
    "markdown.code": "bold color(180)",
    "markdown.link": "color(75)",
    "markdown.link_url": "color(75) underline",
    "markdown.block_quote": "color(246)",
    "markdown.item.bullet": "color(75)",
    "markdown.item.number": "color(75)",
    "markdown.hr": "color(240)",
}

LIGHT_MARKDOWN = {
    "markdown.h1": "bold black",
    "markdown.h2": "bold black",
    "markdown.h3": "bold",
    "markdown.code": "bold color(130)",
    "markdown.link": "color(25)",
    "markdown.link_url": "color(25) underline",
    "markdown.block_quote": "color(242)",
    "markdown.item.bullet": "color(25)",
    "markdown.item.number": "color(25)",
    "markdown.hr": "color(250)",
}
