"""Entry module: only the hooks, cheap to import (``omp --help`` loads it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import omp
from omp import Command, Subcommand

if TYPE_CHECKING:
    from omp import SubcommandContext

SUMMARY_KEY = "omp_sessions_command.summary"
"""Where ``/tree ID --summary TEXT`` leaves the summary for session_before_tree."""


def _run(args: list[str], ctx: SubcommandContext) -> int:
    from omp_sessions_command.command import run

    return run(args, ctx)


@omp.hookimpl
def omp_register_subcommands(api: Any) -> list[Subcommand]:
    return [Subcommand("sessions", "list, search and export sessions ([SEARCH], export)", _run)]


def _slash(name: str) -> Any:
    async def handler(args: str, ctx: Any) -> None:
        from omp_sessions_command import slash

        await getattr(slash, name)(args, ctx)

    return handler


@omp.hookimpl
def omp_register_commands(api: Any) -> list[Command]:
    return [
        Command(
            "tree",
            "Show the session tree, or move to entry ID",
            _slash("tree"),
            "[ID] [--summarize [FOCUS] | --summary TEXT]",
        ),
        Command(
            "branch",
            "List earlier prompts, or continue from before prompt ID",
            _slash("branch"),
            "[ID]",
        ),
        Command(
            "fork", "Continue in a new session file (from before entry ID)", _slash("fork"), "[ID]"
        ),
        Command("name", "Show or set this session's name", _slash("name"), "[NAME]"),
        Command(
            "resume",
            "List this directory's sessions, or switch to one",
            _slash("resume"),
            "[ID|SEARCH]",
        ),
        Command(
            "export",
            "Write this session as HTML or Markdown",
            _slash("export"),
            "[FILE.html|FILE.md] [--force]",
        ),
    ]


@omp.hookimpl
def omp_session_before_tree(event: Any, ctx: Any) -> Any:
    summary = ctx.state.pop(SUMMARY_KEY, None)
    if summary is None:
        return None
    return {"summary": {"summary": summary}}
