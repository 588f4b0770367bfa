"""The hidden ``yield`` tool a child returns its result with (omp's): ``data`` (checked
against the task's ``outputSchema``) or ``error``, never both. A valid call ends the
child's run; three invalid submissions in a row are allowed before the fourth is
accepted marked invalid (``permissive``) or fails the child (``strict``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from omp import Tool, ToolResult
from pydantic import BaseModel

NAME = "yield"
MAX_SCHEMA_RETRIES = 3


class _AnyArguments(BaseModel):
    pass


@dataclass
class Outcome:
    """What the child yielded. ``status``: ``valid`` (or no schema), ``invalid`` (kept
    against the schema), ``error`` (the child reported a failure or broke a strict
    schema), ``text`` (finalized from its last assistant text)."""

    status: str
    data: Any = None
    error: str | None = None


class YieldTool(Tool):
    name = NAME
    label = "Submit Result"
    parameters = _AnyArguments

    def __init__(self, output_schema: dict[str, Any] | None, mode: str = "permissive") -> None:
        self.output_schema = output_schema
        self.mode = mode
        self.outcome: Outcome | None = None
        self.failures = 0
        super().__init__(description=_description(output_schema))
        data: dict[str, Any] = {"description": "Your result."}
        if output_schema:
            data = {**output_schema, "description": "Your result, matching the output schema."}
        self._schema = {
            "type": "object",
            "properties": {
                "data": data,
                "error": {"type": "string", "description": "Why the task failed; never with data."},
            },
            "additionalProperties": False,
        }

    def json_schema(self) -> dict[str, Any]:
        return self._schema  # type: ignore[return-value]

    def validate(self, arguments: dict[str, Any]) -> Any:
        return dict(arguments)

    async def execute(  # type: ignore[override]
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        data, error = params.get("data"), params.get("error")
        if data is not None and error is not None:
            return ToolResult.error("yield takes data or error, never both.")
        if error is not None:
            self.outcome = Outcome("error", error=str(error))
            return ToolResult.text("Failure reported.", {"status": "error"}, terminate=True)
        if data is None:
            if self.output_schema is not None:
                return ToolResult.error(
                    "This task has an output schema: pass the whole result in data."
                )
            self.outcome = Outcome("text")
            return ToolResult.text("Result submitted.", {"status": "text"}, terminate=True)
        data, problem = self._checked(data)
        if problem is None:
            self.failures = 0
            self.outcome = Outcome("valid", data)
            return ToolResult.text("Result submitted.", {"status": "valid"}, terminate=True)
        self.failures += 1
        if self.failures <= MAX_SCHEMA_RETRIES:
            left = MAX_SCHEMA_RETRIES - self.failures
            hint = f"{left} retry attempt(s) remain" if left else "this is the final retry"
            return ToolResult.error(
                f"Output does not match schema: {problem}. Call yield again with the "
                f"corrected shape ({hint})."
            )
        if self.mode == "strict":
            self.outcome = Outcome("error", data, f"output does not match schema: {problem}")
            return ToolResult.text(
                "Result rejected: it still breaks the schema.", {"status": "error"}, terminate=True
            )
        self.outcome = Outcome("invalid", data, f"output does not match schema: {problem}")
        return ToolResult.text(
            f"Result submitted (schema validation overridden after {self.failures - 1} "
            "failed attempt(s)).",
            {"status": "invalid"},
            terminate=True,
        )

    def _checked(self, data: Any) -> tuple[Any, str | None]:
        """``data`` (a JSON-encoded string decoded when that makes it valid) and why
        it breaks the schema (every issue, one line), or None."""
        if self.output_schema is None:
            return data, None
        from jsonschema import validators

        validator = validators.validator_for(self.output_schema)(self.output_schema)
        issues = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
        if not issues:
            return data, None
        if isinstance(data, str):
            try:
                decoded = json.loads(data)
            except json.JSONDecodeError:
                decoded = None
            if decoded is not None and not any(True for _ in validator.iter_errors(decoded)):
                return decoded, None
        where = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in issues]
        return data, "; ".join(where)


def _description(output_schema: dict[str, Any] | None) -> str:
    text = (
        "Submit your result and end your task: `{data: <your output>}` for success, "
        '`{error: "message"}` for failure. Never both; never a bare payload outside data.'
    )
    if output_schema is not None:
        return (
            text + " This task declares an output schema: data MUST be the full value matching it."
        )
    return text + " Without data, your last message's text becomes the result."
