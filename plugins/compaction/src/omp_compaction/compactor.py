"""Compaction of a running session: manual (``/compact``, ``ctx.compact()``), at the
threshold before a request, and after a context-overflow error (the failed request is
then sent once more). The hooks: session_before_compact (cancel, or supply the
compaction), session_compacting (context lines, the prompt), session_compact; the
automatic kinds are framed by auto_compaction_start/end.

Atomic: the only write is the one ``compaction`` entry, appended after the summary
has arrived; a failed or aborted summary writes nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any

from omp import (
    ARTIFACT_SCHEME,
    AbortSignal,
    AssistantMessage,
    AutoCompactionEndEvent,
    AutoCompactionStartEvent,
    CompactionCancelled,
    CompactionError,
    CompactionOutcome,
    CompactionSession,
    LlmContext,
    Model,
    OmpError,
    OverflowDecision,
    RequestDecision,
    SessionBeforeCompactEvent,
    SessionCompactEvent,
    SessionCompactingEvent,
    UserMessage,
    context_message,
    is_context_overflow,
    run_abortable,
)

from omp_compaction import compaction, compaction_prompt, kept_turn, tokens

_MAKING: ContextVar[bool] = ContextVar("omp_compaction_making", default=False)
"""Set while a compaction is made: its own hooks cannot wait for another one."""


class Compactor:
    """One per session: the answers to the kernel's compaction hooks - before each
    request, after a context overflow - and its ``omp.CompactionService`` (on demand,
    branch summaries, the prompt-size check). It returns the conversation to go on
    with; the loop applies it. ``session`` is the kernel's ``omp.CompactionSession``."""

    def __init__(self, session: CompactionSession) -> None:
        self._session = session
        self.session = session
        self.counter = compaction.TokenCounter()
        self.signal: AbortSignal | None = None
        self._lock: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None

    # -- what the loop asks ------------------------------------------------------------

    def _limits(self, model: Model | None = None) -> compaction.Limits | None:
        model = model or self._session.model
        if model is None or not model.context_window:
            return None
        return compaction.limits(self._session.settings, model.context_window)

    def _enabled(self) -> bool:
        return self._session.settings.get("compaction.enabled", True) is not False

    async def before_request(
        self, messages: Sequence[Any], model: Model | None
    ) -> RequestDecision | None:
        """Compact when the context passed the window less the reserve (and compaction
        can bring it down: the system prompt alone does not fill the threshold)."""
        limits = self._limits(model)
        if limits is None or not self._enabled() or limits.threshold <= 0:
            return None
        system_prompt = self._session.system_prompt
        used = compaction.context_tokens(system_prompt, messages, self.counter, limits.threshold)
        if used <= limits.threshold:
            return None
        work, saved = await self._prune(messages)
        changed = work if saved else None
        if saved and used - saved <= limits.threshold:
            return RequestDecision(messages=changed)
        if tokens.count(system_prompt) >= limits.threshold:
            return _plan(changed)
        work, fitted = await self._fit_kept(work, limits, force=False)
        if fitted.too_big:
            return RequestDecision(messages=changed, stop=True)
        changed = work if fitted.moved else changed
        if fitted.saved and used - saved - fitted.saved <= limits.threshold:
            return _plan(changed)
        made = await self._auto("threshold", work, will_retry=False)
        return _plan(made.messages if made is not None else changed)

    async def _fit_kept(
        self, messages: Sequence[Any], limits: compaction.Limits, *, force: bool
    ) -> tuple[list[Any], kept_turn.Fit]:
        """Make the part a compaction would keep fit beside a summary (``kept_turn``):
        its largest tool results move to artifacts (the messages returned). When even
        that cannot make it fit, the run is to stop (``stop_run`` says which turn is
        too big and why)."""
        session = self._session
        messages = list(messages)
        path, message_of = session.branch_entries(), context_message
        limit, budget = self._kept_budget(limits)
        preparation = compaction.prepare(
            path, message_of, self.counter, limits.keep_recent, force=force, max_kept=budget
        )
        kept = None
        if preparation is not None:
            cut = next(
                i for i, e in enumerate(path) if e.get("id") == preparation.first_kept_entry_id
            )
            roles = [m.role for e in path[cut:] if (m := message_of(e)) is not None]
            if [m.role for m in messages[-len(roles) :]] != roles:
                # the messages are not the file's: nothing to judge by
                return messages, kept_turn.Fit()
            kept = len(roles)
        start = kept_turn.kept_start(messages, kept)
        fitted_messages, fitted = kept_turn.fit(
            messages,
            start,
            self.counter,
            budget=budget if kept is not None else limit,  # no summary: all of it may stay
            limit=limit,
            save=lambda text: ARTIFACT_SCHEME + session.artifacts.save(text),
        )
        model = session.model
        if fitted.too_big:
            system = limits.threshold - limit
            await session.stop_run(
                f"the current turn does not fit the context: {fitted.too_big}, more than the "
                f"{limit:,} left of {model.key}'s {limits.window:,}-token window "
                f"({limits.reserve:,} are reserved for the answer, {system:,} for the system "
                "prompt); ask for fewer tool calls at a time, or use a model with a larger window"
            )
        elif fitted.moved:
            messages = fitted_messages
            await session.notice(
                f"moved the {fitted.moved:,} largest tool result(s) of the current turn "
                f"({fitted.saved:,} tokens) to artifacts to fit {model.key}'s context window; "
                "the model reads them back with the read tool",
                "warning",
            )
        return messages, fitted

    def _kept_budget(self, limits: compaction.Limits) -> tuple[int, int]:
        """(limit, budget) for the part a compaction keeps: the most it can be beside
        the system prompt under the threshold, and that less room for a summary."""
        limit = limits.threshold - tokens.count(self._session.system_prompt)
        return limit, limit - min(kept_turn.SUMMARY_ROOM, limits.threshold // 4)

    async def _prune(self, messages: Sequence[Any]) -> tuple[list[Any], int]:
        """Old tool outputs become placeholders in the messages requests are built from
        (never in the session file): the messages and the tokens saved."""
        from omp_compaction.pruning import prune_tool_outputs, settings_of

        enabled, protect, minimum = settings_of(self._session.settings)
        if not enabled:
            return list(messages), 0
        pruned, saved = prune_tool_outputs(
            list(messages), self.counter, protect=protect, minimum=minimum
        )
        if not saved:
            return list(messages), 0
        await self._session.notice(
            f"pruned {saved:,} tokens of old tool output from the context", "info"
        )
        return pruned, saved

    async def on_overflow(
        self, message: AssistantMessage, messages: Sequence[Any], model: Model | None
    ) -> OverflowDecision | None:
        """After a failed request: when it was a context overflow, the compacted
        conversation, sent again (as omp continues; with ``compaction.autoContinue``
        off the context is compacted and the run stops)."""
        overflow = message.error_kind == "context_overflow" or (
            message.error_kind is None and is_context_overflow(message.error_message or "")
        )
        if message.stop_reason != "error" or not overflow or not self._enabled():
            return None
        limits = self._limits(model)
        work, moved = list(messages), 0
        if limits is not None:
            work, fitted = await self._fit_kept(work, limits, force=True)
            if fitted.too_big:
                return None
            moved = fitted.moved
        resend = self._session.settings.get("compaction.autoContinue", True) is not False
        made = await self._auto("overflow", work, will_retry=resend)
        if made is None:
            return OverflowDecision(messages=work) if moved else None
        if not resend:
            await self._session.notice(
                "the context was compacted after it overflowed; compaction.autoContinue "
                "is off, so the request was not sent again: send your message again to go on",
                "warning",
            )
        return OverflowDecision(retry=resend, messages=made.messages)

    async def _auto(
        self, reason: str, messages: Sequence[Any], will_retry: bool
    ) -> CompactionOutcome | None:
        session = self._session
        await session.emit(AutoCompactionStartEvent(reason=reason))
        try:
            made = await self.compact(messages, reason=reason)
        except CompactionCancelled:
            await session.emit(AutoCompactionEndEvent(aborted=True))
            return None
        except OmpError as exc:
            aborted = session.signal.aborted
            label = "Context overflow recovery failed" if will_retry else "Auto-compaction failed"
            if not aborted:
                await session.notice(f"{label}: {exc}", "warning")
            await session.emit(AutoCompactionEndEvent(aborted=aborted, error_message=str(exc)))
            return None
        result = made.result
        wire = {
            "summary": result["summary"],
            "firstKeptEntryId": result["first_kept_entry_id"],
            "tokensBefore": result["tokens_before"],
            "tokensAfter": result["tokens_after"],
            "details": result["details"],
        }
        await session.emit(AutoCompactionEndEvent(result=wire, will_retry=will_retry))
        return made

    async def summarize_branch(
        self, entries: list[dict[str, Any]], instructions: str | None, signal: AbortSignal
    ) -> dict[str, Any] | None:
        """The summary of an abandoned ``/tree`` branch (``omp_compaction.branch_summary``)."""
        from omp_compaction import branch_summary

        self.signal = signal
        return await branch_summary.summarise(self, entries, instructions, signal)

    async def check_prompt(self, text: str) -> str | None:
        """The prompt to send, or None when it is refused (``check_prompt_size``)."""
        return await check_prompt_size(self, text)

    # -- the compaction --------------------------------------------------------------

    async def compact(
        self,
        messages: Sequence[Any],
        instructions: str | None = None,
        reason: str = "manual",
        signal: AbortSignal | None = None,
    ) -> CompactionOutcome:
        """Summarise the older part of the branch and append a compaction entry; one
        at a time. Returns the compaction: its result (summary, first_kept_entry_id,
        tokens_before, tokens_after, details) and the conversation that replaces
        ``messages``. CompactionCancelled when a plugin cancelled it, CompactionError
        when there is nothing to compact or the summary failed (nothing is written)."""
        if _MAKING.get():
            raise CompactionError(
                "a compaction is being made: its own hooks cannot wait for another one"
            )
        async with self._serial():
            token = _MAKING.set(True)
            try:
                return await self._compact(messages, instructions, reason, signal)
            finally:
                _MAKING.reset(token)

    def _serial(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock[0] is not loop:
            self._lock = (loop, asyncio.Lock())
        return self._lock[1]

    async def _compact(
        self,
        messages: Sequence[Any],
        instructions: str | None,
        reason: str,
        signal: AbortSignal | None,
    ) -> CompactionOutcome:
        session = self._session
        known = self._limits()
        limits = known or compaction.Limits(0, 0, compaction.DEFAULT_KEEP_RECENT)
        path = session.branch_entries()
        preparation = compaction.prepare(
            path,
            context_message,
            self.counter,
            limits.keep_recent,
            force=reason != "threshold",
            max_kept=self._kept_budget(known)[1] if known is not None else None,
        )
        if preparation is None:
            raise CompactionError("nothing to compact: the conversation is all recent")
        preparation.tokens_before = compaction.context_tokens(
            session.system_prompt, messages, self.counter
        )
        signal = self.signal = AbortSignal(parent=signal or session.signal)
        decision = await session.hooks.session_before_compact(
            SessionBeforeCompactEvent(
                preparation=preparation.public(),
                branch_entries=list(path),
                custom_instructions=instructions,
                reason=reason,
                signal=signal,
            ),
        )
        if decision is not None and decision.cancel:
            raise CompactionCancelled("a plugin cancelled the compaction")
        supplied = decision.compaction if decision is not None else None
        if supplied:
            fields = _supplied(supplied, preparation)
        else:
            fields = await self._summarise(preparation, instructions, signal)
        if signal.aborted:
            raise CompactionError("the compaction was aborted")
        entry = session.append_compaction(**fields)
        upto = messages[-1] if messages else None
        rebuilt = self._rebuilt(messages)
        tokens_after = compaction.context_tokens(session.system_prompt, rebuilt, self.counter)
        self.counter.forget_except(rebuilt)
        await session.hooks.session_compact(
            SessionCompactEvent(compaction_entry=dict(entry), from_extension=bool(supplied)),
        )
        result = {
            "summary": entry["summary"],
            "first_kept_entry_id": entry["firstKeptEntryId"],
            "tokens_before": entry["tokensBefore"],
            "tokens_after": tokens_after,
            "details": entry.get("details"),
        }
        return CompactionOutcome(result=result, messages=rebuilt, upto=upto)

    async def _summarise(
        self, preparation: compaction.Preparation, instructions: str | None, signal: AbortSignal
    ) -> dict[str, Any]:
        session = self._session
        outcome = await session.hooks.session_compacting(
            SessionCompactingEvent(
                session_id=session.session_id, messages=list(preparation.messages)
            ),
        )
        shaped = outcome.event
        prompt = compaction_prompt.summary_prompt(
            preparation,
            instructions=shaped.prompt or compaction_prompt.default_instructions(),
            custom=instructions,
            context=list(shaped.context),
        )
        if preparation.is_split_turn:
            text = await self._split_turn_summary(preparation, prompt, signal)
        else:
            text = await self.ask_model(prompt, signal)
        return {
            "summary": compaction_prompt.with_file_tags(text, preparation),
            "first_kept_entry_id": preparation.first_kept_entry_id,
            "tokens_before": preparation.tokens_before,
            "details": {
                "readFiles": preparation.read_files,
                "modifiedFiles": preparation.modified_files,
            },
            "preserveData": shaped.preserve_data,
        }

    async def _split_turn_summary(
        self, preparation: compaction.Preparation, history_prompt: str, signal: AbortSignal
    ) -> str:
        """The history before the turn and the turn's prefix, summarised at once and
        joined (without earlier history: the previous summary, else pi's note)."""
        import asyncio

        prefix = self.ask_model(compaction_prompt.turn_prefix_prompt(preparation), signal)
        if preparation.messages:
            history, prefix_text = await asyncio.gather(
                self.ask_model(history_prompt, signal), prefix
            )
        else:
            previous = compaction_prompt.split_previous(preparation.previous_summary)[0]
            history = previous or "No prior history."
            prefix_text = await prefix
        return compaction_prompt.join_split_summary(history, prefix_text)

    def model(self) -> Any:
        """The model that writes summaries: ``compaction.model``, else the session's."""
        session = self._session
        configured = session.settings.get("compaction.model")
        if configured:
            try:
                return session.models.resolve(configured)
            except OmpError as exc:
                raise CompactionError(f"compaction.model {configured!r}: {exc}") from None
        if session.model is None:
            raise CompactionError("no model selected to write the summary")
        return session.model

    async def ask_model(self, prompt: str, signal: AbortSignal) -> str:
        """The summary model's answer to ``prompt`` (no tools, no thinking)."""
        session = self._session
        model = self.model()
        provider = session.models.provider_of(model)
        options = session.stream_options(model, signal)
        context = LlmContext(
            compaction_prompt.SUMMARY_SYSTEM_PROMPT, [UserMessage(content=prompt)], []
        )
        final: dict[str, Any] = {}

        async def consume() -> None:
            async for event in provider.stream(model, context, options):
                if event["type"] in ("done", "error"):
                    final["message"] = event.get("message") or event.get("error")
                    return

        error = await run_abortable(consume(), signal)
        message = final.get("message")
        if signal.aborted:
            raise CompactionError("the summary was aborted")
        if message is None or message.stop_reason in ("error", "aborted"):
            reason = (message.error_message if message else None) or error or "no answer"
            raise CompactionError(f"the summary request failed: {reason}")
        if not message.text.strip():
            raise CompactionError("the model wrote an empty summary")
        return message.text

    def _rebuilt(self, messages: Sequence[Any]) -> list[Any]:
        """The conversation after the compaction just written: the summary and the kept
        tail; kept messages stay the same objects (modes find where a prompt's messages
        begin by them)."""
        rebuilt = self._session.context_messages()
        kept = rebuilt[1:]
        tail = list(messages[len(messages) - len(kept) :]) if kept else []
        same = len(tail) == len(kept) and all(
            a.role == b.role for a, b in zip(tail, kept, strict=True)
        )
        return [rebuilt[0], *(tail if same else kept)]


def _plan(messages: list[Any] | None) -> RequestDecision | None:
    return RequestDecision(messages=messages) if messages is not None else None


def _supplied(supplied: Any, preparation: compaction.Preparation) -> dict[str, Any]:
    """A plugin's compaction (summary, optional firstKeptEntryId, tokensBefore,
    details) as the entry's fields."""
    if isinstance(supplied, str):
        supplied = {"summary": supplied}
    if not isinstance(supplied, dict) or not isinstance(supplied.get("summary"), str):
        raise CompactionError("a plugin's compaction needs a string 'summary'")

    def pick(*names: str) -> Any:
        return next((supplied[n] for n in names if supplied.get(n) is not None), None)

    return {
        "summary": supplied["summary"],
        "first_kept_entry_id": pick("firstKeptEntryId", "first_kept_entry_id")
        or preparation.first_kept_entry_id,
        "tokens_before": pick("tokensBefore", "tokens_before") or preparation.tokens_before,
        "details": supplied.get("details"),
        "preserveData": pick("preserveData", "preserve_data"),
        "fromExtension": True,
    }


async def check_prompt_size(compactor: Compactor, text: str) -> str | None:
    """The prompt to send: as typed, or - larger than the model's window and with
    ``compaction.oversizedPrompt`` ``attach`` - a note naming the file it was saved to
    (the model pages through it with ``read``). None when it was refused (the run's
    failure is reported)."""
    session = compactor._session
    model = session.model
    window = model.context_window if model is not None else 0
    measured = tokens.over(text, window) if window else None
    if measured is None:
        return text
    counted, exact = measured
    size = f"{counted:,} tokens" if exact else f"{counted:,} tokens or more"
    if session.settings.get("compaction.oversizedPrompt", "refuse") == "attach":
        reference = session.artifacts.save(text, ".md")
        path = session.artifacts.path(reference)
        await session.notice(
            f"the prompt ({size}) is larger than {model.key}'s context window "
            f"({window:,}); it was saved to {path} for the model to read in pages",
            "warning",
        )
        return (
            f"My prompt is too large for your context window ({size}, "
            f"{len(text):,} characters), so it was saved to the file `{path}`. Read it "
            "with the read tool, a part at a time (offset and limit), and do what it asks."
        )
    await session.stop_run(
        f"the prompt is {size}, larger than {model.key}'s context window of "
        f"{window:,} tokens; shorten it, or set compaction.oversizedPrompt to attach to "
        "hand it to the model as a file"
    )
    return None
