"""rich, behind one small object: Markdown, code and wrapped text to ANSI strings.

One Console per transcript, writing into a capture; rich is imported when the first
answer is rendered, not when the mode starts.
"""

from __future__ import annotations

import re
from typing import Any

from omp_mode_interactive.render.code import highlight
from omp_mode_interactive.render.theme import Theme

_TRAILING = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)$", re.MULTILINE)


class RichRenderer:
    def __init__(self, width: int, theme: Theme) -> None:
        self.width = max(20, width)
        self.theme = theme
        self._console: Any = None
        self._markdown_class: Any = None

    def resize(self, width: int) -> None:
        self.width = max(20, width)
        if self._console is not None:
            self._console.width = self.width

    @property
    def console(self) -> Any:
        if self._console is None:
            from rich.console import Console
            from rich.theme import Theme as RichTheme

            self._console = Console(
                width=self.width,
                height=10_000,
                force_terminal=self.theme.colored,
                color_system=self.theme.color_system,  # type: ignore[arg-type]
                theme=RichTheme(dict(self.theme.markdown_styles)),
                no_color=not self.theme.colored,
                highlight=False,
                emoji=False,
                markup=False,
                legacy_windows=False,
                _environ={},
            )
        return self._console

    def _render(self, renderable: Any) -> str:
        console = self.console
        with console.capture() as capture:
            console.print(renderable)
        return _TRAILING.sub(r"\1", capture.get()).strip("\n")

    def markdown(self, source: str) -> str:
        """``source`` as Markdown: left-aligned headings, code highlighted in the
        theme's code colours without a background box (copying gives the code)."""
        if self._markdown_class is None:
            self._markdown_class = _markdown_class(self.theme)
        markdown = self._markdown_class(
            source, code_theme=self.theme.code_theme, hyperlinks=self.theme.colored
        )
        return self._render(markdown)

    def text(self, text: str, style: str = "", indent: int = 0) -> str:
        """Plain text word-wrapped to the width (less ``indent``), in a rich style."""
        from rich.padding import Padding
        from rich.text import Text

        body = Text(text, style=style if self.theme.colored else "")
        return self._render(Padding(body, (0, 0, 0, indent)) if indent else body)


def _markdown_class(theme: Theme) -> Any:
    from rich.markdown import CodeBlock, Heading, Markdown
    from rich.text import Text

    class LeftHeading(Heading):
        LEVEL_ALIGN = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")  # type: ignore[assignment]

    class PlainCodeBlock(CodeBlock):
        """A code block inside a list or quote: the highlighter the transcript uses."""

        def __rich_console__(self, console: Any, options: Any) -> Any:
            code = highlight(str(self.text), self.lexer_name, theme, options.max_width)
            yield Text.from_ansi(code, no_wrap=True, end="")

    class TerminalMarkdown(Markdown):
        elements = {
            **Markdown.elements,
            "heading_open": LeftHeading,
            "fence": PlainCodeBlock,
            "code_block": PlainCodeBlock,
        }

    return TerminalMarkdown
