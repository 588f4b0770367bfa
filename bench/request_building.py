"""Building one provider request at turn 50, 200, 500 and 1,000 of a conversation (issue 10).

For each provider API, a synthetic conversation grows turn by turn (each turn: an
assistant message with text and a ``read`` tool call, and the call's result: a small
file of about 1 KB), with an 8 KB system prompt and 10 tools. At each size the next
few requests are built the way the live provider builds them - the plugin's
``prepare_request`` (conversion) and ``omp_llm.body.request_pieces`` (what httpx gets:
the bytes in a few pieces, the conversation's cached blocks as they are, through a
before_provider_request callback that changes nothing, as a session always installs
one) - and timed:

* ``cached``: the provider's WireCache converted the earlier turns already (the
  request converts and encodes only the new turn);
* ``full``: the same body built from scratch (a provider that has never seen the
  conversation, then a full JSON encoding): the cost every request paid before.

Prints milliseconds per request at each size and the ratio of the last size to the
first (flat: close to 1). Targets: cached under 1 ms per request at 1,000 turns, and
the bytes identical to the full build (checked at every size).

    .venv/bin/python bench/request_building.py [--sizes 50,200,500,1000] [--requests 9]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import statistics
import time
from pathlib import Path
from typing import Any

from omp.agent.messages import (
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from omp.agent.providers import LlmContext, Model, StreamOptions
from omp_llm.body import request_pieces
from omp_llm.config import ProviderConfig
from omp_llm.provider import HttpProvider, Request

# (api, provider, model id, the plugin's convert module)
APIS = [
    ("anthropic-messages", "anthropic", "claude-sonnet-4-5", "omp_provider_anthropic.convert"),
    ("openai-completions", "openai", "gpt-4o-mini", "omp_provider_openai_completions.convert"),
    ("openai-responses", "openai", "gpt-5", "omp_provider_openai_responses.convert"),
    ("google-generative-ai", "google", "gemini-2.5-pro", "omp_provider_google.convert"),
]
SYSTEM = "You are a coding agent. " * 340  # about 8 KB
TOOLS = [
    {
        "name": f"tool_{n}",
        "description": f"Tool number {n}: does one thing well. " * 4,
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["path"],
        },
    }
    for n in range(10)
]
FILE = "".join(f"{n}\tdef function_{n}(value):\n" for n in range(40))  # about 1 KB


def turn(model: Model, n: int) -> list[Any]:
    call_id = f"call_{n:05d}_abcdefghijklmnopqrstuvwxyz0123456789"
    assistant = AssistantMessage(
        provider=model.provider,
        api=model.api,
        model=model.id,
        stop_reason="toolUse",
        content=[
            TextContent(text=f"Let me read file {n}."),
            ToolCall(id=call_id, name="read", arguments={"path": f"src/module_{n}.py"}),
        ],
    )
    result = ToolResultMessage(
        tool_call_id=call_id, tool_name="read", content=[TextContent(text=FILE)]
    )
    return [assistant, result]


def provider_for(model: Model) -> HttpProvider:
    config = ProviderConfig(
        name=model.provider, api=model.api, base_url="http://127.0.0.1:9", models=[model]
    )
    return HttpProvider(config, None, Path("/nonexistent"))  # type: ignore[arg-type]


async def _unchanged(payload: Any) -> Any:
    return payload


def build(convert: Any, provider: HttpProvider, model: Model, messages: list[Any]) -> Any:
    context = LlmContext(SYSTEM, messages, TOOLS)
    options = StreamOptions(on_payload=_unchanged)
    request = Request(provider, model, context, options, "key", {})
    content = _complete(request_pieces(convert.prepare_request(request), options))
    return content if isinstance(content, bytes) else content.pieces


def _complete(coroutine: Any) -> Any:
    """The result of a coroutine that never waits (no event loop needed to time it)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("the request waited for something")


def full_build(convert: Any, model: Model, messages: list[Any]) -> bytes:
    context = LlmContext(SYSTEM, messages, TOOLS)
    request = Request(provider_for(model), model, context, StreamOptions(), "key", {})
    body = convert.build_request(request)
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def measure(api: str, provider_name: str, model_id: str, module: str, sizes, requests):
    convert = importlib.import_module(module)
    model = Model(provider=provider_name, id=model_id, api=api, reasoning=True)
    provider = provider_for(model)
    messages: list[Any] = [UserMessage(content="Read every module and summarise them.")]
    cached: dict[int, float] = {}
    full: dict[int, float] = {}
    kilobytes: dict[int, float] = {}
    turns = 0
    for size in sizes:
        while turns < size - requests:
            messages += turn(model, turns)
            turns += 1
        build(convert, provider, model, messages)  # the cache as a running session has it
        times = []
        for _ in range(requests):
            messages += turn(model, turns)
            turns += 1
            gc.disable()  # a collection's pause is not the request's cost
            start = time.perf_counter()
            sent = build(convert, provider, model, messages)
            times.append(time.perf_counter() - start)
            gc.enable()
        cached[size] = statistics.median(times) * 1000
        start = time.perf_counter()
        scratch = full_build(convert, model, messages)
        full[size] = (time.perf_counter() - start) * 1000
        sent = sent if isinstance(sent, bytes) else b"".join(sent)
        if sent != scratch:
            raise SystemExit(f"{api}: the cached body differs from the full build at {size}")
        kilobytes[size] = len(sent) / 1024
    return cached, full, kilobytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50,200,500,1000")
    parser.add_argument("--requests", type=int, default=9)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    header = "".join(f"{s:>18}" for s in sizes)
    print(f"ms per request (cached / full build) at turn:{'':>2}{header}{'last/first':>12}")
    for api, provider_name, model_id, module in APIS:
        cached, full, kilobytes = measure(
            api, provider_name, model_id, module, sizes, args.requests
        )
        cells = "".join(f"{cached[s]:>8.2f} / {full[s]:>7.2f}" for s in sizes)
        ratio = cached[sizes[-1]] / cached[sizes[0]]
        print(f"{api:<44}{cells}{ratio:>11.2f}x")
        print(f"{'  body KB':<44}" + "".join(f"{kilobytes[s]:>18.0f}" for s in sizes))


if __name__ == "__main__":
    main()
