"""Gap 10: a public one-shot completion. pi's handoff example, ported with public names
only (``complete``, ``serialize_conversation``, the command context), and ``complete``
/ ``stream_completion`` on their own, against the scripted provider."""

from __future__ import annotations

import asyncio

import omp
import pytest
from omp.agent.messages import AssistantMessage, TextContent, ToolCall, UserMessage
from omp.agent.tools import Tool
from omp.base.errors import OmpError
from omp.runtime.completion import complete, serialize_conversation, stream_completion
from pydantic import BaseModel

HANDOFF_SCRIPT = [
    {"repeat": True, "when": "Write a handoff", "text": "HANDOFF: the user greeted; go on"},
    {"repeat": True, "when": "HANDOFF:", "text": "continuing from the handoff"},
    {"repeat": True, "text": "hello back"},
]


class Handoff:
    """pi's handoff.ts: summarise this conversation with the current model, then go on
    in a new session that starts from the summary."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    @omp.hookimpl
    def omp_register_commands(self, api):
        from omp.plugin.contrib import Command

        async def handoff(args, ctx):
            conversation = serialize_conversation(ctx.session.build_context().messages)
            prompt = f"Write a handoff note for: {args}\n\n{conversation}"
            self.prompts.append(prompt)
            note = await complete(
                ctx.model, [prompt], system="You write handoffs.", registry=ctx.model_registry
            )
            await ctx.new_session()
            await ctx.prompt(note.text)

        return [Command("handoff", "Go on in a new session from a summary", handoff)]


def test_a_handoff_plugin_needs_only_public_names(omp_harness):
    plugin = Handoff()
    session = omp_harness.session([plugin], script=HANDOFF_SCRIPT)
    events = omp_harness.run(session, "hi", "/handoff the next step")
    [prompt] = plugin.prompts
    assert "[User]: hi\n\n[Assistant]: hello back" in prompt
    assert [m.role for m in session.agent.messages] == ["user", "assistant"]
    assert session.agent.messages[0].content == "HANDOFF: the user greeted; go on"
    assert events.final_text() == "continuing from the handoff"


def _registry(omp_harness, steps):
    return omp_harness.session(script=steps).models


def test_complete_answers_without_a_session_and_offers_tools(omp_harness):
    class Where(BaseModel):
        path: str

    tool = Tool(name="look", description="Look", parameters=Where, execute=lambda *a: None)
    steps = [{"text": "looking", "tool_calls": [{"name": "look", "arguments": {"path": "."}}]}]
    registry = _registry(omp_harness, steps)
    answer = asyncio.run(
        complete("scripted/demo", ["where?"], tools=[tool], registry=registry, thinking="low")
    )
    assert isinstance(answer, AssistantMessage)
    assert answer.text == "looking"
    assert [(c.name, c.arguments) for c in answer.tool_calls] == [("look", {"path": "."})]
    assert answer.stop_reason == "toolUse"


def test_a_failed_request_is_an_answer_that_says_why(omp_harness):
    registry = _registry(omp_harness, [{"error": "overloaded"}])
    answer = asyncio.run(complete("scripted/demo", ["hi"], registry=registry))
    assert (answer.stop_reason, answer.error_message) == ("error", "overloaded")


def test_an_open_tool_call_is_answered_at_the_conversion_boundary(omp_harness):
    seen = []

    class Spy:
        def __init__(self, real):
            self.real = real

        def unavailable_reason(self, settings):
            return None

        def stream(self, model, context, options):
            seen.append(context.messages)
            return self.real.stream(model, context, options)

    registry = _registry(omp_harness, [{"text": "ok"}])
    model = registry.resolve("scripted/demo")
    registry.providers["scripted"] = Spy(registry.providers["scripted"])
    call = ToolCall(id="c1", name="look", arguments={})
    history = [
        UserMessage(content="hi"),
        AssistantMessage(content=[TextContent(text="x"), call], stop_reason="toolUse"),
    ]
    asyncio.run(complete(model, history, registry=registry))
    [sent] = seen
    assert [m.role for m in sent] == ["user", "assistant", "toolResult"]
    assert sent[-1].tool_call_id == "c1" and sent[-1].is_error


def test_on_payload_reaches_the_provider(omp_harness):
    """A plugin's ``on_payload`` is the request's: an HTTP provider hands it the JSON
    body it is about to send and sends what it returns (Anthropic's server tools)."""
    sent = []

    class Sender:
        def __init__(self, real):
            self.real = real

        def unavailable_reason(self, settings):
            return None

        async def stream(self, model, context, options):
            sent.append(await options.on_payload({"model": model.id}))
            async for event in self.real.stream(model, context, options):
                yield event

    async def add_tool(payload):
        return {**payload, "tools": [{"type": "web_search_20250305", "name": "web_search"}]}

    registry = _registry(omp_harness, [{"text": "one", "repeat": True}])
    model = registry.resolve("scripted/demo")
    registry.providers["scripted"] = Sender(registry.providers["scripted"])

    async def main():
        answer = await complete(model, ["hi"], registry=registry, on_payload=add_tool)
        stream = stream_completion(model, ["hi"], registry=registry, on_payload=add_tool)
        return answer, [e async for e in stream]

    answer, events = asyncio.run(main())
    assert answer.text == "one" and events[-1]["type"] == "done"
    tools = [{"type": "web_search_20250305", "name": "web_search"}]
    assert sent == [{"model": "demo", "tools": tools}] * 2


def test_stream_completion_yields_the_provider_events(omp_harness):
    registry = _registry(omp_harness, [{"text": "streamed answer"}])

    async def main():
        return [e async for e in stream_completion("scripted/demo", ["hi"], registry=registry)]

    events = asyncio.run(main())
    assert events[0]["type"] == "start" and events[-1]["type"] == "done"
    deltas = "".join(e["delta"] for e in events if e["type"] == "text_delta")
    assert deltas == "streamed answer" == events[-1]["message"].text


def test_without_a_registry_the_installed_providers_answer(omp_harness, monkeypatch):
    monkeypatch.chdir(omp_harness.cwd)
    monkeypatch.setenv("OMP_SCRIPT", str(omp_harness.script([{"text": "from env"}])))
    answer = asyncio.run(complete("scripted/demo", ["hi"]))
    assert answer.text == "from env"


@pytest.mark.parametrize(
    "model, options, message",
    [
        ("nosuch/model", {}, "nosuch"),
        ("scripted/demo", {"thinking": "huge"}, "unknown thinking level 'huge'"),
    ],
)
def test_bad_calls_are_one_line_errors(omp_harness, model, options, message):
    registry = _registry(omp_harness, [{"text": "ok"}])
    with pytest.raises(OmpError, match=message) as caught:
        asyncio.run(complete(model, ["hi"], registry=registry, **options))
    assert "\n" not in str(caught.value)
