"""The rpc run modes (``--mode rpc`` and ``--mode rpc-ui``): omp's NDJSON protocol on
stdin/stdout, so a client written for the TypeScript omp drives this one unchanged.
``rpc-ui`` differs only in ``ctx.has_ui`` being true (tools may ask the host)."""

from __future__ import annotations

from typing import Any

import omp
from omp import RunMode


@omp.hookimpl
def omp_register_modes(api: Any) -> list[RunMode]:
    return [
        RunMode(
            "rpc",
            "Serve omp's JSONL RPC protocol on stdin/stdout (for embedders)",
            run=_run,
            make_ui=_make_ui,
            reads_stdin=True,
            takes_prompts=False,
        ),
        RunMode(
            "rpc-ui",
            "The rpc mode with ctx.has_ui true: tools may ask the host through dialogs",
            run=_run,
            has_ui=True,
            make_ui=_make_ui,
            reads_stdin=True,
            takes_prompts=False,
        ),
    ]


def _make_ui(session: Any) -> Any:
    from omp_mode_rpc.ui import RpcUI

    return RpcUI()


async def _run(session: Any, request: Any) -> int:
    """``ready`` goes out first, before the server's own modules load: a client may
    send its commands meanwhile (they wait on stdin)."""
    from omp_mode_rpc.frames import frame_channel, ready_frame

    with frame_channel() as writer:
        writer.write(ready_frame())
        from omp_mode_rpc.server import serve

        return await serve(session, request, writer)
