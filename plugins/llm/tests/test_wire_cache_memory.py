"""The wire cache of one reply with thousands of tool calls stays linear in memory
(issue 24, item 6): 10,000 calls in one reply peaked at 1.4 GB when every tool result
kept its own copy of the calls still awaiting results. Measured as allocated bytes
(tracemalloc), not time: deterministic on a busy machine."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import omp_provider_anthropic.convert as anthropic_convert
import omp_provider_google.convert as google_convert
import omp_provider_openai_completions.convert as completions_convert
import omp_provider_openai_responses.convert as responses_convert
import pytest
from omp import AssistantMessage, Model, TextContent, ToolCall, ToolResultMessage, UserMessage
from omp_llm.incremental import WireCache

FOLDS: dict[str, tuple[Model, Callable[[Model], Any]]] = {
    "anthropic": (
        Model(provider="anthropic", id="claude-sonnet-4-0", api="anthropic-messages"),
        lambda model: anthropic_convert.TurnFold(model, caching=True),
    ),
    "openai-completions": (
        Model(provider="openai", id="gpt-4o-mini", api="openai-completions"),
        lambda model: completions_convert.MessageFold(model, {}),
    ),
    "openai-responses": (
        Model(provider="openai", id="gpt-5", api="openai-responses"),
        lambda model: responses_convert.ItemFold(model, {}),
    ),
    "google": (
        Model(provider="google", id="gemini-2.5-pro", api="google-generative-ai"),
        lambda model: google_convert.ContentFold(model, {}),
    ),
}


def one_reply(model: Model, calls: int) -> list[Any]:
    """A prompt, one assistant message with ``calls`` tool calls, and their results."""
    ids = [f"call_{n}" for n in range(calls)]
    reply = AssistantMessage(
        provider=model.provider,
        api=model.api,
        model=model.id,
        stop_reason="toolUse",
        content=[ToolCall(id=i, name="read", arguments={"path": "a.txt"}) for i in ids],
    )
    results = [
        ToolResultMessage(tool_call_id=i, tool_name="read", content=[TextContent(text="hello")])
        for i in ids
    ]
    return [UserMessage(content="go"), reply, *results]


def kept_bytes(name: str, calls: int) -> int:
    """Bytes the cache holds after converting one reply of ``calls`` calls, then the
    same conversation with a follow-up prompt (the next request)."""
    model, new_fold = FOLDS[name]
    messages = one_reply(model, calls)
    cache = WireCache()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        cache.convert(("key",), messages, lambda: new_fold(model))
        cache.convert(("key",), [*messages, UserMessage(content="next")], lambda: new_fold(model))
        return tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("name", list(FOLDS))
def test_memory_for_one_reply_grows_linearly_with_its_tool_calls(name):
    small, large = kept_bytes(name, 500), kept_bytes(name, 2000)
    # four times the calls: about four times the bytes when linear, sixteen when quadratic
    assert large < 6 * small, (name, small, large)


@pytest.mark.parametrize("name", list(FOLDS))
def test_a_result_changed_mid_reply_still_converts_as_from_scratch(name):
    model, new_fold = FOLDS[name]
    messages = one_reply(model, 50)
    cache = WireCache()
    cache.convert(("key",), messages, lambda: new_fold(model))
    changed = list(messages)
    changed[30] = changed[30].model_copy(update={"content": [TextContent(text="changed")]})
    for variant in (changed, messages[:20], messages):
        got = cache.convert(("key",), variant, lambda: new_fold(model))
        fresh = WireCache().convert(("key",), variant, lambda: new_fold(model))
        assert got.items == fresh.items
        assert b"".join(got.encoded) == b"".join(fresh.encoded[: len(got.encoded)])
