"""Rendering of session events to the terminal: Markdown, thinking, tools, footer.

``Transcript`` turns events into finished output (printed once into the scrollback)
and a live tail; ``render_footer`` draws the status lines; ``Theme`` holds the colours.
rich is imported only when an answer is first rendered. The names load on first use,
so the instant prompt (footer and theme only) does not wait for the transcript's
modules.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_WHERE = {
    "FooterInfo": "footer",
    "render_footer": "footer",
    "Theme": "theme",
    "Transcript": "transcript",
}
__all__ = ["FooterInfo", "Theme", "Transcript", "render_footer"]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{module}"), name)
