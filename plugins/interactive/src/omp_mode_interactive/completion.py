"""Completion in the editor: ``/commands`` with descriptions (the mode's and every
plugin's), model names after ``/model``, and ``@file`` paths ranked by a fuzzy matcher
(the natives module's when it is installed, else a pure-Python one) over the files the
search service lists (ignore rules applied)."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncGenerator, Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omp import AgentSession

FILE_LIMIT = 20_000
FILE_TTL = 10.0
SHOWN = 30
_AT_WORD = re.compile(r"(?:^|\s)@([^\s@]*)$")


def fuzzy_score(query: str, candidate: str) -> int | None:
    """A subsequence match score (higher is better), None when ``query`` is not a
    subsequence of ``candidate``. Consecutive letters, matches after a separator, a
    match in the file name and the whole query in one piece count extra; shorter
    candidates win ties."""
    query, lowered = query.lower(), candidate.lower()
    if not query:
        return 0
    score, position, previous = 0, 0, -2
    name_start = lowered.rfind("/") + 1
    for char in query:
        found = lowered.find(char, position)
        if found < 0:
            return None
        score += 10
        if found == previous + 1:
            score += 15
        if found == 0 or lowered[found - 1] in "/_-. ":
            score += 10
        if found >= name_start:
            score += 5
        previous, position = found, found + 1
    if query in lowered:
        score += 10
    return score * 100 - len(candidate)


def rank_paths(query: str, paths: list[str], limit: int) -> list[str]:
    """The best ``limit`` paths for ``query``: natives' matcher, or the Python one."""
    if not query:
        return sorted(paths, key=lambda p: (p.count("/"), p))[:limit]
    try:
        from omp_natives import load

        return [path for path, _score in load().fuzzy_rank(query, paths, limit)]
    except (ImportError, AttributeError):
        pass
    scored = [(s, p) for p in paths if (s := fuzzy_score(query, p)) is not None]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [path for _score, path in scored[:limit]]


def _fuzzy_index(paths: list[str]) -> Any:
    """The natives module's index over ``paths``, or None without it."""
    try:
        from omp_natives import load

        return load().FuzzyIndex(paths)
    except (ImportError, AttributeError):
        return None


class WorkspaceFiles:
    """The workspace's paths from the session's find search (``ctx.search``), cached for
    a few seconds, and ranked for @file completion."""

    def __init__(self, session: AgentSession) -> None:
        self._session = session
        self._paths: list[str] = []
        self._at = 0.0
        self._index: tuple[list[str], Any] | None = None  # (paths, natives' index of them)

    async def rank(self, query: str, limit: int) -> list[str]:
        """The best ``limit`` paths for ``query``. With natives the list stays on their
        side between keystrokes (handing over 20,000 paths took half of each ranking)."""
        paths = await self.paths()
        if not query:
            return rank_paths(query, paths, limit)
        if self._index is None or self._index[0] is not paths:
            self._index = (paths, _fuzzy_index(paths))
        index = self._index[1]
        if index is None:
            return rank_paths(query, paths, limit)
        return [path for path, _score in index.rank(query, limit)]

    async def paths(self) -> list[str]:
        if self._paths and time.monotonic() - self._at < FILE_TTL:
            return self._paths
        try:
            answer = await self._session.context.search("find", pattern="**", limit=FILE_LIMIT)
        except Exception:  # no search backend: no file completion, typing goes on
            return self._paths
        paths = answer.get("paths") if isinstance(answer, dict) else getattr(answer, "paths", [])
        self._paths, self._at = list(paths or []), time.monotonic()
        return self._paths


def _completer_base() -> type:
    from prompt_toolkit.completion import Completer

    return Completer


def make_completer(
    commands: Callable[[], Iterable[tuple[str, str]]],
    models: Callable[[], Iterable[tuple[str, str]]],
    files: WorkspaceFiles,
) -> Any:
    """A prompt_toolkit completer; ``commands`` and ``models`` give (name, description)."""
    from prompt_toolkit.completion import Completion

    class PromptCompleter(_completer_base()):  # type: ignore[misc]
        def get_completions(self, document: Any, complete_event: Any) -> Iterable[Any]:
            before = document.text_before_cursor
            if before.startswith("/") and "\n" not in before:
                name, space, rest = before[1:].partition(" ")
                if not space:
                    for command, description in sorted(commands()):
                        if command.startswith(name):
                            yield Completion(
                                "/" + command,
                                -len(before),
                                display_meta=description,
                            )
                    return
                if name == "model":
                    ranked = rank_paths(rest, [key for key, _ in models()], SHOWN)
                    described = dict(models())
                    for key in ranked:
                        yield Completion(key, -len(rest), display_meta=described.get(key, ""))

        async def get_completions_async(
            self, document: Any, complete_event: Any
        ) -> AsyncGenerator[Any, None]:
            match = _AT_WORD.search(document.text_before_cursor)
            if match is None:
                for completion in self.get_completions(document, complete_event):
                    yield completion
                return
            query = match.group(1)
            for path in await files.rank(query, SHOWN):
                yield Completion("@" + path, -len(query) - 1, display=path)

    return PromptCompleter()
