"""Host tools (§2.8): tools the RPC client defines with ``set_host_tools`` and runs
itself. Each is registered as an ordinary ``omp.agent.tools.Tool`` through the public api, so
the loop, the tool_call/tool_result hooks and every plugin's rules see it like any
built-in tool. A call is a ``host_tool_call`` frame; ``host_tool_update`` frames are its
progress and ``host_tool_result`` its end; an aborted call is withdrawn with
``host_tool_cancel``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from omp import OmpError, Tool
from pydantic import BaseModel, ConfigDict

from omp_mode_rpc.ui import snowflake

if TYPE_CHECKING:
    from omp import OmpAPI

Send = Callable[[dict[str, Any]], None]


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="allow")


_JSON_TYPES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "string": ("string_type", lambda v: isinstance(v, str)),
    "integer": ("int_type", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "number": (
        "float_type",
        lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    ),
    "boolean": ("bool_type", lambda v: isinstance(v, bool)),
    "array": ("list_type", lambda v: isinstance(v, list)),
    "object": ("dict_type", lambda v: isinstance(v, dict)),
    "null": ("none_required", lambda v: v is None),
}


def schema_problems(schema: dict[str, Any], arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """What is wrong with ``arguments`` for an object schema, as pydantic line errors."""
    problems: list[dict[str, Any]] = []
    required = schema.get("required")
    for name in required if isinstance(required, list) else []:
        if isinstance(name, str) and name not in arguments:
            problems.append({"type": "missing", "loc": (name,), "input": arguments})
    properties = schema.get("properties")
    for name, value in arguments.items():
        spec = properties.get(name) if isinstance(properties, dict) else None
        wanted = spec.get("type") if isinstance(spec, dict) else None
        kinds = [wanted] if isinstance(wanted, str) else wanted
        if not isinstance(kinds, list) or not all(k in _JSON_TYPES for k in kinds):
            continue  # no type, or one this check does not know: the host decides
        if not any(_JSON_TYPES[k][1](value) for k in kinds):
            problems.append({"type": _JSON_TYPES[kinds[0]][0], "loc": (name,), "input": value})
    return problems


class _Call:
    def __init__(self, on_update: Callable[[Any], None]) -> None:
        self.future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.on_update = on_update


class HostTool(Tool):
    """A tool whose parameters are the client's JSON Schema, run by the client."""

    parameters = _Arguments

    def __init__(self, definition: dict[str, Any], bridge: HostTools) -> None:
        super().__init__(
            name=str(definition["name"]),
            label=str(definition.get("label") or definition["name"]),
            description=str(definition.get("description") or ""),
            hidden=bool(definition.get("hidden", False)),
        )
        schema = definition.get("parameters")
        self._json_schema = schema if isinstance(schema, dict) else {"type": "object"}
        self._bridge = bridge

    def json_schema(self) -> dict[str, Any]:
        return self._json_schema

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The schema's required properties and the JSON types of the properties given
        (what a model gets wrong); a pydantic ValidationError, which the loop turns into
        the tool error the model reads, as for a built-in tool's arguments."""
        problems = schema_problems(self._json_schema, arguments)
        if problems:
            from pydantic_core import ValidationError

            raise ValidationError.from_exception_data(self.name, problems)  # type: ignore[arg-type]
        return dict(arguments)

    async def execute(  # type: ignore[override]
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> dict[str, Any]:
        return await self._bridge.call(self.name, call_id, params, on_update)


class HostTools:
    def __init__(self, api: OmpAPI, send: Send) -> None:
        self._api = api
        self._send = send
        self._names: list[str] = []
        self._calls: dict[str, _Call] = {}

    def set_tools(self, definitions: Any) -> list[str]:
        """Replace the whole host set; the next model request offers the new one."""
        if not isinstance(definitions, list):
            raise OmpError("set_host_tools needs `tools`, a list of tool definitions")
        for definition in definitions:
            if not isinstance(definition, dict) or not isinstance(definition.get("name"), str):
                raise OmpError("each host tool needs a string `name`")
        names = [d["name"] for d in definitions]
        existing = {t["name"] for t in self._api.get_all_tools()} - set(self._names)
        clashes = sorted(n for n in set(names) if n in existing)
        if clashes:
            raise OmpError(f"a tool named {clashes[0]!r} is already registered")
        if len(set(names)) != len(names):
            raise OmpError("host tool names must be unique")
        for name in self._names:
            self._api.unregister_tool(name)
        self._names = []
        for definition in definitions:
            # The client's set belongs to the connection, not to one session.
            self._api.register_tool(HostTool(definition, self), scope="process")
            self._names.append(definition["name"])
        return list(self._names)

    async def call(
        self, name: str, call_id: str, arguments: dict[str, Any], on_update: Any
    ) -> dict[str, Any]:
        request_id = snowflake()
        pending = _Call(on_update)
        self._calls[request_id] = pending
        self._send(
            {
                "type": "host_tool_call",
                "id": request_id,
                "toolCallId": call_id,
                "toolName": name,
                "arguments": arguments,
            }
        )
        try:
            frame = await pending.future
        except asyncio.CancelledError:
            self._send({"type": "host_tool_cancel", "id": snowflake(), "targetId": request_id})
            raise
        finally:
            self._calls.pop(request_id, None)
        result = frame.get("result")
        if not isinstance(result, dict):
            result = {"content": [{"type": "text", "text": str(result or "")}]}
        return {
            "content": result.get("content") or [],
            "details": result.get("details"),
            "is_error": bool(frame.get("isError") or result.get("isError")),
        }

    def update(self, frame: dict[str, Any]) -> None:
        pending = self._calls.get(str(frame.get("id")))
        if pending is not None:
            pending.on_update(frame.get("partialResult"))

    def resolve(self, frame: dict[str, Any]) -> None:
        pending = self._calls.get(str(frame.get("id")))
        if pending is not None and not pending.future.done():
            pending.future.set_result(frame)

    def reject_all(self) -> None:
        """Stdin closed: every open call fails."""
        for pending in list(self._calls.values()):
            if not pending.future.done():
                pending.future.set_result(
                    {
                        "result": {
                            "content": [
                                {"type": "text", "text": "the RPC host closed the connection"}
                            ]
                        },
                        "isError": True,
                    }
                )
