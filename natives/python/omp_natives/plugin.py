"""Entry module of omp-natives: only hooks, cheap to import (the compiled module loads
on the first search). A pyo3 function cannot carry pluggy's marker, so these Python
functions call into it.

``omp_search`` is ``tryfirst``: it answers every grep and find it can answer exactly as
the pure-Python backend would, and returns None for the rest (a regex or glob the Rust
engine cannot run with Python's meaning, a path that is missing, an error to report),
which the pure-Python backend then answers. ``search.backend: "python"`` turns it off.

``omp_tool_result`` adds "Did you mean: ..." to a failed tool call whose ``path`` does
not exist, from a fuzzy match over the workspace's paths (``suggest``).
"""

from __future__ import annotations

from typing import Any

import omp

SETTING = "search.backend"

INLINE_S = 0.002
"""How long a grep may run on the event loop's thread before it is handed to a thread of
the engine's own: a short search is answered without the two hand-overs, and the loop
is never held longer than this."""


def search_backend_status(settings: Any) -> str | None:
    """Why this backend stands aside now, or None when it answers searches."""
    choice = settings.get(SETTING) if settings is not None else None
    if choice == "python":
        return f'{SETTING} is "python"'
    from omp_natives import unavailable

    return unavailable()


@omp.hookimpl(tryfirst=True)
async def omp_search(event: Any, ctx: Any) -> dict[str, Any] | None:
    if event.kind not in ("grep", "find", "tree"):
        return None
    if search_backend_status(getattr(ctx, "settings", None)) is not None:
        return None
    import asyncio

    from omp_natives import load
    from omp_natives.requests import GrepRequest, prepare

    run = prepare(event.kind, dict(event.params), event.cwd)
    if run is None:
        return None
    token = load().CancelToken()
    try:
        if isinstance(run, GrepRequest):
            answer = await _in_background(run, token, getattr(event, "on_partial", None))
        else:
            answer = await asyncio.to_thread(run, token)
    except asyncio.CancelledError:
        token.cancel()  # the walk stops before its next file
        raise
    return None if answer is None else {"result": answer}


async def _in_background(request: Any, token: Any, on_partial: Any) -> dict[str, Any] | None:
    """The grep here for up to INLINE_S, then on the engine's own thread, which wakes the
    loop through the search's socket without taking the GIL; the answer is then built
    here (no worker thread of asyncio's to hand the call to and back)."""
    import asyncio

    search = request.start(token, on_partial, INLINE_S)
    if search is None:
        return None
    if search.done:
        return request.finish(search)
    loop = asyncio.get_running_loop()
    fd = search.fileno()
    over = loop.create_future()

    def readable() -> None:
        loop.remove_reader(fd)
        if not over.done():
            over.set_result(None)

    try:
        loop.add_reader(fd, readable)
    except (NotImplementedError, ValueError):  # no socket, or a loop that cannot watch one
        await asyncio.to_thread(search.wait)
    else:
        try:
            await over
        finally:
            loop.remove_reader(fd)
    return request.finish(search)


@omp.hookimpl
async def omp_tool_result(event: Any, ctx: Any) -> dict[str, Any] | None:
    path = event.input.get("path") if isinstance(event.input, dict) else None
    if not event.is_error or not isinstance(path, str) or not path.strip():
        return None
    import os

    from omp import resolve_path, tool_cwd

    cwd = tool_cwd(ctx)
    if os.path.lexists(resolve_path(path, cwd)):
        return None
    if search_backend_status(getattr(ctx, "settings", None)) is not None:
        return None
    import asyncio

    from omp import ToolResult

    from omp_natives.suggest import closest_paths

    found = await asyncio.to_thread(closest_paths, path, cwd)
    if not found:
        return None
    hint = ToolResult.text(f"Did you mean: {', '.join(found)}?").content
    return {"content": [*event.content, *hint]}
