"""Getting ready for a prompt while that prompt waits.

The kernel's message and event models are defined with ``defer_build``, and a few
modules of the prompt's path are imported on first use, so that importing omp stays
cheap; the first prompt pays for them. When something holds that prompt before it runs
(an input hook waiting out MCP servers' startup gate, say) the event loop has nothing
to do: ``IdleBuild`` builds the models and imports the modules meanwhile, one per turn
of the loop so the wait's end is never held up by more than one step. Stopped when the
wait ends; what is left happens on first use, as before. A prompt that does not wait
never gives it a turn, so it costs nothing then.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Iterable

from pydantic import BaseModel

from omp.agent import events, messages

PROMPT_MODELS: tuple[type[BaseModel], ...] = (
    events.BeforeAgentStartEvent,
    messages.UserMessage,
    events.AgentStartEvent,
    events.TurnStartEvent,
    events.MessageStartEvent,
    events.MessageEndEvent,
    events.ContextEvent,
    messages.AssistantMessage,
    messages.Usage,
    messages.Cost,
    messages.TextContent,
    messages.ToolCall,
    events.MessageUpdateEvent,
    events.TurnEndEvent,
    events.AgentEndEvent,
)
"""What one prompt's run builds, in the order it first needs them."""

PROMPT_MODULES: tuple[str, ...] = ("omp.base.copying",)
"""What the prompt's path imports on first use (context handlers' copy of the messages)."""


class IdleBuild:
    """Builds ``models`` not yet built and imports ``modules`` not yet imported, one per
    event-loop turn, until ``stop``."""

    def __init__(
        self,
        models: Iterable[type[BaseModel]] = PROMPT_MODELS,
        modules: Iterable[str] = PROMPT_MODULES,
    ) -> None:
        self._left: list[type[BaseModel] | str] = [
            *(m for m in models if not m.__pydantic_complete__),
            *(m for m in modules if m not in sys.modules),
        ]
        self._handle: asyncio.Handle | None = None
        if self._left:
            self._handle = asyncio.get_running_loop().call_soon(self._step)

    def _step(self) -> None:
        while self._left:
            if self._did(self._left.pop(0)):
                break
        self._handle = asyncio.get_running_loop().call_soon(self._step) if self._left else None

    @staticmethod
    def _did(item: type[BaseModel] | str) -> bool:
        """Build or import ``item``; False if that was done meanwhile. One that fails
        here is left to its first use, which reports the failure where it matters."""
        try:
            if isinstance(item, str):
                if item in sys.modules:
                    return False
                importlib.import_module(item)
            elif item.__pydantic_complete__:
                return False
            else:
                item.model_rebuild()
        except Exception:
            return True
        return True

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
