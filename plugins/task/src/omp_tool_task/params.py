"""The ``task`` tool's parameters, as omp's: the batch shape ``{context, tasks: [item]}``
(``task.batch``, the default) or one flat item; ``isolated`` exists only when worktree
isolation is on. Unknown keys are dropped. Each shape parses into one ``TaskCall``."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

OutputSchema = dict[str, Any] | bool | str | None


class TaskItem(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str | None = Field(
        default=None,
        description="Short CamelCase name of this subtask, unique in the call (generated "
        "when missing); the result's id is built from it.",
    )
    agent: str = Field(default="task", description="The agent to run it (see the list above).")
    task: str = Field(description="What this child must do, self-contained.")
    outputSchema: OutputSchema = Field(  # omp's parameter name
        default=None,
        description="JSON Schema the child's result must match (object, or its JSON text); "
        "without it the result is the child's text.",
    )
    schemaMode: Literal["permissive", "strict"] = Field(
        default="permissive",
        description="strict: a result that still breaks the schema after 3 tries fails the "
        "child; permissive: it is kept, marked invalid.",
    )


class IsolatedTaskItem(TaskItem):
    isolated: bool = Field(
        default=False,
        description="Run in a git worktree of HEAD plus the uncommitted changes; the "
        "result carries the child's diff.",
    )


class BatchParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    context: str = Field(description="Background every child gets before its own task.")
    tasks: list[TaskItem] = Field(min_length=1, description="The subtasks, run in parallel.")


class IsolatedBatchParams(BatchParams):
    tasks: list[IsolatedTaskItem] = Field(  # type: ignore[assignment]
        min_length=1, description="The subtasks, run in parallel."
    )


def params_model(*, batch: bool, isolation: bool) -> type[BaseModel]:
    """The parameters model the model is offered under these settings."""
    if batch:
        return IsolatedBatchParams if isolation else BatchParams
    return IsolatedTaskItem if isolation else TaskItem


@dataclass(frozen=True)
class Assignment:
    """One child to run: ``name`` is unique in the call, ``output_schema`` parsed."""

    index: int
    name: str
    agent: str
    task: str
    output_schema: dict[str, Any] | None
    schema_mode: str
    isolated: bool


@dataclass(frozen=True)
class TaskCall:
    context: str
    assignments: list[Assignment]


def parse_call(params: BaseModel) -> TaskCall:
    """The call as the runner takes it. ValueError (one line) for a bad output schema."""
    items: list[TaskItem]
    if isinstance(params, BatchParams):
        context, items = params.context, list(params.tasks)
    elif isinstance(params, TaskItem):
        context, items = "", [params]
    else:
        raise ValueError("task takes {context, tasks} or one task")
    taken: set[str] = set()
    assignments = []
    for index, item in enumerate(items):
        name = unique_name(item.name, taken)
        assignments.append(
            Assignment(
                index=index,
                name=name,
                agent=item.agent or "task",
                task=item.task,
                output_schema=parse_schema(item.outputSchema, name),
                schema_mode=item.schemaMode,
                isolated=bool(getattr(item, "isolated", False)),
            )
        )
    return TaskCall(context, assignments)


def parse_schema(value: OutputSchema, name: str) -> dict[str, Any] | None:
    """``outputSchema`` as a JSON Schema dict: None/False for none, True for any value."""
    if value is None or value is False:
        return None
    if value is True:
        return {}
    if isinstance(value, str):
        if not value.strip():
            return None
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"outputSchema of {name} is not valid JSON: {exc.msg}") from None
        if not isinstance(value, dict):
            raise ValueError(f"outputSchema of {name} must be a JSON object")
    from jsonschema import validators
    from jsonschema.exceptions import SchemaError

    try:
        validators.validator_for(value).check_schema(value)
    except SchemaError as exc:
        raise ValueError(
            f"outputSchema of {name} is not a valid JSON Schema: {exc.message}"
        ) from None
    return value


_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
ADJECTIVES = (
    "Swift", "Calm", "Bright", "Quiet", "Bold", "Keen", "Brave", "Clever", "Eager", "Gentle",
    "Lucky", "Nimble", "Proud", "Rapid", "Steady", "Witty", "Silent", "Golden", "Sharp", "Wise",
)  # fmt: skip
ANIMALS = (
    "Falcon", "Panda", "Otter", "Lynx", "Heron", "Badger", "Fox", "Owl", "Wolf", "Tiger",
    "Raven", "Koala", "Marten", "Bison", "Crane", "Gecko", "Ibis", "Puma", "Seal", "Yak",
)  # fmt: skip
MAX_NAME = 32


def unique_name(given: str | None, taken: set[str]) -> str:
    """``given`` made safe for a file name (≤32 chars) or a generated AdjectiveNoun,
    with a number appended when already ``taken``; added to ``taken``."""
    base = _NAME_CHARS.sub("", given or "")[:MAX_NAME]
    if not base:
        base = random.choice(ADJECTIVES) + random.choice(ANIMALS)
    name, number = base, 2
    while name in taken:
        suffix = str(number)
        name, number = base[: MAX_NAME - len(suffix)] + suffix, number + 1
    taken.add(name)
    return name
