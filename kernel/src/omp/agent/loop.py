"""The agent loop: prompt -> model -> tools -> model ... with omp's queue semantics.

Outer loop: runs again while follow-up messages wait when the model would stop.
Inner loop: one turn per model request, repeated while the model calls tools or
steering messages wait. Every tool call gets exactly one result, whatever happens.
"""

from __future__ import annotations

import asyncio
import inspect
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from omp.agent.events import (
    AgentEndEvent,
    AgentStartEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    ContextEvent,
    Event,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    QueueUpdateEvent,
    ToolCallEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    ToolResultEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from omp.agent.host import CompactionOutcome, LoopHost, NullHost
from omp.agent.messages import (
    AssistantMessage,
    ToolCall,
    ToolResultMessage,
    answer_open_calls,
    content_text,
    convert_to_llm,
    unanswered_result,
)
from omp.agent.providers import LlmContext, Model, ModelRegistry, StreamOptions
from omp.agent.stream_guard import StreamGuard
from omp.agent.tools import (
    ToolRegistry,
    ToolResult,
    coerce_tool_result,
    describe_validation_error,
    json_safe,
)
from omp.base.abort import AbortSignal, run_abortable
from omp.base.hooktime import PluginExit, passes_through
from omp.base.partial_json import with_repair
from omp.base.threads import run_blocking
from omp.config.secrets import Secrets

SKIPPED_TEXT = "Skipped due to queued user message."
ABORTED_TEXT = "Tool execution was aborted."


@dataclass
class LoopSettings:
    steering_mode: str = "one-at-a-time"
    follow_up_mode: str = "one-at-a-time"
    interrupt_mode: str = "immediate"


Emit = Callable[[Event], Awaitable[None]]
CallHook = Callable[[str, Event], Awaitable[Any]]


class AgentBusyError(RuntimeError):
    pass


class Agent:
    """Owns the conversation in memory, the queues and the abort signal of a run."""

    def __init__(
        self,
        *,
        models: ModelRegistry,
        tools: ToolRegistry,
        model: Model | None,
        emit: Emit,
        call_hook: CallHook,
        tool_context: Callable[[], Any],
        settings: LoopSettings | None = None,
        stream_settings: dict[str, Any] | None = None,
        secrets: Secrets | None = None,
        host: LoopHost | None = None,
    ) -> None:
        """``secrets`` (omp.config.secrets) are hidden from every tool result; ``host``
        (omp.agent.host) decides about requests, responses, approvals, stops and
        compactions; the loop applies what it decides."""
        self.models = models
        self.secrets = secrets
        self.tools = tools
        self.model = model
        self.system_prompt = ""
        self.thinking_level = "off"
        self.messages: list[Any] = []
        self.settings = settings or LoopSettings()
        self.stream_settings = stream_settings or {}
        self.steering: deque[Any] = deque()
        self.follow_up: deque[Any] = deque()
        self.is_streaming = False
        self.signal = AbortSignal()
        self._emit = emit
        self._call_hook = call_hook
        self._tool_context = tool_context
        self._idle = asyncio.Event()
        self._idle.set()
        self._background: set[asyncio.Future[None]] = set()
        self.host: LoopHost = host or NullHost()
        self._to_llm = IncrementalConversion()
        self._run_model: tuple[Model | None, Model] | None = None
        """(the model before a Retry switched it, the model switched to) in this run."""
        self._compacting: dict[asyncio.Future[dict[str, Any]], AbortSignal] = {}
        """The compactions being made, each with its abort signal."""
        self._compacted: CompactionOutcome | None = None
        """The latest compaction made while the loop ran, applied at its next safe point."""
        self._terminating: set[str] = set()
        """The calls of the running tool batch whose results ask to end the run."""

    # -- queues -------------------------------------------------------------------------

    async def _queue_changed(self) -> None:
        await self._emit(
            QueueUpdateEvent(
                steering=[_preview(m) for m in self.steering],
                follow_up=[_preview(m) for m in self.follow_up],
            )
        )

    def steer(self, message: Any) -> None:
        """Queue a message for after the current tool (call on the loop's thread)."""
        self.steering.append(message)
        self._spawn(self._queue_changed())

    def queue_follow_up(self, message: Any) -> None:
        """Queue a message for when the model would stop (call on the loop's thread)."""
        self.follow_up.append(message)
        self._spawn(self._queue_changed())

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _dequeue(self, queue: deque[Any], mode: str) -> list[Any]:
        if not queue:
            return []
        if mode == "all":
            taken = list(queue)
            queue.clear()
        else:
            taken = [queue.popleft()]
        await self._queue_changed()
        return taken

    def has_pending(self) -> bool:
        return bool(self.steering or self.follow_up)

    def abort(self) -> None:
        """Abort the run, and the compactions being made."""
        self.signal.abort("aborted")
        for signal in self._compacting.values():
            signal.abort("aborted")

    async def wait_for_idle(self) -> None:
        """Until no run and no compaction is going on."""
        await self._idle.wait()
        await self._settle_compactions()

    # -- the run ------------------------------------------------------------------------

    async def add_message(self, message: Any) -> None:
        """Append a message to the conversation with its start/end events."""
        await self._emit(MessageStartEvent(message=message))
        self.messages.append(message)
        await self._emit(MessageEndEvent(message=message))

    async def run(self, new_messages: list[Any]) -> list[Any]:
        """Run the agent on new messages until the model stops; returns what was added."""
        if self.is_streaming:
            raise AgentBusyError("the agent is already running")
        self.is_streaming = True
        self._idle.clear()
        self.signal = AbortSignal()
        marker = self.messages[-1] if self.messages else None
        try:
            await self._emit(AgentStartEvent())
            await self._run_loop(list(new_messages))
            self._apply_compacted()
            added = messages_after(self.messages, marker)
            await self._emit(AgentEndEvent(messages=added))
            return added
        finally:
            self._apply_compacted()
            self._end_run_model()
            self.is_streaming = False
            self._idle.set()

    async def _run_loop(self, pending: list[Any]) -> None:
        turn_index = 0
        while True:
            has_more_tool_calls = True
            while has_more_tool_calls or pending:
                await self._emit(TurnStartEvent(turn_index=turn_index))
                for message in pending:
                    await self.add_message(message)
                assistant = await self._request()
                calls = assistant.tool_calls
                if assistant.stop_reason in ("error", "aborted"):
                    results = [
                        _result_message(c, ToolResult.error(c.arguments_error or ABORTED_TEXT))
                        for c in calls
                    ]
                    for result in results:
                        await self.add_message(result)
                    await self._emit(
                        TurnEndEvent(turn_index=turn_index, message=assistant, tool_results=results)
                    )
                    return
                results = await self._execute_tool_calls(calls) if calls else []
                has_more_tool_calls = bool(calls) and not self._batch_terminates(calls)
                await self._emit(
                    TurnEndEvent(turn_index=turn_index, message=assistant, tool_results=results)
                )
                turn_index += 1
                if self.signal.aborted:
                    return
                pending = await self._dequeue(self.steering, self.settings.steering_mode)
            pending = await self._dequeue(self.follow_up, self.settings.follow_up_mode)
            if not pending:
                pending = await self.host.before_stop(turn_index, self.messages)
            if not pending:
                return

    # -- what the host decides ------------------------------------------------------

    async def _request(self) -> AssistantMessage:
        """One model request, with the host's plan before it and its decisions about
        each response (sent again with another model or a compacted conversation)."""
        if not self.signal.aborted:
            await self._settle_compactions()
            plan = await self.host.before_request(self.messages, self.model)
            if plan is not None:
                if plan.messages is not None:
                    self.messages[:] = plan.messages
                if plan.stop:
                    self.abort()
        assistant = await self._stream_assistant()
        while True:
            self._apply_compacted()  # one made while the request ran: the host sees it
            decision = await self.host.on_response(assistant, self.model, self.messages)
            if decision is None:
                return assistant
            if decision.messages is not None:
                self.messages[:] = decision.messages
            if not decision.retry:
                return assistant
            if decision.model is not None:
                self._use_for_run(decision.model)
            assistant = await self._stream_assistant()

    def _use_for_run(self, model: Model) -> None:
        """A fallback model lasts until the run ends."""
        before = self._run_model[0] if self._run_model else self.model
        self._run_model = (before, model)
        self.model = model

    def _end_run_model(self) -> None:
        """Back to the model the run started with, unless it was changed meanwhile."""
        if self._run_model is not None:
            before, used = self._run_model
            if self.model is used:
                self.model = before
            self._run_model = None

    def _batch_terminates(self, calls: list[ToolCall]) -> bool:
        """Every result of the batch asked to end the run (pi's ``terminate``)."""
        return all(call.id in self._terminating for call in calls)

    # -- compaction, from anywhere ----------------------------------------------------

    async def compact(self, instructions: str | None = None) -> dict[str, Any]:
        """Compact the conversation through the host; safe to await from anywhere - a
        hook, a tool, another task - while the loop runs or not. The compaction is
        made at once (one at a time: the host serialises them) and written to the
        session; while the loop runs, the conversation it sends is replaced at its next
        safe point (before the next request, or when the run ends), and that request
        waits for a compaction still being made. A caller that is cancelled (a hook's
        timeout) leaves the compaction going; ``abort()`` stops it. Returns the
        compaction's result."""
        signal = AbortSignal(parent=self.signal) if self.is_streaming else AbortSignal()
        task = asyncio.ensure_future(self._compact(instructions, signal))
        self._compacting[task] = signal
        task.add_done_callback(self._compaction_done)
        return await asyncio.shield(task)

    async def _compact(self, instructions: str | None, signal: AbortSignal) -> dict[str, Any]:
        compaction = await self.host.compact(instructions, self.messages, signal)
        self._compacted = compaction
        if not self.is_streaming:
            self._apply_compacted()
        return compaction.result

    def _compaction_done(self, task: asyncio.Future[dict[str, Any]]) -> None:
        self._compacting.pop(task).detach()
        if not task.cancelled():
            task.exception()  # its caller has it, or went away: never "never retrieved"

    async def _settle_compactions(self) -> None:
        while pending := [task for task in self._compacting if not task.done()]:
            await asyncio.wait(pending)
        self._apply_compacted()

    def _apply_compacted(self) -> None:
        """At a safe point: the latest compaction's conversation replaces the messages
        it covered; those added since it was made follow. (Should ``upto`` be gone,
        the conversation was replaced since - that replacement, made from the session
        after this compaction, stands.)"""
        compaction, self._compacted = self._compacted, None
        if compaction is None:
            return
        messages = self.messages
        upto = compaction.upto
        at = next((i for i in range(len(messages) - 1, -1, -1) if messages[i] is upto), None)
        if upto is not None and at is None:
            return
        later = messages[at + 1 :] if at is not None else list(messages)
        messages[:] = [*compaction.messages, *later]

    # -- one model request ----------------------------------------------------------

    async def _stream_assistant(self) -> AssistantMessage:
        model = self.model
        outcome = await self._call_hook("omp_context", ContextEvent(messages=list(self.messages)))
        context = LlmContext(
            system_prompt=self.system_prompt,
            messages=self._to_llm(outcome.event.messages),
            tools=[tool.spec() for tool in self.tools.active()],
        )
        if model is None:
            message = AssistantMessage(stop_reason="error", error_message="no model selected")
            await self.add_message(message)
            return message
        provider = self.models.provider_of(model)
        options = StreamOptions(
            signal=self.signal,
            thinking_level=self.thinking_level,
            max_tokens=model.max_tokens,
            settings=self.stream_settings,
            **self.host.request_hooks(model),
        )
        state: dict[str, Any] = {"message": None, "final": None}
        # made at the first event once secrets are known: a provider may resolve its key
        # (a ``!command``) for this very request
        guard: StreamGuard | None = None

        async def consume() -> None:
            nonlocal guard
            async for event in provider.stream(model, context, options):
                kind = event["type"]
                if guard is None and self.secrets:
                    guard = StreamGuard(self.secrets)
                if kind == "start":
                    state["message"] = event["partial"]
                    shown = guard.view(event["partial"]) if guard else event["partial"]
                    await self._emit(MessageStartEvent(message=shown))
                elif kind == "done":
                    state["final"] = event["message"]
                    return
                elif kind == "error":
                    state["final"] = event["error"]
                    return
                elif kind == "auto_retry_start":
                    state["retrying"] = event["attempt"]
                    await self._emit(
                        AutoRetryStartEvent(
                            attempt=event["attempt"],
                            max_attempts=event["maxAttempts"],
                            delay_ms=event["delayMs"],
                            error_message=event["errorMessage"],
                        )
                    )
                elif kind == "auto_retry_end":
                    state["retrying"] = None
                    await self._emit(
                        AutoRetryEndEvent(
                            success=event["success"],
                            attempt=event["attempt"],
                            final_error=event.get("finalError"),
                        )
                    )
                else:
                    if state["message"] is None:
                        state["message"] = event["partial"]
                        shown = guard.view(event["partial"]) if guard else event["partial"]
                        await self._emit(MessageStartEvent(message=shown))
                    for update in guard.feed(event) if guard else (event,):
                        await self._emit(
                            MessageUpdateEvent(
                                message=update["partial"], assistant_message_event=update
                            )
                        )

        # aborted before the request (a compaction found the turn too big): send nothing
        error = "aborted" if self.signal.aborted else await run_abortable(consume(), self.signal)
        if state.get("retrying"):  # aborted while a retry waited out its delay, as omp
            await self._emit(
                AutoRetryEndEvent(
                    success=False, attempt=state["retrying"], final_error="Retry cancelled"
                )
            )
        final: AssistantMessage | None = state["final"]
        if final is None:
            final = state["message"] or AssistantMessage(
                api=model.api, provider=model.provider, model=model.id
            )
            if self.signal.aborted:
                final.stop_reason, final.error_message = "aborted", "Request was aborted"
            else:
                final.stop_reason = "error"
                final.error_message = error or "the provider's stream ended without a result"
            _drop_incomplete_tool_calls(final)
        if guard is not None:  # what a block still held back, then the message as shown
            for update in guard.release():
                await self._emit(
                    MessageUpdateEvent(message=update["partial"], assistant_message_event=update)
                )
            final = guard.finish(final)
        if state["message"] is None:
            await self._emit(MessageStartEvent(message=final))
        self.messages.append(final)
        await self._emit(MessageEndEvent(message=final))
        return final

    # -- tools ----------------------------------------------------------------------

    async def _execute_tool_calls(self, calls: list[ToolCall]) -> list[ToolResultMessage]:
        interrupt = AbortSignal(parent=self.signal)
        results: dict[str, ToolResultMessage] = {}
        self._terminating.clear()

        started: set[str] = set()

        async def run_one(call: ToolCall) -> None:
            if interrupt.aborted:
                text = SKIPPED_TEXT if interrupt.reason == "steering" else ABORTED_TEXT
                results[call.id] = await self._finish_skipped(call, text)
                return
            started.add(call.id)
            results[call.id] = await self._execute_one(call, interrupt)
            immediate = self.settings.interrupt_mode == "immediate"
            if immediate and self.steering and not interrupt.aborted:
                interrupt.abort("steering")

        try:
            for batch in self._batches(calls):
                await asyncio.gather(*(run_one(call) for call in batch))
            ordered = [results[call.id] for call in calls]
            for message in ordered:
                await self.add_message(message)
        except BaseException:
            # Cancelled by a signal (or interrupted): the run unwinds, but not before
            # every call has its one result, so the session file stays answerable.
            await self._answer_unfinished(calls, results, started)
            raise
        finally:
            interrupt.detach()
        return ordered

    async def _answer_unfinished(
        self, calls: list[ToolCall], results: dict[str, ToolResultMessage], started: set[str]
    ) -> None:
        """Add the results of ``calls`` not added yet while the run is being cancelled:
        those that finished, and an aborted one for each call still running or never
        started. (A message is appended and written in one step, so one that is in the
        conversation is in the session file too.)"""
        for call in calls:
            if call.id in results:
                continue
            if call.id in started:
                error = ToolResult.error(ABORTED_TEXT)
                results[call.id] = await self._finish(call, call.arguments, error)
            else:
                results[call.id] = await self._finish_skipped(call, ABORTED_TEXT)
        added = {id(m) for m in self.messages[-len(calls) :]}
        for call in calls:
            if id(results[call.id]) not in added:
                await self.add_message(results[call.id])

    def _batches(self, calls: list[ToolCall]) -> list[list[ToolCall]]:
        """Consecutive shared tools run together; an exclusive tool runs alone."""
        batches: list[tuple[bool, list[ToolCall]]] = []
        for call in calls:
            tool = self.tools.get(call.name)
            exclusive = bool(tool and tool.exclusive)
            if exclusive or not batches or batches[-1][0]:
                batches.append((exclusive, [call]))
            else:
                batches[-1][1].append(call)
        return [batch for _, batch in batches]

    async def _finish_skipped(self, call: ToolCall, text: str) -> ToolResultMessage:
        await self._emit(
            ToolExecutionStartEvent(tool_call_id=call.id, tool_name=call.name, args=call.arguments)
        )
        return await self._finish(call, call.arguments, ToolResult.error(text))

    async def _execute_one(self, call: ToolCall, interrupt: AbortSignal) -> ToolResultMessage:
        await self._emit(
            ToolExecutionStartEvent(tool_call_id=call.id, tool_name=call.name, args=call.arguments)
        )
        if call.arguments_error:  # cut off by the stream, or not JSON: never run
            return await self._finish(call, call.arguments, ToolResult.error(call.arguments_error))
        tool = self.tools.get(call.name)
        if tool is None or call.name not in self.tools.active_names():
            available = ", ".join(self.tools.active_names()) or "(none)"
            text = f"Tool {call.name!r} not found. Available tools: {available}"
            return await self._finish(call, call.arguments, ToolResult.error(text))
        arguments = call.arguments
        try:
            params = tool.validate(arguments)
            decision = await self._call_hook(
                "omp_tool_call",
                ToolCallEvent(tool_call_id=call.id, tool_name=call.name, input=arguments),
            )
            if decision is not None and decision.block:
                reason = decision.reason or f"Tool call {call.name} was blocked"
                return await self._finish(call, arguments, ToolResult.error(reason))
            if decision is not None and decision.input is not None:
                arguments = decision.input
                params = tool.validate(arguments)
        except ValidationError as exc:
            invalid = ToolResult.error(describe_validation_error(call.name, exc))
            return await self._finish(call, arguments, invalid)
        denied = await self.host.approve(call, tool, decision)
        if denied is not None:
            return await self._finish(call, arguments, ToolResult.error(denied))
        signal = AbortSignal(parent=interrupt)
        updates: list[asyncio.Future[Any]] = []
        loop = asyncio.get_running_loop()

        def on_update(partial: Any) -> None:
            """Callable from the loop or from the tool's worker thread."""
            event = ToolExecutionUpdateEvent(
                tool_call_id=call.id,
                tool_name=call.name,
                args=arguments,
                partial_result=_partial_payload(partial, self.secrets),
            )
            loop.call_soon_threadsafe(
                lambda: updates.append(asyncio.ensure_future(self._emit(event)))
            )

        async def execute() -> Any:
            ctx = self._tool_context()
            if inspect.iscoroutinefunction(tool.execute):
                return await tool.execute(call.id, params, signal, on_update, ctx)
            if tool.runs_inline(params, ctx):
                raw = tool.execute(call.id, params, signal, on_update, ctx)
            else:
                raw = await run_blocking(tool.execute, call.id, params, signal, on_update, ctx)
            return await raw if inspect.isawaitable(raw) else raw

        box: dict[str, Any] = {}

        async def capture() -> None:
            try:
                box["raw"] = await execute()
            except BaseException as exc:
                if isinstance(exc, Exception) or passes_through(exc):
                    raise
                raise PluginExit(exc) from None

        error = await run_abortable(capture(), signal)
        await asyncio.sleep(0)
        for update in updates:
            await update
        if "raw" in box:
            result = box["raw"]
        elif signal.aborted:
            text = SKIPPED_TEXT if signal.reason == "steering" else ABORTED_TEXT
            result = ToolResult.error(text)
        else:
            result = ToolResult.error(f"Error: {error}")
        return await self._finish(call, arguments, result)

    async def _finish(
        self, call: ToolCall, arguments: dict[str, Any], raw: Any
    ) -> ToolResultMessage:
        """Every tool result passes here: coerced (and its secrets hidden) once, then the
        tool_result hooks, then tool_execution_end."""
        result = coerce_tool_result(raw, self.secrets)
        terminate = result.terminate
        if call.arguments_repair:
            result.details = with_repair(result.details, call.arguments_repair)
        outcome = await self._call_hook(
            "omp_tool_result",
            ToolResultEvent(
                tool_call_id=call.id,
                tool_name=call.name,
                input=arguments,
                content=result.content,
                details=result.details,
                is_error=result.is_error,
            ),
        )
        patched = outcome.event
        if patched.content is not result.content or patched.details is not result.details:
            result = coerce_tool_result(
                {
                    "content": patched.content,
                    "details": patched.details,
                    "is_error": patched.is_error,
                },
                self.secrets,
            )
        result.is_error = bool(patched.is_error)
        if terminate and not result.is_error:
            self._terminating.add(call.id)
        await self._emit(
            ToolExecutionEndEvent(
                tool_call_id=call.id,
                tool_name=call.name,
                result={"content": result.content, "details": result.details},
                is_error=result.is_error,
            )
        )
        return _result_message(call, result)


def messages_after(messages: list[Any], marker: Any) -> list[Any]:
    """The messages after ``marker`` (all of them when it is None or was compacted
    away): what a run added, even when compaction replaced the older ones."""
    if marker is None:
        return list(messages)
    for index in range(len(messages) - 1, -1, -1):
        if messages[index] is marker:
            return messages[index + 1 :]
    return list(messages)


def _result_message(call: ToolCall, result: ToolResult) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name,
        content=result.content,
        details=result.details,
        is_error=result.is_error,
    )


def _drop_incomplete_tool_calls(message: AssistantMessage) -> None:
    message.content = [b for b in message.content if not isinstance(b, ToolCall)]


def _partial_payload(partial: Any, secrets: Secrets | None = None) -> Any:
    result = coerce_tool_result(partial, secrets)
    return {
        "content": [b.model_dump(mode="json") for b in result.content],
        "details": json_safe(result.details),
    }


def _preview(message: Any) -> str:
    content = getattr(message, "content", "")
    return content_text(content) if isinstance(content, str | list) else str(content)


class IncrementalConversion:
    """``convert_to_llm`` for a conversation that grows between requests: what the
    previous request's messages became is kept, and only messages after the longest
    unchanged prefix are converted (compared by identity, then equality, as the wire
    caches compare them), so a request at turn 1,000 converts two messages, not 2,000.
    A tool call left without its result is sent answered (``answer_open_calls``)."""

    def __init__(self) -> None:
        self._seen: list[Any] = []
        self._out: list[Any] = []
        self._ends: list[int] = []
        """len(_out) after each of _seen: a message may become none, one or more."""
        self._open: list[tuple[ToolCall, ...]] = []
        """The calls still without a result after each of _seen."""

    def __call__(self, messages: list[Any]) -> list[Any]:
        seen = self._seen
        keep = len(seen)
        if not (len(messages) >= keep and messages[:keep] == seen):
            keep = 0
            for before, now in zip(seen, messages, strict=False):
                if before is not now and before != now:
                    break
                keep += 1
            del seen[keep:], self._ends[keep:], self._open[keep:]
            del self._out[self._ends[-1] if keep else 0 :]
        out, ends, still_open = self._out, self._ends, self._open
        calls = {call.id: call for call in still_open[-1]} if still_open else {}
        for message in messages[keep:]:
            for converted in convert_to_llm([message]):
                out += answer_open_calls(converted, calls)
            seen.append(message)
            ends.append(len(out))
            still_open.append(tuple(calls.values()) if calls else ())
        return out + [unanswered_result(call) for call in calls.values()]
