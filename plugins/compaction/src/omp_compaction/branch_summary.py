"""A summary of the branch ``/tree`` leaves, written by the session's model (or
``compaction.model``) when the user asks for one (pi's and omp's branch summarisation).

The abandoned entries - from the common ancestor down to the old leaf - are read
newest first until the budget (the window less ``branchSummary.reserveTokens``) is
spent, serialised as a compaction's are, and summarised in the same structured form.
The summary starts with a line that tells the model it is about a branch left behind,
and ends with the files that branch read and changed (also kept in ``details``).
"""

from __future__ import annotations

from typing import Any

from omp import CompactionSummaryMessage

from omp_compaction import compaction, compaction_prompt

DEFAULT_RESERVE = 16_384

PREAMBLE = (
    "The user explored a different conversation branch before returning here.\n"
    "Summary of that exploration:\n\n"
)

INSTRUCTIONS = """The messages above are a branch of the conversation that the user has \
now left. Summarise it so that the work can go on elsewhere with what this branch \
learned. Use this format:

## Goal
[What the user was trying to do in this branch]

## Constraints & Preferences
- [Requirements and preferences the user stated, or "(none)"]

## Progress
### Done
- [x] [Completed work]

### In Progress
- [ ] [Work started but not finished]

### Blocked
- [Problems, if any]

## Key Decisions
- **[Decision]**: [Why]

## Next Steps
1. [What should happen next]

Be concise. Keep exact file paths, function names and error messages."""


def prepare(
    entries: list[dict[str, Any]], message_of: Any, counter: compaction.TokenCounter, budget: int
) -> compaction.Preparation:
    """The messages of ``entries`` (oldest first) to summarise - the newest ones that fit
    ``budget`` tokens (0: all) - and the files the whole branch read and changed."""
    messages: list[Any] = []
    details: dict[str, list[str]] = {"readFiles": [], "modifiedFiles": []}
    for entry in entries:
        found = entry.get("details")
        summarised = entry.get("type") in ("compaction", "branch_summary")
        ours = not entry.get("fromExtension") and not entry.get("fromHook")
        if summarised and ours and isinstance(found, dict):
            for key in details:
                details[key] += [p for p in found.get(key) or [] if isinstance(p, str)]
        if entry.get("type") == "compaction":
            summary = entry.get("summary")
            if isinstance(summary, str):
                messages.append(CompactionSummaryMessage(summary=summary))
        elif (message := message_of(entry)) is not None:
            messages.append(message)
    read, modified = compaction._file_ops(messages, details)
    kept: list[Any] = []
    used = 0
    for message in reversed(messages):
        cost = counter.of(message)
        if budget > 0 and kept and used + cost > budget:
            break
        kept.append(message)
        used += cost
    kept.reverse()
    return compaction.Preparation(None, kept, read_files=read, modified_files=modified)


async def summarise(
    compactor: Any, entries: list[dict[str, Any]], instructions: str | None, signal: Any
) -> dict[str, Any] | None:
    """The branch_summary fields (summary, details) for the abandoned ``entries``; None
    when they hold no message. CompactionError when the request fails or is aborted."""
    from omp import CompactionError, context_message

    session = compactor.session
    model = compactor.model()
    window = model.context_window or 0
    reserve = session.settings.get("branchSummary.reserveTokens")
    if not isinstance(reserve, int) or reserve < 0:  # omp's default, capped for small windows
        reserve = min(DEFAULT_RESERVE, window // 4)
    budget = max(window - reserve, 1) if window else 0
    preparation = prepare(entries, context_message, compactor.counter, budget)
    if not preparation.messages:
        return None
    prompt = compaction_prompt.summary_prompt(
        preparation, instructions=INSTRUCTIONS, custom=instructions, context=[]
    )
    text = await compactor.ask_model(prompt, signal)
    if signal.aborted:
        raise CompactionError("the branch summary was aborted")
    return {
        "summary": PREAMBLE + compaction_prompt.with_file_tags(text, preparation),
        "details": {
            "readFiles": preparation.read_files,
            "modifiedFiles": preparation.modified_files,
        },
    }
