"""Incremental request building, for all four provider APIs: each message is converted
to the wire format once, the encoded bytes of the unchanged prefix are reused, and what
is sent is byte for byte the canonical JSON of a body built from scratch - with or
without before_provider_request handlers, across model and compat switches and
changed copies of messages."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import omp_provider_anthropic.convert as anthropic_convert
import omp_provider_google.convert as google_convert
import omp_provider_openai_completions.convert as completions_convert
import omp_provider_openai_responses.convert as responses_convert
import pytest
from omp import (
    AssistantMessage,
    DeveloperMessage,
    ImageContent,
    LlmContext,
    Model,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from omp_llm.config import ProviderConfig
from omp_llm.provider import HttpProvider, Request
from omp_provider_anthropic.wire import WIRE as ANTHROPIC
from omp_provider_google.wire import WIRE as GOOGLE
from omp_provider_openai_completions.wire import WIRE as COMPLETIONS
from omp_provider_openai_responses.wire import WIRE as RESPONSES
from replay import ReplayServer

KEY = "test-key-0123456789"
SETTINGS = {"retry": {"enabled": False}}
TOOLS = [
    {
        "name": "read",
        "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
]
PNG = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")


@dataclass
class Api:
    name: str
    wire: Any
    model: Model
    base_path: str
    convert: Any
    per_message: str
    """The function each assistant message goes through once when converted."""
    compat_switch: dict[str, Any]
    """A compat setting that changes how this history converts."""
    build: Callable[[Any], dict[str, Any]]


APIS = [
    Api(
        "anthropic",
        ANTHROPIC,
        Model(provider="anthropic", id="claude-sonnet-4-0", api="anthropic-messages",
              reasoning=True, input=("text", "image")),
        "",
        anthropic_convert,
        "_assistant_blocks",
        {"cacheControl": False},
        anthropic_convert.build_request,
    ),
    Api(
        "openai-completions",
        COMPLETIONS,
        Model(provider="openai", id="gpt-4o-mini", api="openai-completions",
              input=("text", "image")),
        "/v1",
        completions_convert,
        "_assistant",
        {"toolCallIdLength": 9, "requiresToolResultName": True},
        completions_convert.build_request,
    ),
    Api(
        "openai-responses",
        RESPONSES,
        Model(provider="openai", id="gpt-5", api="openai-responses", reasoning=True,
              input=("text", "image")),
        "/v1",
        responses_convert,
        "_assistant_items",
        {"supportsDeveloperRole": False, "store": True},
        responses_convert.build_request,
    ),
    Api(
        "google",
        GOOGLE,
        Model(provider="google", id="gemini-3-pro-preview", api="google-generative-ai",
              reasoning=True, input=("text", "image")),
        "/v1beta",
        google_convert,
        "_model_parts",
        {"sendToolCallIds": False},
        google_convert.build_request,
    ),
]  # fmt: skip


@pytest.fixture(params=APIS, ids=[api.name for api in APIS])
def api(request) -> Api:
    return request.param


_LOOP: asyncio.Runner


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(tmp_path / "agent"))


@pytest.fixture(autouse=True, scope="module")
def _one_loop():
    """One event loop for the module, so each API's HTTP client is made once."""
    global _LOOP
    with asyncio.Runner() as _LOOP:
        yield


@pytest.fixture(scope="module")
def _server():
    server = ReplayServer()
    yield server
    server.close()


@pytest.fixture
def replay_server(_server):
    """One loopback server for the module (closing one takes half a second)."""
    _server.requests.clear()
    _server.replies.clear()
    return _server


def provider_for(api: Api, server: Any, tmp_path: Path, compat=None) -> tuple[Any, Model]:
    model = replace(api.model, base_url=server.url + api.base_path)
    config = ProviderConfig(
        name=model.provider,
        api=model.api,
        base_url=model.base_url,
        models=[model],
        key_env=["OMP_TEST_UNSET_KEY"],
        compat=dict(compat or {}),
    )
    provider = HttpProvider(config, api.wire, tmp_path / "agent")
    provider.cli_api_key = KEY
    return provider, model


def turn(model: Model, n: int) -> list[Any]:
    """One tool-calling turn: an assistant message with thinking, text and a call, and
    the call's result (a small file, non-ASCII text included)."""
    call_id = f"call_{n}|fc_{n:04d}" if model.api == "openai-responses" else f"toolu_{n}/x.y"
    signature = json.dumps({"id": f"rs_{n}", "encrypted_content": "enc"})
    assistant = AssistantMessage(
        provider=model.provider,
        api=model.api,
        model=model.id,
        stop_reason="toolUse",
        content=[
            ThinkingContent(thinking=f"think {n}", thinking_signature=signature),
            TextContent(text=f"Reading file {n} — ok"),
            ToolCall(id=call_id, name="read", arguments={"path": f"src/f{n}.py", "é": [n]}),
        ],
    )
    result = ToolResultMessage(
        tool_call_id=call_id,
        tool_name="read",
        content=[TextContent(text=f"1\tdef f{n}():\n2\t    return '✓ {n}'\n")],
    )
    return [assistant, result]


def conversation(model: Model, turns: int) -> list[Any]:
    messages: list[Any] = [
        UserMessage(content=[TextContent(text="Look at these files"), PNG]),
        DeveloperMessage(content="Be brief."),
    ]
    for n in range(turns):
        messages += turn(model, n)
    return messages


def canonical(payload: Any) -> bytes:
    """What httpx's ``json=`` would send: the one encoding every body is compared to."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def from_scratch(api: Api, model: Model, messages: list[Any], compat=None) -> bytes:
    """The body built by a provider that has never seen this conversation."""
    config = ProviderConfig(name=model.provider, api=model.api, base_url=model.base_url,
                            models=[model], compat=dict(compat or {}))  # fmt: skip
    fresh = HttpProvider(config, api.wire, Path("/nonexistent"))
    context = LlmContext("You are omp.", list(messages), TOOLS)
    options = StreamOptions(settings=SETTINGS)
    return canonical(api.build(Request(fresh, model, context, options, KEY, {})))


def send(provider, model, messages, server, **options) -> bytes:
    """One request through the real provider; the bytes the server received."""
    server.add(b'{"error": {"message": "captured"}}', status=400)
    before = len(server.requests)
    context = LlmContext("You are omp.", list(messages), TOOLS)

    async def go() -> None:
        opts = StreamOptions(settings=SETTINGS, **options)
        async for _ in provider.stream(model, context, opts):
            pass

    _LOOP.run(go())
    assert len(server.requests) == before + 1
    return server.requests[-1].body


# -- byte-identical bodies ---------------------------------------------------------------


def test_each_request_sends_the_canonical_body_built_from_scratch(api, replay_server, tmp_path):
    provider, model = provider_for(api, replay_server, tmp_path)
    messages = conversation(model, 0)
    for n in range(5):
        sent = send(provider, model, messages, replay_server)
        assert sent == from_scratch(api, model, messages)
        messages += turn(model, n)


def test_each_message_is_converted_once(api, replay_server, tmp_path, monkeypatch):
    calls: list[Any] = []
    original = getattr(api.convert, api.per_message)

    def counting(message, *args, **kwargs):
        calls.append(message)
        return original(message, *args, **kwargs)

    monkeypatch.setattr(api.convert, api.per_message, counting)
    provider, model = provider_for(api, replay_server, tmp_path)
    messages = conversation(model, 0)
    for n in range(6):
        messages += turn(model, n)
        send(provider, model, messages, replay_server)
    assistants = [m for m in messages if isinstance(m, AssistantMessage)]
    assert len(calls) == len(assistants)  # not 1 + 2 + ... + 6
    assert {id(m) for m in calls} == {id(m) for m in assistants}


def test_a_retried_request_converts_nothing_again(api, replay_server, tmp_path, monkeypatch):
    provider, model = provider_for(api, replay_server, tmp_path)
    messages = conversation(model, 3)
    first = send(provider, model, messages, replay_server)
    calls: list[Any] = []
    original = getattr(api.convert, api.per_message)
    monkeypatch.setattr(
        api.convert, api.per_message, lambda m, *a, **k: calls.append(m) or original(m, *a, **k)
    )
    assert send(provider, model, messages, replay_server) == first
    assert calls == []


# -- invalidation ------------------------------------------------------------------------


def test_a_changed_copy_of_a_message_is_converted_afresh(api, replay_server, tmp_path):
    provider, model = provider_for(api, replay_server, tmp_path)
    messages = conversation(model, 3)
    send(provider, model, messages, replay_server)
    changed = list(messages)
    result = changed[3]
    changed[3] = result.model_copy(update={"content": [TextContent(text="changed output")]})
    sent = send(provider, model, changed, replay_server)
    assert b"changed output" in sent
    assert sent == from_scratch(api, model, changed)
    # the original history still converts as it did
    assert send(provider, model, messages, replay_server) == from_scratch(api, model, messages)


def test_a_shorter_or_edited_history_is_rebuilt(api, replay_server, tmp_path):
    provider, model = provider_for(api, replay_server, tmp_path)
    messages = conversation(model, 4)
    send(provider, model, messages, replay_server)
    for variant in (messages[:5], messages[:2] + messages[4:], [messages[0]]):
        assert send(provider, model, variant, replay_server) == from_scratch(api, model, variant)


def test_a_model_or_compat_change_invalidates(api, replay_server, tmp_path):
    provider, model = provider_for(api, replay_server, tmp_path)
    messages = conversation(model, 3)
    send(provider, model, messages, replay_server)
    text_only = replace(model, input=("text",))
    sent = send(provider, text_only, messages, replay_server)
    assert b"image omitted" in sent
    assert sent == from_scratch(api, text_only, messages)
    provider.config.compat.update(api.compat_switch)
    switched = send(provider, model, messages, replay_server)
    assert switched == from_scratch(api, model, messages, api.compat_switch)
    assert switched != from_scratch(api, model, messages)


# -- before_provider_request -------------------------------------------------------------


def test_handlers_that_change_nothing_keep_the_incremental_bytes(api, replay_server, tmp_path):
    provider, model = provider_for(api, replay_server, tmp_path)
    messages = conversation(model, 3)
    plain = send(provider, model, messages, replay_server)
    seen: list[Any] = []

    async def reader(payload):
        seen.append(json.loads(canonical(payload)))  # reads every message
        return payload

    assert send(provider, model, messages, replay_server, on_payload=reader) == plain
    assert seen == [json.loads(plain)]

    async def copier(payload):
        return copy.deepcopy(payload)  # a different object: encoded in full

    assert send(provider, model, messages, replay_server, on_payload=copier) == plain


def test_a_handler_changing_the_payload_in_place_gets_a_full_encode(api, replay_server, tmp_path):
    provider, model = provider_for(api, replay_server, tmp_path)
    messages = conversation(model, 3)
    send(provider, model, messages, replay_server)
    key = next(k for k in ("messages", "input", "contents") if k in json.loads(
        from_scratch(api, model, messages)))  # fmt: skip
    expected = json.loads(from_scratch(api, model, messages))

    async def editor(payload):
        payload[key][1]["edited"] = "by a plugin ✓"
        payload["temperature"] = 0
        return payload

    expected[key][1]["edited"] = "by a plugin ✓"
    expected["temperature"] = 0
    sent = send(provider, model, messages, replay_server, on_payload=editor)
    assert sent == canonical(expected)
    # the cached conversion was not touched by the edit
    assert send(provider, model, messages, replay_server) == from_scratch(api, model, messages)


def test_a_replaced_message_list_is_sent_as_given(api, replay_server, tmp_path):
    provider, model = provider_for(api, replay_server, tmp_path)
    messages = conversation(model, 2)
    send(provider, model, messages, replay_server)
    key = next(k for k in ("messages", "input", "contents") if k in json.loads(
        from_scratch(api, model, messages)))  # fmt: skip

    async def trimmer(payload):
        return {**payload, key: list(payload[key])[:1]}

    sent = json.loads(send(provider, model, messages, replay_server, on_payload=trimmer))
    assert sent[key] == json.loads(from_scratch(api, model, messages))[key][:1]


# -- the transport -----------------------------------------------------------------------


class RecordingClient:
    """An httpx-like client that records what it was asked to send."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def stream(self, method: str, url: str, **kwargs: Any) -> Any:
        self.sent.append(kwargs)
        return _Response()


class _Response:
    status_code = 200
    headers: dict[str, str] = {}

    async def __aenter__(self) -> _Response:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        return None

    async def aiter_lines(self):
        yield "data: end"


def test_httpx_gets_encoded_bytes_not_a_dict_to_encode():
    from omp_llm.transport import stream_lines

    client = RecordingClient()
    body = {"model": "m", "messages": [{"role": "user", "content": "héllo"}]}

    async def go() -> list[str]:
        lines = stream_lines(client, "http://127.0.0.1:9/x", headers={"x-a": "1"}, body=body)
        return [line async for line in lines]

    assert asyncio.run(go()) == ["data: end"]
    (sent,) = client.sent
    assert "json" not in sent
    assert sent["content"] == canonical(body)
    assert sent["headers"] == {"x-a": "1", "content-type": "application/json"}


def test_what_handlers_leave_unchanged_is_not_encoded_again():
    from omp.testing import patched_payload
    from omp_llm.body import PreparedBody

    items = [{"a": 1}, {"b": 2}, {"tail": True}]
    cached = [b'{"a":1},', b'"cached b",', None]  # stands in for {"b":2}: shows reuse
    body = PreparedBody({"model": "m", "messages": items}, "messages", cached, [2])
    view = body.view()
    assert view["messages"][0] == {"a": 1}  # read, not changed
    patched = patched_payload(view, {"patch": {"temperature": 0}})
    assert body.encode(patched) == (
        b'{"model":"m","messages":[{"a":1},"cached b",{"tail":true}],"temperature":0}'
    )
    view["messages"][1]["b"] = 3  # changed in the handler's copy: encoded in full
    assert body.encode(view) == b'{"model":"m","messages":[{"a":1},{"b":3},{"tail":true}]}'
    assert items[1] == {"b": 2}
    view["messages"].append({"c": 4})  # the list itself changed
    assert body.encode(view).endswith(b'{"tail":true},{"c":4}]}')
    assert body.encode() == b'{"model":"m","messages":[{"a":1},"cached b",{"tail":true}]}'


# -- sending the body in pieces ------------------------------------------------------------


@pytest.fixture
def small_pieces(monkeypatch):
    """Blocks and pieces a few hundred bytes long, so a short conversation is sent in
    many pieces (the real sizes are 128 KiB and 64 KiB)."""
    import omp_llm.body
    import omp_llm.incremental

    monkeypatch.setattr(omp_llm.incremental, "BLOCK_BYTES", 300)
    monkeypatch.setattr(omp_llm.body, "PIECE_BYTES", 200)


def test_a_body_sent_in_pieces_is_the_canonical_body(api, replay_server, tmp_path, small_pieces):
    provider, model = provider_for(api, replay_server, tmp_path)
    messages = conversation(model, 0)

    async def reader(payload):
        json.loads(canonical(payload))
        return payload

    async def editor(payload):
        key = next(k for k in ("messages", "input", "contents") if k in payload)
        payload[key][-1]["edited"] = "✓"
        return payload

    for n in range(12):
        expected = from_scratch(api, model, messages)
        assert send(provider, model, messages, replay_server) == expected
        assert send(provider, model, messages, replay_server, on_payload=reader) == expected
        edited = json.loads(send(provider, model, messages, replay_server, on_payload=editor))
        items = next(v for k, v in edited.items() if k in ("messages", "input", "contents"))
        assert items[-1]["edited"] == "✓"
        messages += turn(model, n)
    cut = messages[:7] + messages[9:]  # an edited history: blocks past the cut are dropped
    assert send(provider, model, cut, replay_server) == from_scratch(api, model, cut)
    assert send(provider, model, messages, replay_server) == from_scratch(api, model, messages)


def test_the_unchanged_prefix_is_sent_as_the_same_pieces(
    api, replay_server, tmp_path, monkeypatch, small_pieces
):
    """What a request hands the client is mostly the pieces of earlier requests (the
    same bytes objects): the bytes built per request stay about as many as one turn
    adds, however long the conversation - not a copy of the whole body."""
    import omp_llm.transport

    sent: list[Any] = []
    real = omp_llm.transport.request_pieces

    async def recording(body, options=None):
        pieces = await real(body, options)
        sent.append(pieces)
        return pieces

    monkeypatch.setattr(omp_llm.transport, "request_pieces", recording)
    provider, model = provider_for(api, replay_server, tmp_path)
    messages = conversation(model, 0)
    fresh_bytes: list[int] = []
    body_bytes: list[int] = []
    seen: dict[int, bytes] = {}
    for n in range(40):
        messages += turn(model, n)
        assert send(provider, model, messages, replay_server) == from_scratch(api, model, messages)
        parts = sent[-1].pieces if hasattr(sent[-1], "pieces") else [sent[-1]]
        fresh_bytes.append(sum(len(p) for p in parts if id(p) not in seen))
        body_bytes.append(sum(map(len, parts)))
        seen.update({id(p): p for p in parts})  # kept alive: ids stay unique
    turn_bytes = (body_bytes[-1] - body_bytes[19]) / 20
    built = sum(fresh_bytes[20:]) / 20
    assert built < body_bytes[-1] / 4, (fresh_bytes, body_bytes)  # a full copy: = body_bytes
    assert built < 6 * turn_bytes + 400, fresh_bytes  # blocks joined O(log n) times


# -- the tool list -------------------------------------------------------------------------


def test_the_tool_list_and_system_prompt_are_encoded_once(
    api, replay_server, tmp_path, monkeypatch
):
    import omp_llm.body

    encoded: list[bytes] = []
    real = omp_llm.body.dumps

    def recording(value):
        out = real(value)
        encoded.append(out)
        return out

    provider, model = provider_for(api, replay_server, tmp_path)
    messages = conversation(model, 0)
    tools = real(json.loads(from_scratch(api, model, messages))["tools"])
    for n in range(4):
        messages += turn(model, n)
        expected = from_scratch(api, model, messages)
        monkeypatch.setattr(omp_llm.body, "dumps", recording)
        assert send(provider, model, messages, replay_server) == expected
        monkeypatch.setattr(omp_llm.body, "dumps", real)
    assert sum(1 for out in encoded if out == tools) == 1  # not once per request
    assert sum(1 for out in encoded if b"You are omp." in out) == 1
    other = [{**TOOLS[0], "description": "Read a file, again"}]
    context = LlmContext("You are omp.", list(messages), other)
    request = Request(provider, model, context, StreamOptions(settings=SETTINGS), KEY, {})
    assert b"Read a file, again" in api.convert.prepare_request(request).encode()


def test_a_handler_changing_a_tool_in_place_gets_it_sent(api, replay_server, tmp_path):
    provider, model = provider_for(api, replay_server, tmp_path)
    messages = conversation(model, 2)
    plain = send(provider, model, messages, replay_server)
    expected = json.loads(plain)

    async def reader(payload):
        json.loads(canonical(payload))  # reads every tool
        return payload

    async def editor(payload):
        payload["tools"][0]["edited"] = "by a plugin ✓"
        return payload

    assert send(provider, model, messages, replay_server, on_payload=reader) == plain
    expected["tools"][0]["edited"] = "by a plugin ✓"
    assert send(provider, model, messages, replay_server, on_payload=editor) == canonical(expected)
    assert send(provider, model, messages, replay_server) == plain  # the cached bytes held


def test_a_fixed_field_is_reused_while_handlers_leave_it_unchanged():
    from omp.testing import patched_payload
    from omp_llm.body import PreparedBody

    tools = [{"name": "a"}, {"name": "b"}]
    body = PreparedBody({"model": "m", "tools": tools})
    body.fixed["tools"] = b'"cached tools"'  # stands in for the tools: shows reuse
    assert body.encode() == b'{"model":"m","tools":"cached tools"}'
    view = body.view()
    assert view["tools"][1] == {"name": "b"}  # read, not changed
    patched = patched_payload(view, {"patch": {"temperature": 0}})
    assert body.encode(patched) == b'{"model":"m","tools":"cached tools","temperature":0}'
    view["tools"][1]["name"] = "c"  # changed in the handler's copy: encoded in full
    assert body.encode(view) == b'{"model":"m","tools":[{"name":"a"},{"name":"c"}]}'
    assert tools[1] == {"name": "b"}
    view["tools"].append({"name": "d"})  # the list itself changed
    assert body.encode(view).endswith(b'{"name":"d"}]}')
    assert body.encode({"model": "m", "tools": list(tools)}).endswith(b'{"name":"b"}]}')
    assert body.encode() == b'{"model":"m","tools":"cached tools"}'


def test_the_sessions_secrets_are_told_the_key_once(replay_server, tmp_path):
    from omp import Secrets

    class Recording(Secrets):
        def __init__(self) -> None:
            super().__init__()
            self.told: list[tuple[str, Any]] = []

        def add(self, value: Any, label: str) -> None:
            self.told.append((label, value))
            super().add(value, label)

    api = APIS[1]
    provider, model = provider_for(api, replay_server, tmp_path)
    provider.known_secrets = secrets = Recording()
    messages = conversation(model, 1)
    for _ in range(3):
        send(provider, model, messages, replay_server)
    assert secrets.told == [("openai:key", KEY)]
    assert secrets.redact(f"key {KEY}") == "key [REDACTED:openai:key]"
    provider.cli_api_key = other = "another-key-0123456789"
    send(provider, model, messages, replay_server)
    assert secrets.told[-1] == ("openai:key", other)


def _edit_system(payload: dict[str, Any]) -> None:
    if "system" in payload:
        payload["system"][0]["text"] = "edited ✓"
    elif "systemInstruction" in payload:
        payload["systemInstruction"]["parts"][0]["text"] = "edited ✓"
    else:
        payload["messages" if "messages" in payload else "input"][0]["content"] = "edited ✓"


def test_a_handler_changing_the_system_prompt_in_place_gets_it_sent(api, replay_server, tmp_path):
    provider, model = provider_for(api, replay_server, tmp_path)
    messages = conversation(model, 2)
    plain = send(provider, model, messages, replay_server)
    expected = json.loads(plain)
    _edit_system(expected)

    async def editor(payload):
        _edit_system(payload)
        return payload

    assert send(provider, model, messages, replay_server, on_payload=editor) == canonical(expected)
    assert send(provider, model, messages, replay_server) == plain
