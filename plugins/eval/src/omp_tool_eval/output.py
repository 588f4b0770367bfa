"""Large eval output: the whole text goes to an artifact of the session, the model gets
its tail and the ``artifact://`` reference to read the rest."""

from __future__ import annotations

from typing import Any

from omp import ARTIFACT_SCHEME

MAX_BYTES = 50 * 1024
MAX_LINES = 2000


def spill(text: str, ctx: Any) -> tuple[str, str | None]:
    """``text`` as the model gets it, and the artifact reference when it was cut."""
    data = text.encode()
    lines = text.splitlines()
    if len(data) <= MAX_BYTES and len(lines) <= MAX_LINES:
        return text, None
    store = getattr(ctx, "artifacts", None)
    reference = None
    if store is not None:
        try:
            reference = ARTIFACT_SCHEME + store.save(data, ".txt")
        except Exception:
            reference = None
    tail = "\n".join(lines[-MAX_LINES:])
    tail = tail.encode()[-MAX_BYTES:].decode(errors="ignore")
    where = f"the full output is in {reference}" if reference else "the rest was dropped"
    head = (
        f"[Output truncated: showing the last {len(tail.splitlines())} of {len(lines)} "
        f"lines ({len(data)} bytes); {where}]"
    )
    return f"{head}\n{tail}", reference


def spill_tail(text: str) -> str:
    """The last lines of ``text`` that a live update shows."""
    return "\n".join(text.splitlines()[-MAX_LINES:])[-MAX_BYTES:]
