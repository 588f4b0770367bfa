"""Where children's outputs and transcripts are kept for ``agent://<id>`` and
``history://<id>``: beside the session file (``<session stem>/<id>.md``, the child's
own ``<id>.jsonl``), or in memory for an in-memory session. The ``read`` tool reaches
them through the readers this module gives the session's ``omp-tool-read.schemes``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from omp_tool_task.output import AGENT_SCHEME, HISTORY_SCHEME, messages_of_file, transcript_markdown

READ_SCHEMES = "omp-tool-read.schemes"
STATE_KEY = "omp-tool-task.outputs"


class OutputStore:
    """One session's children: ``folder`` is ``<session stem>/`` (None in memory)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._outputs: dict[str, str] = {}
        self._transcripts: dict[str, Callable[[], list[dict[str, Any]]] | Path] = {}
        self._taken: set[str] | None = None

    def allocate(self, child_id: str) -> str:
        """``child_id``, or ``child_id-2``, ``-3``... when this session used it already
        (in this run or an earlier one, as the folder shows): ids never repeat."""
        if self._taken is None:
            self._taken = set()
            if self.folder is not None and self.folder.is_dir():
                for file in self.folder.iterdir():
                    if file.suffix in (".md", ".jsonl"):
                        self._taken.add(file.stem)
        candidate, number = child_id, 2
        while candidate in self._taken:
            candidate, number = f"{child_id}-{number}", number + 1
        self._taken.add(candidate)
        return candidate

    def put_output(self, child_id: str, text: str) -> Path | None:
        """Keep a child's full output; its file (None in memory)."""
        self._outputs[child_id] = text
        if self.folder is None:
            return None
        path = self.folder / f"{child_id}.md"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError:
            return None
        return path

    def put_transcript(
        self, child_id: str, source: Path | Callable[[], list[dict[str, Any]]]
    ) -> None:
        """A child's session file, or (in memory) a function giving its messages."""
        self._transcripts[child_id] = source

    def read_agent(self, uri: str) -> str:
        child_id = _id_of(uri, AGENT_SCHEME)
        if child_id in self._outputs:
            return self._outputs[child_id]
        path = self._find(f"{child_id}.md")
        if path is None:
            raise LookupError(f"no subagent output {child_id!r}{self._known(self._outputs)}")
        return path.read_text(encoding="utf-8")

    def read_history(self, uri: str) -> str:
        child_id = _id_of(uri, HISTORY_SCHEME)
        source = self._transcripts.get(child_id) or self._find(f"{child_id}.jsonl")
        if source is None:
            raise LookupError(
                f"no subagent transcript {child_id!r}{self._known(self._transcripts)}"
            )
        messages = messages_of_file(source) if isinstance(source, Path) else source()
        return transcript_markdown(messages)

    def readers(self) -> dict[str, Callable[[str], str]]:
        return {AGENT_SCHEME: self.read_agent, HISTORY_SCHEME: self.read_history}

    def _find(self, file_name: str) -> Path | None:
        """A file of an earlier run (a resumed session), nested children included."""
        if self.folder is None or not self.folder.is_dir():
            return None
        direct = self.folder / file_name
        if direct.is_file():
            return direct
        return next(iter(self.folder.rglob(file_name)), None)

    @staticmethod
    def _known(kept: dict[str, Any]) -> str:
        return f" (known: {', '.join(sorted(kept))})" if kept else ""


def _id_of(uri: str, scheme: str) -> str:
    child_id = uri.removeprefix(f"{scheme}://").strip("/")
    if not child_id or "/" in child_id or ".." in child_id:
        raise LookupError(f"{uri} is not {scheme}://<id>")
    return child_id


def install(ctx: Any) -> OutputStore:
    """The session's store, made on first use, with its readers given to ``read``."""
    store = ctx.state.get(STATE_KEY)
    if isinstance(store, OutputStore):
        return store
    path = getattr(ctx.session, "path", None)
    store = OutputStore(Path(path).with_suffix("") if path else None)
    ctx.state[STATE_KEY] = store
    ctx.state.setdefault(READ_SCHEMES, {}).update(store.readers())
    return store
