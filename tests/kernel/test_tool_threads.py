"""Where a plain-function tool runs: a worker thread by default, so a slow tool never
holds the event loop; on the loop itself when the tool says a call is quick
(``Tool.runs_inline``), which spares the thread's hand-off (about 0.25 ms a call)."""

from __future__ import annotations

import threading

import omp
from omp.tools import Tool
from pydantic import BaseModel


class Size(BaseModel):
    small: bool = True


class Where(Tool):
    name = "where"
    parameters = Size

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[int] = []

    def runs_inline(self, params, ctx) -> bool:
        return params.small

    def execute(self, call_id, params, signal, on_update, ctx):
        self.threads.append(threading.get_ident())
        return "here"


def test_a_quick_call_runs_on_the_loop_and_a_slow_one_in_a_worker(make_session, omp_harness):
    tool = Where()
    loop_threads: list[int] = []

    class Tools:
        @omp.hookimpl
        def omp_register_tools(self):
            return [tool]

        @omp.hookimpl
        def omp_turn_start(self):
            loop_threads.append(threading.get_ident())

    script = [
        {"calls": [("where", {"small": True})]},
        {"calls": [("where", {"small": False})]},
        {"text": "done"},
    ]
    session, _ = make_session(script, plugins=[Tools()])
    log = omp_harness.run(session, "go")
    assert log.final_text() == "done"
    loop = loop_threads[0]
    assert tool.threads[0] == loop
    assert tool.threads[1] != loop


def test_tools_run_in_a_worker_unless_they_say_otherwise():
    plain = Tool(name="plain", parameters=Size, execute=lambda *a: "x")
    assert plain.runs_inline(Size(), None) is False
