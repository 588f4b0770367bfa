"""The scripted provider: replays a script file through the normalized event stream."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from omp import (
    AssistantStream,
    LlmContext,
    Model,
    OmpError,
    Provider,
    StreamOptions,
    Usage,
    apply_cost,
    content_text,
)

from omp_scripted.script import Script, load_script

DEMO_SCRIPT = Path(__file__).with_name("demo.jsonl")
CHUNK = 24


def script_path(api: Any, settings: dict[str, Any]) -> Path:
    """--script, then $OMP_SCRIPT, then the ``scripted.script`` setting, then the demo."""
    chosen = api.get_flag("script") or os.environ.get("OMP_SCRIPT")
    if not chosen:
        section = settings.get("scripted")
        chosen = section.get("script") if isinstance(section, dict) else None
    return Path(chosen).expanduser().resolve() if chosen else DEMO_SCRIPT


def _chunks(text: str) -> list[str]:
    return [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)] or [""]


def _since_last_reply(messages: list[Any]) -> tuple[str | None, set[str]]:
    """The text of the messages after the model's last reply, and the tools whose
    results are among them."""
    texts: list[str] = []
    tools: set[str] = set()
    for message in reversed(messages):
        if message.role == "assistant":
            break
        texts.append(content_text(message.content))
        if message.role == "toolResult":
            tools.add(message.tool_name)
    return ("\n".join(reversed(texts)) if texts else None), tools


class ScriptedProvider(Provider):
    name = "scripted"
    api = "scripted"
    fallback = True

    def __init__(self, plugin_api: Any) -> None:
        super().__init__(
            [
                Model(
                    provider="scripted",
                    id="demo",
                    api="scripted",
                    name="Recorded script (no network)",
                    context_window=200_000,
                    max_tokens=32_000,
                )
            ]
        )
        self._api = plugin_api
        self._cache: dict[Path, tuple[float, Script]] = {}
        self._tally = _Tally()

    def _script(self, settings: Any) -> Script:
        path = script_path(self._api, settings or {})
        try:
            mtime = path.stat().st_mtime
        except OSError:
            raise OmpError(f"script file not found: {path}") from None
        cached = self._cache.get(path)
        if cached and cached[0] == mtime:
            return cached[1]
        script = load_script(path)
        self._cache[path] = (mtime, script)
        return script

    def requested_by(self, flags: dict[str, Any]) -> str | None:
        return "--script" if flags.get("script") else None

    def unavailable_reason(self, settings: dict[str, Any]) -> str | None:
        try:
            self._script(settings)
        except OmpError as exc:
            return str(exc)
        return None

    async def stream(
        self, model: Model, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[dict[str, Any]]:
        out = AssistantStream(model)
        yield out.start()
        try:
            script = self._script(options.settings)
        except OmpError as exc:
            yield out.error(str(exc))
            return
        index, prompt_chars = self._tally.of(context.messages)
        step = script.choose(index, *_since_last_reply(context.messages))
        if step is None:
            yield out.error(_no_reply(script, index))
            return
        if step.delay:
            await asyncio.sleep(step.delay)
        if step.error:
            yield out.error(step.error)
            return
        if step.thinking:
            yield out.thinking_start()
            for piece in _chunks(step.thinking):
                yield out.thinking_delta(piece)
            yield out.thinking_end()
        if step.text:
            yield out.text_start()
            for piece in _chunks(step.text):
                yield out.text_delta(piece)
            yield out.text_end()
        for number, call in enumerate(step.tool_calls, start=1):
            yield out.toolcall_start(call.id or f"script_{index + 1}_{number}", call.name)
            encoded = json.dumps(call.arguments)
            middle = len(encoded) // 2
            yield out.toolcall_delta(encoded[:middle])
            yield out.toolcall_delta(encoded[middle:])
            yield out.toolcall_end()
        prompt_chars += len(context.system_prompt)
        out.message.usage = _usage(prompt_chars, out.message, step.usage, model)
        yield out.done(step.stop_reason)


def _no_reply(script: Script, index: int) -> str:
    if index < len(script.steps):
        line = script.steps[index][0].line
        return (
            f"the script {script.path} has no alternative on line {line} that matches "
            f"request {index + 1}"
        )
    if script.repeated:
        return f"none of the repeated steps of the script {script.path} matches request {index + 1}"
    return (
        f"the script {script.path} has no reply for request {index + 1} "
        f"(it has {len(script.steps)}): the conversation went past what was recorded"
    )


class _Tally:
    """The assistant messages and the prompt characters of a conversation, counted
    once per message: a request's messages are the last request's plus a few, so only
    those after the longest unchanged prefix are counted (summing every message on
    each request made a long run quadratic)."""

    def __init__(self) -> None:
        self._messages: list[Any] = []
        self._totals: list[tuple[int, int]] = [(0, 0)]  # (assistants, chars) per prefix

    def of(self, messages: list[Any]) -> tuple[int, int]:
        """(assistant messages, prompt characters) of ``messages``."""
        known, old = len(self._messages), self._messages
        if len(messages) >= known and messages[:known] == old:  # identity first, then ==
            keep = known
        else:
            keep = 0
            for before, now in zip(old, messages, strict=False):
                if before is not now and before != now:
                    break
                keep += 1
            del old[keep:], self._totals[keep + 1 :]
        assistants, chars = self._totals[-1]
        for message in messages[keep:]:
            if message.role == "assistant":
                assistants, chars = assistants + 1, chars + len(message.text)
            else:
                chars += len(content_text(message.content))
            old.append(message)
            self._totals.append((assistants, chars))
        return assistants, chars


def _usage(prompt_chars: int, message: Any, given: dict[str, int], model: Model) -> Usage:
    """Recorded token counts, or an estimate of about four characters a token."""
    reply_chars = len(message.model_dump_json())
    usage = Usage(
        input=given.get("input", prompt_chars // 4), output=given.get("output", reply_chars // 4)
    )
    return apply_cost(usage, model)
