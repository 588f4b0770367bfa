"""One question through ``ctx.ui``: a select (the options, then "Other (type your own)"),
an input for typed text; multi-select is a loop of selects that toggle options until
"✓ Done selecting". A dialog that times out takes the recommended option (else the
first); one the user cancels leaves the answer empty (``cancelled``)."""

from __future__ import annotations

import time
from typing import Any

from omp_tool_ask.format import Answer
from omp_tool_ask.params import DONE, OTHER, AskQuestion

RECOMMENDED = " (Recommended)"


class Asker:
    def __init__(self, ui: Any, timeout: float | None, signal: Any) -> None:
        self._ui = ui
        self._timeout = timeout
        self._signal = signal

    async def _select(self, title: str, options: list[Any]) -> tuple[str | None, bool]:
        """The label chosen, and whether the dialog timed out (the UI answers None then,
        as for a cancel: the time it took tells them apart)."""
        started = time.monotonic()
        choice = await self._ui.select(title, options, timeout=self._timeout, signal=self._signal)
        timed_out = (
            choice is None
            and self._timeout is not None
            and time.monotonic() - started >= self._timeout
        )
        return choice, timed_out

    async def _typed(self, title: str) -> str | None:
        return await self._ui.input(title, signal=self._signal)

    async def ask(self, question: AskQuestion) -> Answer:
        answer = Answer(
            id=question.id,
            question=question.question,
            options=[o.label for o in question.options],
            multi=question.multi,
        )
        if question.multi:
            await self._ask_many(question, answer)
        else:
            await self._ask_one(question, answer)
        if answer.timed_out and not answer.selected and answer.custom is None:
            answer.selected = _fallback(question)
        return answer

    async def _ask_one(self, question: AskQuestion, answer: Answer) -> None:
        shown = [
            _item(o.label + (RECOMMENDED if i == question.recommended else ""), o)
            for i, o in enumerate(question.options)
        ]
        labels = [_label(item) for item in shown]
        while True:
            choice, answer.timed_out = await self._select(question.question, [*shown, OTHER])
            if choice is None:
                answer.cancelled = not answer.timed_out
                return
            if choice == OTHER:
                typed = await self._typed(question.question)
                if typed is None:
                    continue  # back to the options, as omp's
                answer.custom = typed
                return
            index = labels.index(choice) if choice in labels else -1
            answer.selected = [
                answer.options[index] if index >= 0 else choice.removesuffix(RECOMMENDED)
            ]
            return

    async def _ask_many(self, question: AskQuestion, answer: Answer) -> None:
        chosen: list[str] = []
        items = [_item(o.label, o) for o in question.options]
        while True:
            prefix = f"({len(chosen)} selected) " if chosen else ""
            offered = [*items, *([DONE] if chosen else []), OTHER]
            choice, timed_out = await self._select(prefix + question.question, offered)
            if choice is None:
                if not timed_out:
                    answer.cancelled = True
                    answer.selected = chosen
                    return
                answer.timed_out = True
                break
            if choice == DONE:
                break
            if choice == OTHER:
                typed = await self._typed(prefix + question.question)
                if typed is None:
                    continue
                answer.custom = typed
                break
            if choice in chosen:
                chosen.remove(choice)
            elif choice in answer.options:
                chosen.append(choice)
        answer.selected = chosen


def _item(label: str, option: Any) -> Any:
    return {"label": label, "description": option.description} if option.description else label


def _label(item: Any) -> str:
    return item["label"] if isinstance(item, dict) else str(item)


def _fallback(question: AskQuestion) -> list[str]:
    """What a timed-out question answers: the recommended option, else the first."""
    index = question.recommended
    if index is None or not 0 <= index < len(question.options):
        index = 0
    return [question.options[index].label] if question.options else []
