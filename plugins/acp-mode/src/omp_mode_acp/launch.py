"""Serving ACP on stdin/stdout: ``omp acp [flags]`` and ``omp --mode acp``.

Only protocol frames reach stdout: the real stdout is kept for the connection and file
descriptor 1 is pointed at stderr, so whatever a plugin, a library or a child process
prints lands on stderr.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import TYPE_CHECKING, Any

from omp_mode_acp.sdk import load_sdk

if TYPE_CHECKING:
    from omp import SubcommandContext

USAGE = """\
usage: omp acp [--model PATTERN] [--thinking LEVEL] [--tools A,B] [--trust] [flags...]

Serve the Agent Client Protocol on stdin/stdout for an editor (Zed, JetBrains, Neovim,
Emacs). Each session the editor opens is an omp session in the directory it names;
the flags are omp's (`omp --help`) and apply to every session.
"""


async def _protocol_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    import stat

    from omp import UsageError

    for fd, name in ((0, "stdin"), (1, "stdout")):
        mode = os.fstat(fd).st_mode
        # A terminal is pollable too; other character devices (/dev/null) are not.
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)):
            raise UsageError(f"omp acp needs {name} to be a pipe (the editor starts it so)")
    loop = asyncio.get_running_loop()
    out_fd = os.dup(1)
    os.dup2(2, 1)
    reader = asyncio.StreamReader(limit=50 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(out_fd, "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer


async def serve(config: Any) -> int:
    """Answer the client until it closes stdin; 0."""
    run_agent = load_sdk().run_agent

    from omp_mode_acp.framing import NdjsonRpcTransport
    from omp_mode_acp.logs import quiet_sdk_logging
    from omp_mode_acp.server import OmpAgent

    agent = OmpAgent(config)
    reader, writer = await _protocol_streams()
    quiet_sdk_logging()
    transport = NdjsonRpcTransport(reader, writer)
    agent.redactors = transport.redactors
    try:
        await run_agent(agent, transport)
    finally:
        await agent.close()
    return 0


def run_command(args: list[str], ctx: SubcommandContext) -> Any:
    """``omp acp [flags]``."""
    from omp import UsageError

    if {"-h", "--help"} & set(args):
        print(USAGE, end="")
        return 0
    parsed = ctx.parse_flags(args)
    if parsed.messages:
        raise UsageError(
            f"omp acp takes no prompt ({parsed.messages[0]!r}): the editor sends prompts"
        )
    load_sdk()
    from omp_mode_acp.server import ServerConfig

    return serve(ServerConfig.from_flags(parsed.values))


async def run_mode(session: Any, request: Any) -> int:
    """``omp --mode acp``: the session the CLI opened is not used (the editor opens
    its own), only the flags it was opened with."""
    from omp import UsageError

    if request.prompts:
        raise UsageError("--mode acp takes no prompt: the editor sends prompts")
    load_sdk()
    from omp_mode_acp.server import ServerConfig

    return await serve(ServerConfig.from_flags(session.flags))
