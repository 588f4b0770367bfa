"""The context tax of many MCP tools: above a threshold (or always, by setting) they
are registered but hidden, and one search tool activates the ones the model asks for."""

from __future__ import annotations

import re
from typing import Any

from omp import Tool, ToolResult
from pydantic import BaseModel, Field

SEARCH_TOOL = "mcp_tool_search"
MAX_MATCHES = 10


class SearchParams(BaseModel):
    query: str = Field(
        description="Words to look for in MCP tool names and descriptions, or exact tool names"
    )
    limit: int = Field(default=5, ge=1, le=MAX_MATCHES, description="Most tools to activate")


class DeferredTools:
    """Decides which MCP tools the model sees, and owns the search tool."""

    def __init__(self, manager: Any, mode: str, threshold: int) -> None:
        self.manager = manager
        self.mode = mode
        self.threshold = threshold
        self.activated: list[str] = []
        self._search: Tool | None = None

    @property
    def deferring(self) -> bool:
        if self.mode == "eager":
            return False
        return self.mode == "deferred" or len(self.manager.tools) > self.threshold

    def apply(self) -> None:
        """Set the active tools: every MCP tool, or the activated ones and the search tool."""
        api, tools = self.manager.api, self.manager.tools
        if not tools:
            return
        others = [n for n in api.get_active_tools() if n not in tools and n != SEARCH_TOOL]
        if not self.deferring:
            api.set_active_tools([*others, *tools])
            return
        if self._search is None:
            self._search = Tool(
                name=SEARCH_TOOL,
                label="MCP tool search",
                description=self.description(),
                parameters=SearchParams,
                execute=self._execute,
            )
            api.register_tool(self._search)
        self._search.description = self.description()
        activated = [n for n in self.activated if n in tools]
        api.set_active_tools([*others, SEARCH_TOOL, *activated])

    def description(self) -> str:
        servers = sorted({t.connection.name for t in self.manager.tools.values()})
        return (
            f"{len(self.manager.tools)} tools of the MCP servers {', '.join(servers)} are "
            "available but not loaded. Search them by name or description; the matching "
            "tools are activated and can be called from your next step."
        )

    def search(self, query: str, limit: int) -> list[Any]:
        tools = self.manager.tools
        exact = [tools[w] for w in query.replace(",", " ").split() if w in tools]
        if exact:
            return exact[:MAX_MATCHES]
        words = [w for w in re.split(r"[^a-z0-9]+", query.lower()) if w]
        scored = []
        for tool in tools.values():
            name = tool.name.lower()
            text = f"{tool.remote_name} {tool.description}".lower()
            score = sum(3 * (w in name) + (w in text) for w in words)
            if score:
                scored.append((-score, tool.name, tool))
        return [tool for _, _, tool in sorted(scored)[:limit]]

    async def _execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> Any:
        found = self.search(params.query, params.limit)
        if not found:
            return ToolResult.text(f"No MCP tool matches {params.query!r}.")
        for tool in found:
            if tool.name not in self.activated:
                self.activated.append(tool.name)
        self.manager.api.set_active_tools(
            [*self.manager.api.get_active_tools(), *(t.name for t in found)]
        )
        lines = [f"Activated {len(found)} tool(s); call them directly:"]
        lines += [f"- {t.name}: {t.description}" for t in found]
        return ToolResult.text("\n".join(lines), {"activated": [t.name for t in found]})
