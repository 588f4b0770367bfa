"""The anthropic-messages WireApi: one streamed ``POST {base_url}/v1/messages``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from omp import AssistantStream, Model
from omp_llm.driver import timeouts
from omp_llm.errors import ProviderError
from omp_llm.http import shared_client
from omp_llm.sse import SseDecoder, iter_sse_sync, split_lines
from omp_llm.transport import stream_lines

from omp_provider_anthropic.convert import prepare_request
from omp_provider_anthropic.parse import StreamParser

API_VERSION = "2023-06-01"


def messages_url(base_url: str) -> str:
    """``{base}/v1/messages``; a base that already ends in /v1 is not doubled."""
    base = base_url.rstrip("/")
    return f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"


def request_headers(request: Any) -> dict[str, str]:
    headers = {
        "content-type": "application/json",
        "accept": "text/event-stream",
        "anthropic-version": API_VERSION,
    }
    if request.api_key:
        if request.compat.get("bearerAuth"):
            headers["authorization"] = f"Bearer {request.api_key}"
        else:
            headers["x-api-key"] = request.api_key
    for name, value in request.headers.items():
        headers[name.lower()] = value
    return headers


def client() -> Any:
    """One shared httpx.AsyncClient per running event loop (the transport times it)."""
    return shared_client("anthropic")


class AnthropicWire:
    api = "anthropic-messages"

    async def attempt(self, request: Any, out: AssistantStream) -> AsyncIterator[dict[str, Any]]:
        body = prepare_request(request)
        first, idle = timeouts(request.options.settings)
        parser = StreamParser(out, request.secrets)
        decoder = SseDecoder()
        final: list[dict[str, Any]] = []
        lines = stream_lines(
            client(),
            messages_url(request.base_url),
            headers=request_headers(request),
            body=body,
            secrets=request.secrets,
            first_timeout=first,
            idle_timeout=idle,
            options=request.options,
            settled=lambda: parser.stop_reason is not None,  # message_stop may not come
        )
        async with aclosing(lines):
            async for line in lines:
                event = decoder.feed(line)
                if event is None:
                    continue
                for item in parser.feed(event):
                    if item["type"] == "done":
                        final.append(item)
                    else:
                        yield item
                if final:
                    break  # message_stop: release the connection before reporting done
        if not final:
            last = decoder.finish()
            if last is not None:
                final.extend(parser.feed(last))
            final.extend(parser.finish())
        for item in final:
            yield item


WIRE = AnthropicWire()


def parse_recorded(data: bytes, model: Model) -> list[dict[str, Any]]:
    """Replay a recorded SSE body from memory through the same parser (benchmarks)."""
    out = AssistantStream(model)
    parser = StreamParser(out)
    events = [out.start()]
    try:
        for event in iter_sse_sync(split_lines(data)):
            events.extend(parser.feed(event))
        events.extend(parser.finish())
    except ProviderError as exc:
        events.append(out.error(exc.message))
    return events
