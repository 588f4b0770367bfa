"""Retry fallback, with omp's settings: when a model request fails for good (after the
driver's retries), the next usable model of the failed model's fallback chain gets
the same request.

``retry.modelFallback`` (default true) turns it on; ``retry.fallbackChains`` maps a
model (``provider/id``) or the role ``default`` to the models to try, in order, e.g.
``{"anthropic/claude-sonnet-4-5": ["openai/gpt-5", "google/gemini-2.5-pro"]}``. A
fallback lasts until the prompt's run ends; the next prompt tries the primary again.
Context overflows and aborts never fall back (another model would not help).
"""

from __future__ import annotations

from typing import Any

from omp.agent.events import RetryFallbackAppliedEvent, RetryFallbackSucceededEvent
from omp.base.errors import OmpError

ROLE = "default"


class ModelFallback:
    """Told every response (by the session's loop host): the model to send the request
    to instead, or None. The loop uses it for the rest of the run."""

    def __init__(self, session: Any) -> None:
        self._session = session
        chains = session.settings.get("retry.fallbackChains") or {}
        if not isinstance(chains, dict) or not all(
            isinstance(v, list) and all(isinstance(m, str) for m in v) for v in chains.values()
        ):
            raise OmpError(
                "retry.fallbackChains must map a model (provider/id) or 'default' to a "
                "list of models"
            )
        self.chains: dict[str, list[str]] = chains
        self.enabled = session.settings.get("retry.modelFallback", True) is not False
        self._run: Any = None
        self._primary: Any = None
        self._pending = False
        self._tried: set[str] = set()

    async def __call__(self, message: Any, current: Any) -> Any:
        """``current`` is the model that answered ``message``."""
        signal = self._session.agent.signal
        if signal is not self._run:  # a new run: the primary model is tried again
            self._run, self._tried, self._pending, self._primary = signal, set(), False, None
        if message.stop_reason != "error":
            if self._pending and current is not None:
                self._pending = False
                await self._session.emit(RetryFallbackSucceededEvent(model=current.key, role=ROLE))
            return None
        if not self.enabled or current is None or message.error_kind == "context_overflow":
            return None
        self._tried.add(current.key)
        candidate = self._next((self._primary or current).key)
        if candidate is None:
            return None
        self._primary = self._primary or current
        self._pending = True
        await self._session.notice(
            f"{current.key} failed ({message.error_message}); trying {candidate.key} instead",
            "warning",
        )
        await self._session.emit(
            RetryFallbackAppliedEvent(from_=current.key, to=candidate.key, role=ROLE)
        )
        return candidate

    def _next(self, primary: str) -> Any:
        """The first usable model of the chain not tried in this run."""
        models = self._session.models
        for key in self.chains.get(primary) or self.chains.get(ROLE) or []:
            model = models.find(key)
            if model is None or model.key in self._tried:
                continue
            if models.provider_of(model).unavailable_reason(self._session.settings.data):
                continue
            return model
        return None
