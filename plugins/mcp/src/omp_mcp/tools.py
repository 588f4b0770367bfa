"""An MCP server's tool as an omp tool, ``mcp__<server>__<tool>``: in the same registry
as the built-ins, so tool_call/tool_result hooks, approval and sequential-thinking
enforcement see it like any other tool."""

from __future__ import annotations

import re
from typing import Any

from omp import Tool, ToolResult
from pydantic import BaseModel, ConfigDict

from omp_mcp.results import convert_result
from omp_mcp.tool_cache import CachedTool

PREFIX = "mcp__"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
MAX_NAME = 64
DROPPED_KEYS = ("$schema", "$id", "title")


class _AnyArguments(BaseModel):
    """Placeholder model: an MCP tool's arguments are checked by its server."""

    model_config = ConfigDict(extra="allow")


def tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>`` with characters providers refuse replaced, at most 64."""
    name = f"{PREFIX}{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"
    return name[:MAX_NAME]


def sanitize_input_schema(schema: Any) -> dict[str, Any]:
    """An MCP input schema every provider accepts: an object at the top with
    ``properties`` (empty when there are none), no ``$schema``/``$id``/``title``.
    Gemini's narrower subset is applied to every tool by its provider's converter."""
    if not isinstance(schema, dict):
        return {"type": "object", "properties": {}}
    out = {k: v for k, v in schema.items() if k not in DROPPED_KEYS}
    if out.get("type") != "object":
        out = {"type": "object", "properties": {}}
    if not isinstance(out.get("properties"), dict):
        out["properties"] = {}
    for key in ("anyOf", "oneOf", "allOf", "not"):
        out.pop(key, None)  # Anthropic and OpenAI refuse these at the top of a tool schema
    return _fill_objects(out)


def _fill_objects(node: Any) -> Any:
    if isinstance(node, list):
        return [_fill_objects(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _fill_objects(v) for k, v in node.items() if k != "$schema"}
    if out.get("type") == "object" and "properties" not in out:
        out["properties"] = {}
    return out


class McpTool(Tool):
    """Calls ``remote_name`` on a server through its ``Connection``."""

    parameters = _AnyArguments

    def __init__(
        self,
        connection: Any,
        remote: Any,
        *,
        max_bytes: int,
        hidden: bool = False,
        on_call: Any = None,
    ) -> None:
        spec = remote if isinstance(remote, CachedTool) else CachedTool.of(remote)
        self.connection = connection
        self.remote_name = spec.name
        self.max_bytes = max_bytes
        self.on_call = on_call
        super().__init__(
            name=tool_name(connection.name, spec.name),
            label=f"{connection.name}: {spec.title or spec.name}",
            description=spec.description or f"{spec.name} (MCP server {connection.name})",
            hidden=hidden,
        )
        self._schema = sanitize_input_schema(spec.input_schema)

    def json_schema(self) -> dict[str, Any]:
        return self._schema  # type: ignore[return-value]

    def validate(self, arguments: dict[str, Any]) -> Any:
        return dict(arguments)

    async def execute(  # type: ignore[override]
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        from omp_mcp.connection import ServerDown

        try:
            result = await self.connection.call_tool(self.remote_name, dict(params))
        except ServerDown as exc:
            if self.on_call is not None:
                self.on_call(self.connection)
            return ToolResult.error(str(exc), {"server": self.connection.name})
        await self.connection.settle()
        return convert_result(
            result, max_bytes=self.max_bytes, artifacts=getattr(ctx, "artifacts", None)
        )
