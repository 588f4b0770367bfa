"""The kernel's side of compaction: the mechanism only. The policy - when to compact,
counting tokens, the summary, pruning, branch summaries - is a plugin's (omp-compaction):
the loop host asks it through ``omp_before_request`` and ``omp_context_overflow``, and
the session finds its ``CompactionService`` through ``omp_compaction_service`` for
compacting on demand, ``/tree`` summaries and the prompt-size check. Without such a
plugin a session never compacts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from omp.base.errors import OmpError

if TYPE_CHECKING:
    from omp.agent.events import Event
    from omp.agent.host import CompactionOutcome
    from omp.agent.messages import AgentMessage
    from omp.agent.providers import Model, ModelRegistry, StreamOptions
    from omp.base.abort import AbortSignal
    from omp.config.settings import Settings
    from omp.plugin.hooks import Hooks
    from omp.runtime.session import AgentSession
    from omp.session.artifacts import ArtifactStore

NO_PLUGIN = "no compaction plugin is installed (install omp-compaction)"


class CompactionError(OmpError):
    """Compaction could not run (nothing to compact, the summary failed, or no plugin
    compacts); nothing was written."""


class CompactionCancelled(OmpError):
    """A plugin or the user cancelled a compaction; nothing was written."""


class CompactionSession:
    """The session as a compaction plugin sees it (``event.session`` of the compaction
    hooks): what it reads to measure and cut, how it asks the summary model, where it
    writes the ``compaction`` entry, and the events it fires. One per session."""

    __slots__ = ("_session",)

    def __init__(self, session: AgentSession) -> None:
        self._session = session

    @property
    def model(self) -> Model | None:
        """The model the session talks to now."""
        return self._session.agent.model

    @property
    def system_prompt(self) -> str:
        """The system prompt requests are sent with."""
        return self._session.agent.system_prompt

    @property
    def signal(self) -> AbortSignal:
        """The current run's abort signal (a compaction made during it stops with it)."""
        return self._session.agent.signal

    @property
    def settings(self) -> Settings:
        return self._session.settings

    @property
    def models(self) -> ModelRegistry:
        """To resolve a ``compaction.model`` and find its provider."""
        return self._session.models

    @property
    def artifacts(self) -> ArtifactStore:
        """Where oversized text goes (``artifact://`` references the read tool opens)."""
        return self._session.artifacts

    @property
    def session_id(self) -> str:
        return self._session.session_file.session_id

    @property
    def hooks(self) -> Hooks:
        """The session's typed hook facade: fire ``session_before_compact``,
        ``session_compacting`` and ``session_compact`` through it."""
        return self._session.hooks

    def branch_entries(self) -> list[dict[str, Any]]:
        """The current branch's entries, root to leaf."""
        return self._session.session_file.branch_entries()

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        **optional: Any,
    ) -> dict[str, Any]:
        """Write omp's ``compaction`` entry (``optional``: details, preserveData,
        fromExtension, ...) at the leaf; returns it."""
        file = self._session.session_file
        return file.append_compaction(summary, first_kept_entry_id, tokens_before, **optional)

    def context_messages(self) -> list[AgentMessage]:
        """The branch's conversation as the session file rebuilds it (after a compaction:
        its summary, then the kept messages)."""
        return list(self._session.session_file.build_context().messages)

    def stream_options(self, model: Model, signal: AbortSignal) -> StreamOptions:
        """Options for a summary request to ``model``: no thinking, the model's output
        limit, the session's stream settings and provider hooks."""
        from omp.agent.providers import StreamOptions

        return StreamOptions(
            signal=signal,
            thinking_level="off",
            max_tokens=model.max_tokens,
            settings=self._session.agent.stream_settings,
            **self._session.provider_hooks(model),
        )

    async def emit(self, event: Event) -> None:
        """Fire an event to its hook and the subscribers (``auto_compaction_start``/``_end``)."""
        await self._session.emit(event)

    async def notice(self, message: str, level: str = "info") -> None:
        """Tell the user (a ``notice`` event)."""
        await self._session.notice(message, level)

    async def stop_run(self, reason: str) -> None:
        """End the run with ``reason`` (shown as an error; one-shot modes exit non-zero);
        the caller then returns ``{"stop": True}`` or refuses the prompt."""
        self._session.abort_message = reason
        await self._session.notice(reason, "error")


class CompactionService(Protocol):
    """What a compaction plugin offers one session (``omp_compaction_service``)."""

    async def compact(
        self,
        messages: Sequence[AgentMessage],
        instructions: str | None = None,
        *,
        signal: AbortSignal | None = None,
    ) -> CompactionOutcome:
        """Compact now: append a ``compaction`` entry and return the conversation to go
        on with. CompactionCancelled or CompactionError when nothing was written."""
        ...

    async def summarize_branch(
        self, entries: list[dict[str, Any]], instructions: str | None, signal: AbortSignal
    ) -> dict[str, Any] | None:
        """The ``branch_summary`` fields (summary, details) of the abandoned ``entries``;
        None when they hold no message. CompactionError when it failed."""
        ...

    async def check_prompt(self, text: str) -> str | None:
        """The prompt to send: ``text``, or a replacement (too big for the window:
        saved to a file); None when it is refused (the plugin has said why)."""
        ...


async def service_of(session: AgentSession) -> CompactionService | None:
    """The session's compaction service (the plugin keeps one per session); None
    without a compaction plugin."""
    from omp.agent.events import CompactionServiceEvent

    event = CompactionServiceEvent(session=session.compaction_session)
    result = await session.hooks.compaction_service(event)
    service: CompactionService | None = result.service if result is not None else None
    return service


async def require_service(session: AgentSession) -> CompactionService:
    service = await service_of(session)
    if service is None:
        raise CompactionError(NO_PLUGIN)
    return service


def describe(result: dict[str, Any]) -> str:
    """``compacted the context: 182,301 -> 21,950 tokens``."""
    before = result.get("tokens_before", result.get("tokensBefore", 0))
    after = result.get("tokens_after", result.get("tokensAfter", 0))
    return f"compacted the context: {before:,} -> {after:,} tokens"


def compact_command() -> Any:
    """The built-in ``/compact [instructions]`` (a plugin's own ``compact`` wins): asks
    ``ctx.compact()``, so without a compaction plugin it says none is installed."""
    from omp.plugin.contrib import Command

    async def run(args: str, ctx: Any) -> None:
        try:
            result = await ctx.compact(args.strip() or None)
        except CompactionCancelled as exc:
            ctx.ui.notify(str(exc), "warning")
        except OmpError as exc:
            ctx.ui.notify(f"compaction failed: {exc}", "error")
        else:
            ctx.ui.notify(describe(result), "info")

    return Command(
        "compact",
        "Summarise the older conversation to free context",
        run,
        argument_hint="[instructions]",
        source="builtin",
    )


def estimate_tokens(text: str) -> int:
    """A rough count of ``text``'s tokens (four characters a token), for sizes shown to
    the user; omp-compaction counts exactly (cl100k_base) for its own decisions."""
    return (len(text) + 3) // 4
