"""The prompt editor's buffer: persistent history per project and large pastes kept
as placeholders that expand back to the whole text when the prompt is sent."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

PASTE_LINES = 10
PASTE_CHARS = 1000
_PLACEHOLDER = re.compile(r"\[paste #(\d+) [^\]]*\]")


def history_path(agent_dir: Any, cwd: str) -> Path | None:
    """``<agent dir>/history/<project>.txt``: each project keeps its own prompts."""
    if agent_dir is None:
        return None
    digest = hashlib.sha256(cwd.encode("utf-8")).hexdigest()[:16]
    name = Path(cwd).name or "root"
    return Path(agent_dir) / "history" / f"{name}-{digest}.txt"


class Editor:
    """A multi-line prompt_toolkit Buffer plus what was pasted into it."""

    def __init__(self, history_file: Path | None, completer: Any = None) -> None:
        from prompt_toolkit.buffer import Buffer
        from prompt_toolkit.history import FileHistory, InMemoryHistory

        history: Any = InMemoryHistory()
        if history_file is not None:
            try:
                history_file.parent.mkdir(parents=True, exist_ok=True)
                history = FileHistory(str(history_file))
            except OSError:
                pass
        self.buffer = Buffer(
            multiline=True,
            history=history,
            completer=completer,
            complete_while_typing=True,
            enable_history_search=False,
        )
        self.pastes: dict[int, str] = {}

    @property
    def text(self) -> str:
        return self.buffer.text

    def set_text(self, text: str) -> None:
        from prompt_toolkit.document import Document

        self.buffer.document = Document(text, len(text))

    def paste(self, data: str) -> None:
        """Insert pasted text; a large paste becomes ``[paste #N +L lines]``."""
        data = data.replace("\r\n", "\n").replace("\r", "\n")
        lines = data.count("\n") + 1
        if lines <= PASTE_LINES and len(data) <= PASTE_CHARS:
            self.buffer.insert_text(data)
            return
        number = len(self.pastes) + 1
        self.pastes[number] = data
        size = f"+{lines} lines" if lines > 1 else f"{len(data)} chars"
        self.buffer.insert_text(f"[paste #{number} {size}]")

    def take(self) -> str:
        """The prompt to send (placeholders expanded); the editor is emptied and the
        text shown goes into the history."""
        shown = self.buffer.text
        if shown.strip():
            self.buffer.append_to_history()
        text = _PLACEHOLDER.sub(lambda m: self.pastes.get(int(m.group(1)), m.group(0)), shown)
        self.pastes = {}
        self.buffer.reset()
        return text

    def clear(self) -> None:
        self.pastes = {}
        self.buffer.reset()
