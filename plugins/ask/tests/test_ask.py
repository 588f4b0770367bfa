"""The ``ask`` tool (plugins/ask): omp's dialogs and answer texts, through ``ctx.ui``."""

from __future__ import annotations

import json
from typing import Any

import omp
from omp import AssistantStream, Model, Provider
from omp.testing import ScriptedUI

OTHER = "Other (type your own)"
DONE = "✓ Done selecting"

STORAGE = {
    "id": "storage",
    "question": "Which storage backend?",
    "options": [{"label": "SQLite", "description": "one file"}, {"label": "PostgreSQL"}],
    "recommended": 1,
}
CHECKS = {
    "id": "checks",
    "question": "Which checks?",
    "options": [{"label": "lint"}, {"label": "types"}, {"label": "tests"}],
    "multi": True,
}


def ask_script(*questions: dict[str, Any]) -> list[dict[str, Any]]:
    call = {"name": "ask", "arguments": {"questions": list(questions)}}
    return [{"tool_calls": [call]}, {"text": "thanks", "repeat": True}]


def run_ask(omp_harness, answers, *questions, settings=None):
    if settings is not None:
        (omp_harness.agent_dir / "settings.json").write_text(json.dumps(settings))
    session = omp_harness.session(
        script=ask_script(*questions), ui_answers=answers, builtins=["ask"]
    )
    events = omp_harness.run(session, "decide")
    [end] = events.of("tool_execution_end")
    return end, events, session.ui


def text_of(end) -> str:
    return end.result["content"][0].text


def test_single_choice(omp_harness) -> None:
    end, events, ui = run_ask(omp_harness, ["SQLite"], STORAGE)
    assert not end.is_error
    assert text_of(end) == "User selected: SQLite"
    assert end.result["details"] == {
        "question": "Which storage backend?",
        "options": ["SQLite", "PostgreSQL"],
        "multi": False,
        "selectedOptions": ["SQLite"],
    }
    assert ui.requests == [("select", "Which storage backend?")]
    assert events.final_text() == "thanks"


def test_the_recommended_option_is_marked_and_maps_back(omp_harness) -> None:
    end, _, _ = run_ask(omp_harness, ["PostgreSQL (Recommended)"], STORAGE)
    assert text_of(end) == "User selected: PostgreSQL"


def test_multi_select_toggles_until_done(omp_harness) -> None:
    answers = ["tests", "types", "lint", "types", DONE]
    end, _, ui = run_ask(omp_harness, answers, CHECKS)
    assert text_of(end) == "User selected: tests, lint"
    assert end.result["details"]["selectedOptions"] == ["tests", "lint"]
    titles = [title for _, title in ui.requests]
    assert titles[:2] == ["Which checks?", "(1 selected) Which checks?"]
    assert titles[-1] == "(2 selected) Which checks?"


def test_other_asks_for_typed_text(omp_harness) -> None:
    end, _, ui = run_ask(omp_harness, [OTHER, "Use DuckDB"], STORAGE)
    assert text_of(end) == "User provided custom input: Use DuckDB"
    assert end.result["details"]["customInput"] == "Use DuckDB"
    assert [kind for kind, _ in ui.requests] == ["select", "input"]


def test_other_then_escape_goes_back_to_the_options(omp_harness) -> None:
    end, _, ui = run_ask(omp_harness, [OTHER, None, "SQLite"], STORAGE)
    assert text_of(end) == "User selected: SQLite"
    assert [kind for kind, _ in ui.requests] == ["select", "input", "select"]


def test_timeout_takes_the_recommended_option(omp_harness) -> None:
    end, events, _ = run_ask(
        omp_harness, [ScriptedUI.TIMEOUT], STORAGE, settings={"ask": {"timeout": 0.2}}
    )
    assert text_of(end) == "User selected: PostgreSQL (auto-selected after timeout)"
    assert end.result["details"]["timedOut"] is True
    assert events.final_text() == "thanks"


def test_cancel_ends_the_run(omp_harness) -> None:
    end, events, _ = run_ask(omp_harness, [None], STORAGE)
    assert text_of(end) == "User cancelled the selection"
    assert end.result["details"]["selectedOptions"] == []
    assert "thanks" not in [
        m.text
        for m in (e.message for e in events.of("message_end"))
        if getattr(m, "role", "") == "assistant"
    ]


def test_several_questions_answer_by_id(omp_harness) -> None:
    end, _, _ = run_ask(omp_harness, ["SQLite", "lint", "tests", DONE], STORAGE, CHECKS)
    assert text_of(end) == "User answers:\nstorage: SQLite\nchecks: [lint, tests]"
    results = end.result["details"]["results"]
    assert [r["id"] for r in results] == ["storage", "checks"]


def test_reserved_labels_and_duplicates_are_refused(omp_harness) -> None:
    reserved = dict(STORAGE, options=[{"label": OTHER}])
    end, _, ui = run_ask(omp_harness, [], reserved)
    assert end.is_error
    assert "do not collide with reserved runtime labels: Other (type your own)" in text_of(end)
    twice = dict(STORAGE, options=[{"label": "A"}, {"label": "A"}])
    end, _, _ = run_ask(omp_harness, [], twice)
    assert end.is_error
    assert text_of(end) == "Error: option labels must be unique within a question: 'A'"
    assert ui.requests == []


class Recorder(Provider):
    """Records the tool names of every request; answers "done"."""

    name = "rec"
    api = "rec"

    def __init__(self) -> None:
        super().__init__([Model(provider="rec", id="model", api="rec")])
        self.tools: list[list[str]] = []

    async def stream(self, model, context, options):
        self.tools.append([t["name"] for t in context.tools])
        out = AssistantStream(model)
        yield out.start()
        yield out.text_start()
        yield out.text_delta("done")
        yield out.text_end()
        yield out.done()


class WithRecorder:
    def __init__(self) -> None:
        self.provider = Recorder()

    @omp.hookimpl
    def omp_register_providers(self, api):
        return [self.provider]


def test_offered_only_where_a_ui_can_answer(omp_harness) -> None:
    for answers, offered in ((None, False), ([], True)):
        plugin = WithRecorder()
        session = omp_harness.session(
            [plugin], model="rec/model", ui_answers=answers, builtins=["ask", "read"]
        )
        omp_harness.run(session, "hi")
        [tools] = plugin.provider.tools
        assert "read" in tools
        assert ("ask" in tools) is offered


def test_the_entry_module_is_cheap_and_declares_the_timeout(omp_harness) -> None:
    import os
    import subprocess
    import sys

    from omp_tool_ask import plugin

    [setting] = plugin.omp_register_settings(api=None)
    assert (setting.key, setting.default) == ("ask.timeout", 0)
    code = (
        "import sys, omp_tool_ask.plugin; "
        "sys.exit(1 if {'pydantic', 'omp_tool_ask.tool'} & set(sys.modules) else 0)"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    assert subprocess.run([sys.executable, "-c", code], env=env, check=False).returncode == 0
