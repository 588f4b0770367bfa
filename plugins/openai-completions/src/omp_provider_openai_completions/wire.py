"""The openai-completions WireApi: POST {baseUrl}/chat/completions and stream the answer.

Retries, keys, timeouts and cost are omp_llm's; this module sends one
request with a shared httpx client and turns the SSE stream into normalized events.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from omp import AssistantStream, Model, redact_keys
from omp_llm.driver import timeouts
from omp_llm.errors import ProviderError
from omp_llm.http import shared_client as _shared_client
from omp_llm.sse import SseDecoder, iter_sse_sync, split_lines
from omp_llm.transport import stream_lines

from omp_provider_openai_completions.convert import prepare_request
from omp_provider_openai_completions.parse import StreamParser


def shared_client() -> Any:
    """One httpx.AsyncClient per running event loop (a client cannot cross loops)."""
    return _shared_client("openai-completions")


def request_headers(request: Any) -> dict[str, str]:
    headers = dict(request.headers)
    if request.api_key and request.provider.config.auth_header:
        headers["Authorization"] = f"Bearer {request.api_key}"
    return headers


class CompletionsApi:
    api = "openai-completions"

    async def attempt(self, request: Any, out: AssistantStream) -> AsyncIterator[dict[str, Any]]:
        url = f"{request.base_url}/chat/completions"
        first, idle = timeouts(request.options.settings)
        body = prepare_request(request)
        parser = StreamParser(
            out,
            request.secrets,
            request.compat.get("reasoningField"),
            usage_expected="stream_options" in body.payload,
        )
        decoder = SseDecoder()
        lines = stream_lines(
            shared_client(),
            url,
            headers=request_headers(request),
            body=body,
            secrets=request.secrets,
            first_timeout=first,
            idle_timeout=idle,
            options=request.options,
            settled=lambda: parser.finish_reason is not None,
        )
        ending: list[dict[str, Any]] = []
        try:
            async with aclosing(lines):
                async for line in lines:
                    event = decoder.feed(line)
                    if event is None:
                        continue
                    produced = parser.feed(event)
                    if parser.done:  # [DONE]: close the response before the final events
                        ending = produced
                        break
                    for normalized in produced:
                        yield normalized
                    if parser.complete:  # finished, with usage: [DONE] is not needed
                        break
            last = None if parser.done else decoder.finish()
            for normalized in parser.feed(last) if last else []:
                yield normalized
            ending += parser.finish()
        except ProviderError as exc:
            if exc.status == 404:
                raise not_found(exc, url, request) from None
            raise
        for normalized in ending:
            yield normalized


def not_found(exc: ProviderError, url: str, request: Any) -> ProviderError:
    """A 404 names the URL that answered it: a wrong baseUrl must not read like a
    problem with the model (a server's own "model not found" keeps its message)."""
    text = exc.message
    if exc.kind == "model_not_found" or "model" in text.lower():
        message = f"{text} (answered by {url})"
    else:
        base = request.base_url
        hint = (
            "check the provider's baseUrl"
            if re.search(r"/v\d+[a-z]*$", base)
            else "is the baseUrl missing /v1?"
        )
        message = f"{url} answered 404, so no chat completions API is there ({hint}); {text}"
    return ProviderError(redact_keys(message, request.secrets), status=404, kind=exc.kind)


def parse_recorded(data: bytes, model: Model) -> list[dict[str, Any]]:
    """A recorded response body replayed from memory through the same parser (for the
    benchmark): every event, from start to the final done."""
    out = AssistantStream(model)
    parser = StreamParser(out)
    events = [out.start()]
    for event in iter_sse_sync(split_lines(data)):
        events += parser.feed(event)
        if parser.done:
            return events
    return events + parser.finish()


WIRE = CompletionsApi()
