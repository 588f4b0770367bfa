"""How the results of an event hook's implementations combine: the rule each hook spec
declares with ``@combine(...)`` (``omp.plugin.specs``), read by ``omp.plugin.dispatch``.

A rule has a kind (observer, first_block, chain, first_cancel, first_result), the
result model its handlers return (a dict with that model's snake_case or camelCase keys,
or the model itself; any other key is an error reported against the plugin), and for a
chain the patch that applies one handler's result to the event as changed so far.

This module imports nothing heavy: ``omp.plugin.specs`` imports it, and result models are
named (resolved from ``omp.agent.events`` on first use).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, get_args

if TYPE_CHECKING:
    from pydantic import BaseModel

Kind = Literal["observer", "first_block", "chain", "first_cancel", "first_result"]
KINDS: tuple[str, ...] = get_args(Kind)

E = TypeVar("E")


@dataclass
class ChainOutcome(Generic[E]):
    """What a chain hook produced: the event as patched, plus side results (messages
    added by before_agent_start or session_stop; whether input was handled, which also
    ends the chain)."""

    event: E
    added_messages: list[dict[str, Any]] = field(default_factory=list)
    handled: bool = False


Patch = Callable[[ChainOutcome[Any], Any], None]
"""Applies one handler's (validated) result to a chain's outcome."""


@dataclass(frozen=True)
class HookRule:
    """One event hook's combination rule, as its spec declares it."""

    kind: Kind = "observer"
    result: str | None = None
    """The name of the result model in ``omp.agent.events``; None: results are ignored
    (observer) or taken as they are (before_provider_request's payload)."""
    patch: Patch | None = None
    """chain only: applies a handler's result to the outcome."""
    start: Callable[[Any], Any] | None = None
    """chain only: the working copy of the event the first handler sees (default: a
    shallow copy)."""
    finish: Callable[[Any], None] | None = None
    """chain only: run on the patched event once every handler ran."""
    timed: bool = True
    """False: handlers run without the hook time limit (they do the user's own work,
    which the user waits for and can abort)."""

    def model(self) -> type[BaseModel] | None:
        """The result model class, or None."""
        return _model(self.result) if self.result else None


OBSERVER = HookRule()


@cache
def _model(name: str) -> type[BaseModel]:
    from omp.agent import events

    return getattr(events, name)  # type: ignore[no-any-return]


class UnknownResultKeys(ValueError):
    """A handler returned keys its hook's result model does not have."""


def validated(result: Any, model: type[BaseModel]) -> Any:
    """``result`` as an instance of ``model``; None stays None. Raises for another type,
    for invalid values and for keys the model does not know (``UnknownResultKeys``)."""
    if result is None:
        return None
    if not isinstance(result, model):
        if not isinstance(result, dict):
            raise TypeError(f"expected a dict or {model.__name__}, got {type(result).__name__}")
        result = model.model_validate(result)
    extra = result.__pydantic_extra__
    if extra:
        keys = ", ".join(repr(k) for k in extra)
        accepted = ", ".join(
            f"{n}/{f.alias}" if f.alias and f.alias != n else n
            for n, f in model.model_fields.items()
        )
        raise UnknownResultKeys(
            f"unknown key(s) {keys} in the {model.__name__} result (accepted: {accepted})"
        )
    return result


def decides(decision: Any) -> bool:
    """first_cancel: whether a SessionBeforeDecision wins (cancels, or supplies a
    compaction or summary of its own)."""
    return bool(decision.cancel or decision.compaction or decision.summary)


# -- the patches of the kernel's chain hooks -------------------------------------------


def patch_tool_result(outcome: ChainOutcome[Any], patch: Any) -> None:
    event = outcome.event
    for name in patch.model_fields_set & {"content", "details", "is_error"}:
        setattr(event, name, getattr(patch, name))


def start_context(event: Any) -> Any:
    """Handlers see the messages copied on first read: nothing they do in place reaches
    the stored conversation."""
    from omp.base.copying import CopyOnRead

    return event.model_copy(update={"messages": CopyOnRead(event.messages)})


def finish_context(event: Any) -> None:
    messages = event.messages
    if hasattr(messages, "settled"):
        event.messages = messages.settled()


def patch_context(outcome: ChainOutcome[Any], patch: Any) -> None:
    if patch.messages is not None:
        outcome.event.messages = list(patch.messages)


def patch_input(outcome: ChainOutcome[Any], patch: Any) -> None:
    event = outcome.event
    if patch.text is not None:
        event.text = patch.text
    if patch.images is not None:
        event.images = patch.images
    outcome.handled = patch.handled


def patch_before_agent_start(outcome: ChainOutcome[Any], patch: Any) -> None:
    if patch.system_prompt is not None:
        outcome.event.system_prompt = list(patch.system_prompt)
    if patch.message is not None:
        outcome.added_messages.append(patch.message)


def patch_resources(outcome: ChainOutcome[Any], patch: Any) -> None:
    event = outcome.event
    for name in ("skill_paths", "prompt_paths", "theme_paths", "rule_paths"):
        found = getattr(event, name)
        for path in getattr(patch, name) or []:
            absolute = os.path.join(event.cwd, os.path.expanduser(str(path)))
            if absolute not in found:
                found.append(absolute)


def patch_payload(outcome: ChainOutcome[Any], result: Any) -> None:
    from omp.agent.events import patched_payload

    outcome.event.payload = patched_payload(outcome.event.payload, result)


def patch_compacting(outcome: ChainOutcome[Any], patch: Any) -> None:
    event = outcome.event
    event.context = [*event.context, *(str(line) for line in patch.context or [])]
    if patch.prompt is not None:
        event.prompt = patch.prompt
    if patch.preserve_data is not None:
        event.preserve_data = patch.preserve_data


def patch_session_stop(outcome: ChainOutcome[Any], decision: Any) -> None:
    """The first result that continues or blocks wins (ends the chain)."""
    text = decision.continuation()
    if text is not None:
        outcome.added_messages.append({"custom_type": "session_stop", "content": text})
        outcome.handled = True
