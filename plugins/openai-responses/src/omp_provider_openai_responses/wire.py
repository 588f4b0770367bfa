"""The openai-responses WireApi: POST {base_url}/responses with ``stream: true`` and turn
the Server-Sent Events into omp's normalized events (see parse.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from omp import AssistantStream
from omp_llm.driver import timeouts
from omp_llm.errors import ProviderError
from omp_llm.http import shared_client
from omp_llm.sse import iter_sse
from omp_llm.transport import stream_lines

from omp_provider_openai_responses.convert import build_request, prepare_request
from omp_provider_openai_responses.parse import StreamParser, decode_event, parse_recorded

__all__ = ["WIRE", "ResponsesWire", "build_request", "parse_recorded"]


class ResponsesWire:
    api = "openai-responses"

    def client(self) -> Any:
        """One httpx.AsyncClient per running event loop (a client cannot cross loops)."""
        return shared_client("openai-responses")

    def headers(self, request: Any) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        headers.update(request.headers)
        has_auth = any(name.lower() == "authorization" for name in request.headers)
        if request.api_key and request.provider.config.auth_header and not has_auth:
            headers["authorization"] = f"Bearer {request.api_key}"
        return headers

    async def attempt(self, request: Any, out: AssistantStream) -> AsyncIterator[dict[str, Any]]:
        body = prepare_request(request)
        first, idle = timeouts(request.options.settings)
        parser = StreamParser(out, request.secrets)
        lines = stream_lines(
            self.client(),
            f"{request.base_url}/responses",
            headers=self.headers(request),
            body=body,
            secrets=request.secrets,
            first_timeout=first,
            idle_timeout=idle,
            options=request.options,
        )
        try:
            async with aclosing(lines), aclosing(iter_sse(lines)) as events:
                async for sse in events:
                    data = decode_event(sse)
                    if data is None:
                        continue
                    for event in parser.feed(data):
                        yield event
                    if parser.completed:
                        break
        except ProviderError as exc:
            raise _explained(exc, parser) from None
        for event in parser.finish():
            yield event


def _explained(error: ProviderError, parser: StreamParser) -> ProviderError:
    if error.kind == "insufficient_quota":
        # OpenAI answers an exhausted quota with HTTP 429: waiting will not help.
        error.retryable = False
    return error


WIRE = ResponsesWire()
