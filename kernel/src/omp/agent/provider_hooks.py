"""The session's side of a provider request: the StreamOptions callbacks through which
HTTP providers fire before_provider_request, after_provider_response and
credential_disabled (the HTTP layer, ``omp_llm``, knows nothing of sessions or hooks)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from omp.agent.events import (
    AfterProviderResponseEvent,
    BeforeProviderRequestEvent,
    CredentialDisabledEvent,
)

if TYPE_CHECKING:
    from omp.agent.host import RequestHooks


class ProviderHooks:
    """The session's ``provider_hooks``: per request, the callbacks for that model."""

    def __init__(self, session: Any) -> None:
        self._session = session

    def __call__(self, model: Any) -> RequestHooks:
        return {
            "on_payload": functools.partial(self._payload, model),
            "on_response": functools.partial(self._response, model),
            "on_credential_disabled": self._credential_disabled,
        }

    async def _payload(self, model: Any, payload: Any) -> Any:
        outcome = await self._session.hooks.before_provider_request(
            BeforeProviderRequestEvent(payload=payload, model=model)
        )
        return outcome.event.payload

    async def _response(self, model: Any, status: int, headers: dict[str, str]) -> None:
        await self._session.hooks.after_provider_response(
            AfterProviderResponseEvent(status=status, headers=headers, model=model),
        )

    async def _credential_disabled(self, provider: str, cause: str) -> None:
        await self._session.hooks.credential_disabled(
            CredentialDisabledEvent(provider=provider, disabled_cause=cause),
        )
