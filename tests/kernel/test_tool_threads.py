"""Where a plain-function tool runs: a worker thread by default, so a slow tool never
holds the event loop; on the loop itself when the tool says a call is quick
(``Tool.runs_inline``), which spares the thread's hand-off (about 0.25 ms a call)."""

from __future__ import annotations

import asyncio
import threading

import omp
from omp.agent.tools import Tool
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


def test_a_call_abandoned_by_its_awaiter_leaves_its_place_and_is_never_joined():
    from omp.base.threads import DaemonThreads

    pool = DaemonThreads(max_workers=1)
    started, release = threading.Event(), threading.Event()

    def stuck() -> str:
        started.set()
        release.wait()
        return "late"

    async def main() -> str:
        loop = asyncio.get_running_loop()
        first = loop.run_in_executor(pool, stuck)
        while not started.is_set():
            await asyncio.sleep(0.01)
        first.cancel()
        return await asyncio.wait_for(loop.run_in_executor(pool, lambda: "next"), 10)

    try:
        assert asyncio.run(main()) == "next"
        closing = threading.Thread(target=pool.shutdown, daemon=True)
        closing.start()
        closing.join(10)
        assert not closing.is_alive(), "shutdown waited for the stuck call"
        workers = [t for t in threading.enumerate() if t.name.startswith("omp-worker")]
        assert workers and all(t.daemon for t in workers)
    finally:
        release.set()
