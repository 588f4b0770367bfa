"""Helpers of the task tool's tests: one scripted conversation serves the parent and its
children (each conversation starts at step 0; a child's first message holds its task, so
``when`` tells them apart)."""

from __future__ import annotations

import json
from typing import Any

from omp import hookimpl

BUILTINS = ["task", "read"]


def yield_step(when: str, data: Any = "ok", delay: float = 0, **extra: Any) -> dict[str, Any]:
    """A child's step that yields ``data`` (matched by the text of its task)."""
    arguments = {"data": data} if data is not None else {}
    arguments.update(extra)
    step: dict[str, Any] = {"when": when, "tool_calls": [{"name": "yield", "arguments": arguments}]}
    if delay:
        step["delay"] = delay
    return step


def task_call(*tasks: dict[str, Any], context: str = "shared context") -> dict[str, Any]:
    return {
        "tool_calls": [{"name": "task", "arguments": {"context": context, "tasks": list(tasks)}}]
    }


def results_of(events: Any) -> list[dict[str, Any]]:
    """The task tool's SingleResults, from its tool_execution_end."""
    ends = [e for e in events.of("tool_execution_end") if e.tool_name == "task"]
    assert ends, "the task tool did not run"
    return ends[-1].result["details"]["results"]


def task_text(events: Any) -> str:
    ends = [e for e in events.of("tool_execution_end") if e.tool_name == "task"]
    return "".join(block.text for block in ends[-1].result["content"])


def use_settings(harness: Any, **task: Any) -> None:
    """``task.*`` settings in the harness's user settings file."""
    (harness.agent_dir / "settings.json").write_text(json.dumps({"task": task}))


class InitRecorder:
    """Records each child's session_init event."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    @hookimpl
    def omp_session_init(self, event: Any) -> None:
        self.events.append(event)


def init_recorder() -> InitRecorder:
    return InitRecorder()


NESTER = """---
name: nester
description: A worker that may start workers of its own
spawns: "*"
---
You do the task, starting helpers where it helps.
"""


def add_user_agent(harness: Any, text: str = NESTER, name: str = "nester") -> None:
    """An agent file in the user's agents folder (``<agent dir>/agents``)."""
    folder = harness.agent_dir / "agents"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.md").write_text(text)
