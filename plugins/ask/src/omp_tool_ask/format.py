"""What the model reads back from ``ask``: omp's answer texts, word for word."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Answer:
    """One question's outcome: the options chosen, or typed text, or nothing (cancelled)."""

    id: str
    question: str
    options: list[str]
    multi: bool
    selected: list[str] = field(default_factory=list)
    custom: str | None = None
    timed_out: bool = False
    cancelled: bool = False

    def details(self, *, with_id: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id} if with_id else {}
        out.update(
            question=self.question,
            options=self.options,
            multi=self.multi,
            selectedOptions=self.selected,
        )
        if self.custom is not None:
            out["customInput"] = self.custom
        if self.timed_out:
            out["timedOut"] = True
        return out


def _indented(label: str, text: str) -> str:
    if "\n" not in text:
        return f"{label} {text}"
    return f"{label}\n" + "\n".join(f"  {line}" for line in text.split("\n"))


def single_text(answer: Answer) -> str:
    parts = []
    if answer.selected:
        chosen = ", ".join(answer.selected) if answer.multi else answer.selected[0]
        suffix = " (auto-selected after timeout)" if answer.timed_out else ""
        parts.append(f"User selected: {chosen}{suffix}")
    if answer.custom is not None:
        parts.append(_indented("User provided custom input:", answer.custom))
    if parts:
        return "\n".join(parts)
    return "User did not select any options" if answer.multi else "User cancelled the selection"


def answer_line(answer: Answer) -> str:
    if answer.custom is not None:
        return f'{answer.id}: "{answer.custom}"'
    if answer.selected:
        suffix = " (auto-selected after timeout)" if answer.timed_out else ""
        if answer.multi:
            return f"{answer.id}: [{', '.join(answer.selected)}]{suffix}"
        return f"{answer.id}: {answer.selected[0]}{suffix}"
    return f"{answer.id}: []" if answer.multi else f"{answer.id}: (cancelled)"


def answers_text(answers: list[Answer]) -> str:
    return "User answers:\n" + "\n".join(answer_line(a) for a in answers)
