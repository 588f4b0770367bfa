"""The rpc run modes (``--mode rpc`` and ``--mode rpc-ui``): omp's NDJSON protocol on
stdin/stdout, so a client written for the TypeScript omp drives this one unchanged.
``rpc-ui`` differs only in ``ctx.has_ui`` being true (tools may ask the host)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import omp
from omp import RunMode

if TYPE_CHECKING:
    from omp import AgentSession

    from omp_mode_rpc.ui import RpcUI


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
            public_session=True,
        ),
        RunMode(
            "rpc-ui",
            "The rpc mode with ctx.has_ui true: tools may ask the host through dialogs",
            run=_run,
            has_ui=True,
            make_ui=_make_ui,
            reads_stdin=True,
            takes_prompts=False,
            public_session=True,
        ),
    ]


def _make_ui(session: object) -> RpcUI:
    """The mode's UI; it needs nothing of the session (the server attaches its writer)."""
    from omp_mode_rpc.ui import RpcUI

    return RpcUI()


async def _run(session: AgentSession, request: object) -> int:
    """``ready`` goes out first, before the server's own modules load: a client may
    send its commands meanwhile (they wait on stdin)."""
    from omp_mode_rpc.frames import frame_channel, ready_frame

    with frame_channel() as writer:
        writer.write(ready_frame())
        from omp_mode_rpc.server import serve

        return await serve(session, request, writer)
