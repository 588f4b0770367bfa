"""HttpProvider: a provider configured by the catalogue or models.json, whose wire format
is implemented by an API plugin (``WireApi``). Keys, availability and retries are
handled here once, for every API."""

from __future__ import annotations

import contextlib
import re
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from omp import AssistantStream, LlmContext, Model, OmpError, Provider, StreamOptions

from omp_llm.config import ProviderConfig, auth_file, key_source, resolve_key, resolve_value
from omp_llm.driver import run_stream
from omp_llm.errors import ProviderError
from omp_llm.incremental import WireCache

_CREDENTIAL = re.compile(r"auth|key|token|secret|cookie|password", re.IGNORECASE)
"""Header names whose values are credentials, hidden from every error message."""


class WireApi(Protocol):
    """What an API plugin implements: one request, streamed as normalized events."""

    api: str

    def attempt(self, request: Request, out: AssistantStream) -> AsyncIterator[dict[str, Any]]:
        """Send the request and yield text/thinking/toolcall events built with ``out``,
        then ``out.done(...)``; raise omp_llm.errors.ProviderError on failure."""
        ...


class Request:
    """Everything one attempt needs; ``secrets`` are redacted from any error text."""

    def __init__(
        self,
        provider: HttpProvider,
        model: Model,
        context: LlmContext,
        options: StreamOptions,
        api_key: str | None,
        headers: dict[str, str],
    ) -> None:
        self.provider, self.model, self.context, self.options = provider, model, context, options
        self.api_key, self.headers = api_key, headers
        self.secrets: list[str | None] = [api_key] + [
            value for name, value in headers.items() if _CREDENTIAL.search(name)
        ]

    @property
    def base_url(self) -> str:
        return (self.model.base_url or self.provider.config.base_url).rstrip("/")

    @property
    def compat(self) -> dict[str, Any]:
        return {**self.provider.config.compat, **self.model.compat}


class HttpProvider(Provider):
    def __init__(
        self, config: ProviderConfig, wire: WireApi | Callable[[], WireApi], agent_dir: Path
    ) -> None:
        super().__init__(config.models)
        self.name, self.api, self.priority = config.name, config.api, config.priority
        self.config, self.agent_dir = config, agent_dir
        self._wire = wire
        self.configured_in = config.configured_in
        self.cli_api_key: str | None = None
        """--api-key, when it was given for this provider's model."""
        self._local_checked: str | bool | None = False
        self.disabled_cause: str | None = None
        """Why the provider rejected its key; the key is not sent again."""
        self.wire_cache = WireCache()
        """The conversations converted so far, so each message is converted once."""
        self.known_secrets: Any = None
        """The session's omp.config.secrets.Secrets: told the key and credential headers each
        request resolves (a ``!command``'s output is known only then)."""
        self._told: tuple[Any, list[str | None]] | None = None
        """(known_secrets, secrets) as last told: the same ones are not told again."""

    @property
    def wire(self) -> WireApi:
        """The API's wire code; given as a loader, loaded on first use (a run registers
        every API's providers and talks to one)."""
        wire = self._wire
        if not hasattr(wire, "attempt"):
            wire = self._wire = wire()  # type: ignore[operator]
        return wire  # type: ignore[return-value]

    def needs_key(self) -> bool:
        return not self.config.local and bool(self.config.api_key or self.config.key_env)

    def unavailable_reason(self, settings: dict[str, Any]) -> str | None:
        if self.disabled_cause:
            return f"its API key was rejected ({self.disabled_cause})"
        if self.config.local:
            return self._local_reason()
        if self.cli_api_key or not self.needs_key():
            return None
        try:
            if key_source(self.config, self.agent_dir):
                return None
        except OmpError as exc:
            return str(exc)
        if self.config.api_key:
            return (
                f"no API key: {self.config.source} names ${self.config.api_key}, which is not set"
            )
        names = " or ".join(f"${n}" for n in self.config.key_env)
        return (
            f"no API key (set {names}, store one in {auth_file(self.agent_dir)}, or pass --api-key)"
        )

    def _local_reason(self) -> str | None:
        """A local server (Ollama) must answer; its installed models replace the list."""
        if self._local_checked is not False:
            return self._local_checked  # type: ignore[return-value]
        from omp_llm.local import discover_models, local_base_url

        base = local_base_url(self.config.base_url)
        parts = urlsplit(base)
        try:
            with socket.create_connection(
                (parts.hostname or "localhost", parts.port or 80), timeout=0.3
            ):
                pass
        except OSError:
            self._local_checked = f"no server answers at {base} (start it with `ollama serve`)"
            return self._local_checked
        installed = discover_models(base, self.config)
        if installed is None:
            self.models = [replace(m, base_url=base) for m in self.models]
        else:
            if not installed:
                self._local_checked = (
                    f"the server at {base} has no models installed (ollama pull qwen2.5-coder:7b)"
                )
                return self._local_checked
            self.models = installed
        self._local_checked = None
        return None

    def _headers(self, model: Model) -> dict[str, str]:
        """Custom headers (the provider's, then the model's), each resolved like a key."""
        import os

        values = {}
        for name, value in {**self.config.headers, **model.headers}.items():
            resolved = resolve_value(value, os.environ) if isinstance(value, str) else None
            if resolved is not None:
                values[name] = resolved
        return values

    async def stream(
        self, model: Model, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[dict[str, Any]]:
        try:
            key = resolve_key(self.config, self.agent_dir, self.cli_api_key)
            headers = self._headers(model)
        except OmpError as exc:
            out = AssistantStream(model)
            yield out.start()
            yield out.error(str(exc))
            return
        if (self.needs_key() and not key) or self.disabled_cause:
            out = AssistantStream(model)
            yield out.start()
            reason = self.unavailable_reason({}) or "no API key"
            yield out.error(f"{self.name}: {reason}" if self.disabled_cause else reason)
            return
        request = Request(self, model, context, options, key, headers)
        told = (self.known_secrets, request.secrets)
        if self.known_secrets is not None and told != self._told:  # told once, not per request
            self.known_secrets.add_all((f"{self.name}:key", s) for s in request.secrets)
            self._told = told
        events = run_stream(
            model, options, lambda out: self.wire.attempt(request, out), request.secrets
        )
        async with contextlib.aclosing(events):
            async for event in events:
                if event["type"] == "error" and key and _rejects_key(event["error"]):
                    await self._disable(event["error"].error_message or "rejected", options)
                yield event

    async def _disable(self, cause: str, options: StreamOptions) -> None:
        self.disabled_cause = cause
        if options.on_credential_disabled is not None:
            await options.on_credential_disabled(self.name, cause)


def _rejects_key(message: Any) -> bool:
    """Whether a failed response says the key itself is bad (not a missing permission)."""
    return message.error_status == 401 or message.error_kind in _KEY_REJECTED


_KEY_REJECTED = {"authentication_error", "invalid_api_key", "invalid_x-api-key"}


class UnusableProvider(Provider):
    """A provider from the user's models file that no installed plugin can serve."""

    def __init__(self, config: ProviderConfig, reason: str) -> None:
        super().__init__(config.models)
        self.name, self.api, self.priority = config.name, config.api, config.priority
        self.configured_in = config.configured_in
        self.reason = reason

    def unavailable_reason(self, settings: dict[str, Any]) -> str | None:
        return self.reason

    async def stream(
        self, model: Model, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[dict[str, Any]]:
        out = AssistantStream(model)
        yield out.start()
        yield out.error(self.reason)


def raise_for_error_event(data: dict[str, Any], secrets: list[str | None]) -> None:
    """For streams that report failure as an in-band error object."""
    from omp_llm.errors import stream_error

    error = data.get("error", data)
    if isinstance(error, dict):
        raise stream_error(
            str(error.get("message") or error), error.get("type") or error.get("code"), secrets
        )
    raise ProviderError(str(error))


def providers_for(
    api: str, wire: WireApi | Callable[[], WireApi], agent_dir: Path
) -> list[HttpProvider]:
    """What an API plugin registers: every configured provider (catalogue and the
    user's models file) whose api it implements. ``wire`` may be a function returning
    the WireApi, called on the first request (the plugin's wire code loads then)."""
    from omp_llm.config import load_providers

    return [HttpProvider(c, wire, agent_dir) for c in load_providers(agent_dir) if c.api == api]
