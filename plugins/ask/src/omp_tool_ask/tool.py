"""The ``ask`` tool: questions with options, answered by the user through ``ctx.ui``."""

from __future__ import annotations

from typing import Any

from omp import Tool, ToolResult

from omp_tool_ask.dialog import Asker
from omp_tool_ask.format import answers_text, single_text
from omp_tool_ask.params import AskParams, duplicate_problem

DESCRIPTION = """Ask the user for clarification or input during the task.

Use it when several approaches have significantly different tradeoffs the user should
weigh.
- `recommended: <index>` marks the default option (0-indexed); " (Recommended)" is
  added automatically.
- Use `questions` for related questions, not one call per question.
- Set `multi: true` on a question to allow several selections.
- Keep option labels short; put tradeoffs in `description`, not in labels.
- The user may type a custom answer (`Other`), which can be a clarifying question:
  answer it in your response, then call `ask` again for what is still open.
- Provide 2-5 concise, distinct options. Do NOT include "Other": the UI adds
  "Other (type your own)" to every question.
- Default to action: resolve ambiguity through the repository's conventions and
  reasonable defaults first; ask only when the user must decide."""


class AskTool(Tool):
    name = "ask"
    label = "Ask"
    description = DESCRIPTION
    parameters = AskParams
    exclusive = True  # one dialog at a time: two would fight over the screen

    async def execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        if ctx is None or not ctx.has_ui:
            return ToolResult.error("Ask tool requires interactive mode")
        problem = duplicate_problem(params)
        if problem:
            return ToolResult.error(f"Error: {problem}")
        seconds = float(ctx.settings.get("ask.timeout") or 0)
        asker = Asker(ctx.ui, seconds if seconds > 0 else None, signal)
        answers = []
        for question in params.questions:
            answer = await asker.ask(question)
            answers.append(answer)
            if answer.cancelled:  # Esc ends the run, as omp's: the user wants to take over
                ctx.abort("Ask tool was cancelled by the user")
                break
        if len(params.questions) == 1:
            [answer] = answers
            return ToolResult.text(single_text(answer), answer.details(with_id=False))
        details = {"results": [a.details(with_id=True) for a in answers]}
        return ToolResult.text(answers_text(answers), details)
