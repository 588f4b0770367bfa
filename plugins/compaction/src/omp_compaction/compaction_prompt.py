"""The text of a compaction's summary request: the conversation serialised as labelled
lines (so the model reads it instead of going on with it), the instructions, the
previous summary to merge, pi's split-turn prefix prompt, and the file tags appended
to the summary."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from omp import serialize_conversation

if TYPE_CHECKING:
    from omp_compaction.compaction import Preparation

SUMMARY_SYSTEM_PROMPT = (
    "You are a context summarisation assistant. You read a conversation between a user "
    "and an AI coding assistant and write a structured summary of it, following the "
    "instructions exactly. Do NOT continue the conversation and do NOT answer any "
    "question in it: only write the summary."
)


def serialize(messages: list[Any]) -> str:
    """The conversation as labelled text (``omp.serialize_conversation``)."""
    return serialize_conversation(messages)


def default_instructions() -> str:
    return (Path(__file__).parent / "prompts" / "compaction.md").read_text(encoding="utf-8")


def summary_prompt(
    preparation: Preparation,
    *,
    instructions: str,
    custom: str | None,
    context: list[str],
) -> str:
    """The one user message of the summary request."""
    parts = [f"<conversation>\n{serialize(preparation.messages)}\n</conversation>"]
    if preparation.previous_summary:
        parts.append(f"<previous-summary>\n{preparation.previous_summary}\n</previous-summary>")
        instructions += (
            "\n\nA <previous-summary> of the conversation before these messages is given: "
            "merge it into the new summary, keeping its goals, decisions and files."
        )
    if context:
        parts.append(
            "<additional-context>\n"
            + "\n".join(f"- {c}" for c in context)
            + "\n</additional-context>"
        )
    parts.append(instructions)
    if custom:
        parts.append(f"Additional focus from the user: {custom}")
    return "\n\n".join(parts)


TURN_PREFIX_INSTRUCTIONS = """This is the PREFIX of a turn that was too large to keep whole. \
The SUFFIX (the recent work) is kept verbatim after your summary.

Summarise the prefix so that the kept suffix can be understood:

## Original Request
[What the user asked for in this turn, in their words where it matters]

## Early Progress
- [Decisions taken and work done in the prefix; files read and changed]

## Context for Suffix
- [What is needed to understand the kept recent work]

Be concise."""

SPLIT_TURN_HEADING = "**Turn Context (split turn):**"


def split_previous(summary: str | None) -> tuple[str | None, str | None]:
    """A previous summary as (history, earlier turn context): the part a split turn
    added after ``SPLIT_TURN_HEADING`` is merged again, not stacked."""
    if not summary or SPLIT_TURN_HEADING not in summary:
        return summary, None
    history, _, turn = summary.partition(SPLIT_TURN_HEADING)
    return history.rstrip().removesuffix("---").rstrip(), turn.strip()


def turn_prefix_prompt(preparation: Preparation) -> str:
    """The summary request for a split turn's prefix (still inside the turn an earlier
    compaction split: with that turn context to merge)."""
    parts = [f"<conversation>\n{serialize(preparation.turn_prefix)}\n</conversation>"]
    earlier = None if preparation.messages else split_previous(preparation.previous_summary)[1]
    if earlier:
        parts.append(f"<previous-summary>\n{earlier}\n</previous-summary>")
    parts.append(TURN_PREFIX_INSTRUCTIONS)
    if earlier:
        parts.append(
            "The <previous-summary> covers the earlier part of this same turn: merge it in."
        )
    return "\n\n".join(parts)


def join_split_summary(history: str, prefix: str) -> str:
    """pi's merge of a split turn's two summaries."""
    return f"{history.strip()}\n\n---\n\n{SPLIT_TURN_HEADING}\n\n{prefix.strip()}"


def with_file_tags(summary: str, preparation: Preparation) -> str:
    """The summary with the files read and changed appended as tags."""
    tags = []
    if preparation.read_files:
        tags.append("<read-files>\n" + "\n".join(preparation.read_files) + "\n</read-files>")
    if preparation.modified_files:
        tags.append(
            "<modified-files>\n" + "\n".join(preparation.modified_files) + "\n</modified-files>"
        )
    return "\n\n".join([summary.strip(), *tags]) if tags else summary.strip()
