"""The google-generative-ai wire API: POST .../models/{id}:streamGenerateContent?alt=sse
with the key in x-goog-api-key, decoded by StreamParser."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from omp import AssistantStream, Model
from omp_llm.driver import timeouts
from omp_llm.http import shared_client
from omp_llm.sse import iter_sse, iter_sse_sync, split_lines
from omp_llm.transport import stream_lines

from omp_provider_google.convert import prepare_request
from omp_provider_google.parse import StreamParser


def client() -> Any:
    """The shared httpx.AsyncClient of the running event loop."""
    return shared_client("google")


def endpoint(request: Any) -> str:
    return f"{request.base_url}/models/{request.model.id}:streamGenerateContent?alt=sse"


def headers(request: Any) -> dict[str, str]:
    out = {"accept": "text/event-stream"}
    if request.api_key:
        out[request.compat.get("apiKeyHeader") or "x-goog-api-key"] = request.api_key
    out.update(request.headers)
    return out


class GoogleWire:
    api = "google-generative-ai"

    async def attempt(self, request: Any, out: AssistantStream) -> AsyncIterator[dict[str, Any]]:
        first, idle = timeouts(request.options.settings)
        parser = StreamParser(out, request.secrets)
        lines = stream_lines(
            client(),
            endpoint(request),
            headers=headers(request),
            body=prepare_request(request),
            secrets=request.secrets,
            first_timeout=first,
            idle_timeout=idle,
            options=request.options,
            settled=lambda: parser.finish_reason is not None,
        )
        async with aclosing(lines), aclosing(iter_sse(lines)) as events:
            async for event in events:
                for normalized in parser.feed(event):
                    yield normalized
                if parser.complete:  # the connection may stay open: do not wait for it
                    break
        for normalized in parser.finish():
            yield normalized


WIRE = GoogleWire()


def parse_recorded(data: bytes, model: Model) -> list[dict[str, Any]]:
    """A recorded response body replayed from memory through the same parser."""
    out = AssistantStream(model)
    parser = StreamParser(out)
    events = [out.start()]
    for event in iter_sse_sync(split_lines(data)):
        events.extend(parser.feed(event))
    events.extend(parser.finish())
    return events
