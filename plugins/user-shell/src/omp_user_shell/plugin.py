"""The user shell's hook implementations: ``!cmd`` / ``!!cmd`` and ``$code`` / ``$$code``.

The kernel recognises the prefixes and dispatches omp_user_bash / omp_user_python; the
first result wins. This plugin answers ``trylast`` by running the command here (so a
plugin that runs it elsewhere - a remote shell, a Python kernel - still wins), and its
innermost wrapper turns whichever result won into the ``UserShellRun`` the kernel
records: output cut to its tail, secrets hidden, whoever ran it.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import omp

if TYPE_CHECKING:  # the event models import pydantic: not at entry-point load
    from omp import ExecutionOverride, OmpAPI, UserBashEvent, UserPythonEvent


@omp.hookimpl(trylast=True, specname="omp_user_bash")
async def run_bash(event: UserBashEvent, api: OmpAPI) -> dict[str, Any]:
    from omp_user_shell import local  # asyncio and shutil: not on every start

    return {"result": await local.run(api, "bash", event.command, event.signal)}


@omp.hookimpl(trylast=True, specname="omp_user_python")
async def run_python(event: UserPythonEvent, api: OmpAPI) -> dict[str, Any]:
    from omp_user_shell import local

    return {"result": await local.run(api, "python", event.code, event.signal)}


@omp.hookimpl(wrapper=True, trylast=True, specname="omp_user_bash")
def shape_bash(event: UserBashEvent, api: OmpAPI) -> Generator[None, Any, Any]:
    answer = yield
    return _shape(answer, event.command, "bash", event.exclude_from_context, api)


@omp.hookimpl(wrapper=True, trylast=True, specname="omp_user_python")
def shape_python(event: UserPythonEvent, api: OmpAPI) -> Generator[None, Any, Any]:
    answer = yield
    return _shape(answer, event.code, "python", event.exclude_from_context, api)


def _shape(
    answer: ExecutionOverride | None, command: str, kind: str, exclude: bool, api: OmpAPI
) -> ExecutionOverride | None:
    from omp import ExecutionOverride, UserShellRun

    from omp_user_shell.shape import shaped

    if answer is None or isinstance(answer.result, UserShellRun):
        return answer
    run = shaped(answer.result, command, kind, exclude, api.secrets.redact)
    return ExecutionOverride(result=run)
