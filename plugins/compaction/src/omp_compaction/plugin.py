"""Entry module of omp-compaction: only the hooks, cheap to import (``omp --help`` loads
it). The policy answers the kernel's compaction hooks; every hook is ``trylast`` so a
plugin of one's own can answer first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import omp

if TYPE_CHECKING:
    from omp_compaction.compactor import Compactor

STATE_KEY = "omp-compaction"


def compactor_for(session: Any, ctx: Any) -> Compactor:
    """The session's Compactor, kept in its plugin state (one per session)."""
    from omp_compaction.compactor import Compactor

    found: Compactor | None = ctx.state.get(STATE_KEY)
    if found is None or found.session is not session:
        found = ctx.state[STATE_KEY] = Compactor(session)
    return found


@omp.hookimpl
def omp_register_settings(api: Any) -> list[omp.SettingSpec]:
    from omp_compaction.settings import settings

    return settings()


@omp.hookimpl(trylast=True)
async def omp_before_request(event: omp.BeforeRequestEvent, ctx: Any) -> Any:
    return await compactor_for(event.session, ctx).before_request(event.messages, event.model)


@omp.hookimpl(trylast=True)
async def omp_context_overflow(event: omp.ContextOverflowEvent, ctx: Any) -> Any:
    compactor = compactor_for(event.session, ctx)
    return await compactor.on_overflow(event.message, event.messages, event.model)


@omp.hookimpl(trylast=True)
def omp_compaction_service(event: omp.CompactionServiceEvent, ctx: Any) -> Any:
    return omp.CompactionServiceResult(service=compactor_for(event.session, ctx))
