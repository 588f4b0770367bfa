"""Rendering of session events to the terminal: Markdown, thinking, tools, footer.

``Transcript`` turns events into finished output (printed once into the scrollback)
and a live tail; ``render_footer`` draws the status lines; ``Theme`` holds the colours.
rich is imported only when an answer is first rendered.
"""

from omp_mode_interactive.render.footer import FooterInfo, render_footer
from omp_mode_interactive.render.theme import Theme
from omp_mode_interactive.render.transcript import Transcript

__all__ = ["FooterInfo", "Theme", "Transcript", "render_footer"]
