"""The scripted provider's estimate of the prompt's tokens: right whatever the
conversation does, and counted once per message (a long run stays linear)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import omp_scripted.provider as provider_module
from omp import AssistantMessage, LlmContext, StreamOptions, TextContent, UserMessage
from omp_scripted.provider import ScriptedProvider


class _Api:
    def get_flag(self, name: str) -> Any:
        return None


def _reply(provider: ScriptedProvider, script: Path, messages: list[Any]) -> AssistantMessage:
    async def run() -> AssistantMessage:
        options = StreamOptions(settings={"scripted": {"script": str(script)}})
        context = LlmContext(system_prompt="You are brief.", messages=messages)
        async for event in provider.stream(provider.models[0], context, options):
            if event["type"] == "done":
                return event["message"]
        raise AssertionError("no reply")

    return asyncio.run(run())


def _expected_input(messages: list[Any]) -> int:
    chars = len("You are brief.") + sum(
        len(m.text) if m.role == "assistant" else len(m.content) for m in messages
    )
    return chars // 4


def _script(tmp_path: Path, turns: int) -> Path:
    script = tmp_path / "script.jsonl"
    lines = [json.dumps({"text": f"answer {n} " * 5}) for n in range(turns)]
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return script


def test_input_estimate_follows_a_changed_conversation(tmp_path: Path) -> None:
    script = _script(tmp_path, 6)
    provider = ScriptedProvider(_Api())
    messages: list[Any] = []
    for n in range(3):
        messages.append(UserMessage(content=f"question {n} " * 7))
        reply = _reply(provider, script, messages)
        assert reply.text == f"answer {n} " * 5
        assert reply.usage.input == _expected_input(messages)
        messages.append(reply)
    # A handler's copy with an earlier message changed, then a shorter conversation.
    changed = [*messages[:2], UserMessage(content="edited " * 40), *messages[3:]]
    changed.append(UserMessage(content="once more"))
    reply = _reply(provider, script, changed)
    assert reply.text == "answer 3 " * 5
    assert reply.usage.input == _expected_input(changed)
    shorter = [UserMessage(content="from the start, longer than before " * 3)]
    assert _reply(provider, script, shorter).usage.input == _expected_input(shorter)


def test_each_message_is_measured_once(tmp_path: Path, monkeypatch: Any) -> None:
    turns = 40
    script = _script(tmp_path, turns)
    provider = ScriptedProvider(_Api())
    measured: list[Any] = []
    original = provider_module.content_text

    def counting(content: Any) -> str:
        measured.append(content)
        return original(content)

    monkeypatch.setattr(provider_module, "content_text", counting)
    messages: list[Any] = []
    for n in range(turns):
        messages.append(UserMessage(content=[TextContent(text=f"question {n}")]))
        before = len(measured)
        messages.append(_reply(provider, script, messages))
        # the new question, for the estimate and for the step's match: never the
        # earlier ones again
        assert len(measured) - before <= 2
