"""Test doubles: a provider that answers from a list, and a contributing plugin."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import omp
from omp.agent.providers import AssistantStream, Model, Provider


class ListProvider(Provider):
    """Answers request N with replies[N]: a dict (text, thinking, calls, delay, error) or a
    callable taking the LlmContext and returning such a dict. Records every request."""

    name = "test"
    api = "test"

    def __init__(self, replies: list[Any]) -> None:
        super().__init__([Model(provider="test", id="model", api="test", context_window=1000)])
        self.replies = list(replies)
        self.requests: list[Any] = []

    async def stream(self, model, context, options):
        self.requests.append(context)
        out = AssistantStream(model)
        yield out.start()
        reply = self.replies.pop(0) if self.replies else {"text": "done"}
        if callable(reply):
            reply = reply(context)
        if reply.get("delay"):
            await asyncio.sleep(reply["delay"])
        for event in reply_events(out, reply, len(self.requests)):
            yield event


def reply_events(out: AssistantStream, reply: dict[str, Any], request_number: int) -> list[Any]:
    """The stream events of one reply dict (text, calls, error) after ``out.start()``;
    tool call ids are ``call_<request number>_<n>``."""
    if reply.get("error"):
        return [out.error(reply["error"])]
    events = []
    if reply.get("text"):
        events += [out.text_start(), out.text_delta(reply["text"]), out.text_end()]
    for number, (name, args) in enumerate(reply.get("calls", []), start=1):
        events.append(out.toolcall_start(f"call_{request_number}_{number}", name))
        events += [out.toolcall_delta(json.dumps(args)), out.toolcall_end()]
    return [*events, out.done()]


class Contribute:
    """A plugin contributing the given providers and tools."""

    def __init__(self, providers=(), tools=()) -> None:
        self.providers, self.tools = list(providers), list(tools)

    @omp.hookimpl
    def omp_register_providers(self, api):
        return self.providers

    @omp.hookimpl
    def omp_register_tools(self, api):
        return self.tools


def texts(context: Any) -> list[str]:
    """The text of every message a provider was sent, in order."""
    from omp.agent.messages import content_text

    out = []
    for message in context.messages:
        if message.role == "assistant":
            out.append(message.text)
        else:
            out.append(content_text(message.content))
    return out
