"""The prompt drawn at once: before prompt_toolkit is even imported, the editor's
frame and the footer are written with plain escape codes and the terminal stops
echoing, so what the user types waits in the terminal's input queue; the application
then draws over the frame and reads those keys as its first input."""

from __future__ import annotations

import shutil
import sys
from typing import TYPE_CHECKING, Any

from omp_mode_interactive.keys import REPORT_MODIFIED_KEYS, RESET_MODIFIED_KEYS

try:
    import termios
except ImportError:  # not a POSIX terminal: the frame is drawn, echo stays as it is
    termios = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from omp import UI, AgentSession

RULE_SGR = "38;5;59"
PROMPT_SGR = "1;38;5;75"


class InstantPrompt:
    """``draw()`` once; ``release()`` hands the frame's place to the application;
    ``restore()`` gives the terminal back its own settings when the mode ends."""

    def __init__(self) -> None:
        self._saved: Any = None
        self._below = 0
        self.drawn = False
        self._keys_reported = False

    def draw(self, session: AgentSession, ui: UI, theme: Any) -> None:
        self._quiet_terminal()
        from omp_mode_interactive.render.footer import render_footer
        from omp_mode_interactive.status import footer_info

        width = shutil.get_terminal_size().columns
        rule = "─" * width
        prompt = ">"
        if theme.colored:
            rule = f"\x1b[{RULE_SGR}m{rule}\x1b[0m"
            prompt = f"\x1b[{PROMPT_SGR}m>\x1b[0m"
        footer = render_footer(footer_info(session, ui), width, theme)
        lines = [rule, prompt + " ", rule, *footer.split("\n")]
        self._below = len(lines) - 2
        paste = "\x1b[?2004h"  # a paste arrives bracketed, as the editor expects it
        modes = paste + REPORT_MODIFIED_KEYS  # Shift+Enter typed already is told apart
        sys.stdout.write(modes + "\r" + "\n".join(lines) + f"\x1b[{self._below}A\r\x1b[2C")
        sys.stdout.flush()
        self.drawn = self._keys_reported = True

    def release(self) -> None:
        """Put the cursor where the frame starts and clear the frame (the application
        draws it again in the same place)."""
        if not self.drawn:
            return
        self.drawn = False
        sys.stdout.write("\x1b[1A\r\x1b[J")
        sys.stdout.flush()

    def _quiet_terminal(self) -> None:
        if termios is None:
            return
        try:
            fd = sys.stdin.fileno()
            self._saved = termios.tcgetattr(fd)
            quiet = termios.tcgetattr(fd)
            quiet[0] &= ~(termios.IXON | termios.IXOFF | termios.ICRNL | termios.INLCR)
            quiet[3] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN)
            termios.tcsetattr(fd, termios.TCSANOW, quiet)
        except (OSError, ValueError, termios.error):
            self._saved = None

    def restore(self) -> None:
        if self._keys_reported:
            self._keys_reported = False
            sys.stdout.write(RESET_MODIFIED_KEYS)
            sys.stdout.flush()
        if self._saved is None or termios is None:
            return
        try:
            termios.tcsetattr(sys.stdin.fileno(), termios.TCSANOW, self._saved)
        except (OSError, termios.error):
            pass
        self._saved = None
