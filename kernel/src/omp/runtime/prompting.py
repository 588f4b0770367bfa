"""Running prompts to the end: what ``AgentSession.prompt`` and a one-shot run mode do."""

from __future__ import annotations

from typing import Any


async def run_prompts(
    session: Any,
    prompts: list[str],
    images: list[Any] | None = None,
    source: str = "interactive",
    *,
    literal: bool = False,
) -> Any:
    """Start the session, run each prompt to the end (stopping after one that failed);
    the last assistant message these prompts produced (None if none did, e.g. a slash
    command or a handled input). ``images`` go with the first prompt; ``source`` is
    what input hooks see; ``literal`` prompts are never commands."""
    from omp.agent.loop import messages_after

    await session.start()
    messages = session.agent.messages
    start = messages[-1] if messages else None
    for index, prompt in enumerate(prompts):
        before = session.agent.messages[-1] if session.agent.messages else None
        await session.prompt(
            prompt,
            images=(images or None) if index == 0 else None,
            source=source,
            literal=literal,
        )
        await session.wait_for_idle()
        if (
            session.shutdown_requested
            or session.abort_message
            or _failed(messages_after(session.agent.messages, before))
        ):
            break
    added = messages_after(session.agent.messages, start)
    return next((m for m in reversed(added) if m.role == "assistant"), None)


def _failed(messages: list[Any]) -> bool:
    last = next((m for m in reversed(messages) if m.role == "assistant"), None)
    return last is not None and last.stop_reason in ("error", "aborted")
