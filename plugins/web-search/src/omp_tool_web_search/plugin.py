"""Entry module of omp-tool-web-search: only the hooks, cheap to import (``omp --help``
loads it). ``webSearch.enabled: false`` takes the tool out of a session's active tools
(settings are known only then); ``--offline`` leaves it out as a network tool. Keys in
the environment (``*_API_KEY``, ``SEARXNG_TOKEN``) are hidden by the kernel's secret
registry; the tool registers any other key it is handed."""

from __future__ import annotations

from typing import Any

import omp
from omp import SettingSpec

PROVIDERS = ("auto", "native", "exa", "tavily", "brave", "searxng")


@omp.hookimpl
def omp_register_settings(api: Any) -> list[SettingSpec]:
    return [
        SettingSpec("webSearch.enabled", "boolean", True, "offer the web_search tool"),
        SettingSpec(
            "webSearch.provider",
            "string",
            "auto",
            "the search backend; native: the current model's own search (Anthropic, "
            "OpenAI, Gemini); auto: native when the model has it, else the first "
            "configured of exa, tavily, brave, searxng",
            choices=PROVIDERS,
        ),
        SettingSpec(
            "webSearch.searxngUrl",
            "string",
            None,
            "base URL of a SearXNG instance with JSON output on (else $SEARXNG_URL)",
            nullable=True,
        ),
        SettingSpec(
            "webSearch.timeoutSeconds",
            "number",
            60,
            "how long one search backend may take to answer (max 300)",
            minimum=1,
        ),
    ]


@omp.hookimpl
def omp_register_tools(api: Any) -> list[Any]:
    from omp_tool_web_search.tool import WebSearchTool

    return [WebSearchTool()]


@omp.hookimpl
def omp_session_start(ctx: Any, api: Any) -> None:
    if ctx.settings.get("webSearch.enabled") is False:
        api.set_active_tools([name for name in api.get_active_tools() if name != "web_search"])
