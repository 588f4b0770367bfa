"""Entry module of omp-tool-search: only the hooks, cheap to import (``omp --help`` loads it).

``omp_register_tools`` adds find, grep and ls. ``omp_search`` is the pure-Python search
backend (grep, find and the tree ``ls`` shows with a depth): ``trylast``, so any other
backend (natives, tryfirst) that answers wins. It runs the search in a worker thread,
with the regex time limit of the setting ``search.regexTimeoutMs``; when the awaiting
call is cancelled (the run was aborted) the walk is told to stop, and a regex worker
process is killed. ``omp_before_agent_start`` adds the workspace tree to the system
prompt when the setting ``includeWorkspaceTree`` is on (``prompt_tree``).
"""

from __future__ import annotations

from typing import Any

import omp
from omp import SettingSpec

TREE_SETTING = "includeWorkspaceTree"


@omp.hookimpl
def omp_register_tools(api: Any) -> list[Any]:
    from omp_tool_search.ls import LsTool
    from omp_tool_search.tools import FindTool, GrepTool

    return [FindTool(), GrepTool(), LsTool()]


@omp.hookimpl(trylast=True)
async def omp_search(event: Any, ctx: Any) -> dict[str, Any] | None:
    if event.kind not in ("grep", "find", "tree"):
        return None
    import asyncio
    import threading

    from omp_tool_search import backend

    try:
        settings = getattr(ctx, "settings", None)
        timeout = backend.regex_timeout(settings) if event.kind == "grep" else None
    except backend.SearchError as exc:
        return {"result": backend.error_answer(event.kind, str(exc))}
    stop = threading.Event()
    try:
        answer = await asyncio.to_thread(
            backend.search,
            event.kind,
            dict(event.params),
            event.cwd,
            stop,
            timeout,
            getattr(event, "on_partial", None),
        )
    except asyncio.CancelledError:
        stop.set()
        raise
    return {"result": answer}


@omp.hookimpl
async def omp_before_agent_start(event: Any, ctx: Any) -> dict[str, Any] | None:
    settings = getattr(ctx, "settings", None)
    if settings is None or not settings.get(TREE_SETTING):
        return None
    from omp_tool_search import prompt_tree

    tree = await prompt_tree.section(ctx)
    if tree is None:
        return None
    return {"system_prompt": prompt_tree.with_tree(event.system_prompt, tree)}


@omp.hookimpl
def omp_register_settings(api: Any) -> list[SettingSpec]:
    """``search.backend`` is read by every backend (omp-natives' too): it is declared
    here, with the backend that is always there to fall back to."""
    return [
        SettingSpec(
            "search.regexTimeoutMs", "number", 5000, "time limit of one grep regex", minimum=1
        ),
        SettingSpec(
            "search.backend",
            "string",
            "auto",
            "grep/find backend: auto (natives when installed) or python",
            choices=("auto", "python"),
        ),
        SettingSpec(
            TREE_SETTING,
            "boolean",
            False,
            "the workspace tree (depth 3, ignore rules applied) in the system prompt, "
            "taken once per session",
        ),
    ]
