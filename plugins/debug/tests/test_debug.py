"""The ``debug`` tool against a real debugpy adapter (plugins/debug)."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from omp import AbortSignal, ToolResult
from omp.testing import settings_with
from omp_tool_debug import plugin
from omp_tool_debug.tool import STATE_KEY, DebugParams, DebugTool

PROGRAM = """\
import sys
def work(n):
    total = 0
    for i in range(n):
        total += i
    return total

x = 41
y = work(5)
print("result", x + y)
sys.exit(3)
"""

LOOP = """\
import sys
import time
print("ready", flush=True)
while True:
    time.sleep(0.05)
"""


def gone(pid: int) -> bool:
    """No such process, or only a zombie waiting for a reaper that is not us."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode("ascii", "replace")
    except OSError:
        return True
    return stat[stat.rfind(")") + 2] in "ZX"


class Debugger:
    """The tool with a session context; remembers every process it saw."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.ctx = SimpleNamespace(state={}, cwd=str(cwd), settings=settings_with({}))
        self.tool = DebugTool()
        self.pids: set[int] = set()

    def __call__(self, signal: AbortSignal | None = None, **args: Any) -> ToolResult:
        return asyncio.run(self.call(signal, **args))

    async def call(self, signal: AbortSignal | None = None, **args: Any) -> ToolResult:
        params = DebugParams(**args)
        result = await self.tool.execute("c", params, signal or AbortSignal(), None, self.ctx)
        self.remember()
        return result

    def remember(self) -> None:
        manager = self.ctx.state.get(STATE_KEY)
        for session in manager.sessions.values() if manager else ():
            if session.client is not None:
                self.pids.add(session.client.proc.pid)
            if session.debuggee_pid:
                self.pids.add(session.debuggee_pid)


def text(result: ToolResult) -> str:
    return "\n".join(block.text for block in result.content)


@pytest.fixture
def debug(tmp_path: Path) -> Iterator[Debugger]:
    (tmp_path / "prog.py").write_text(PROGRAM)
    (tmp_path / "loop.py").write_text(LOOP)
    debugger = Debugger(tmp_path)
    yield debugger
    plugin.omp_session_shutdown(debugger.ctx)
    assert all(gone(pid) for pid in debugger.pids)


def test_launch_break_inspect_step_and_run_to_the_end(debug: Debugger) -> None:
    launched = debug(action="launch", program="prog.py")
    assert not launched.is_error, text(launched)
    assert len(debug.pids) == 2  # the adapter and the debuggee
    assert "Status: stopped" in text(launched) and "Stop reason: entry" in text(launched)

    bp = debug(action="set_breakpoint", file="prog.py", line=5)
    assert text(bp) == f"Breakpoints for {debug.cwd / 'prog.py'}:\n- line 5: verified"

    hit = debug(action="continue")
    assert f"Continue stopped at {debug.cwd / 'prog.py'}:5" in text(hit)
    assert "Frame: work" in text(hit)

    scopes = debug(action="scopes")
    locals_ref = next(s for s in scopes.details["scopes"] if s["name"] == "Locals")
    variables = debug(action="variables", scope_id=locals_ref["variablesReference"])
    assert "- total = 0 (int)" in text(variables).splitlines()
    assert "- n = 5 (int)" in text(variables).splitlines()

    assert text(debug(action="evaluate", expression="total + n * 100")) == "Result: 500\nType: int"

    changed = debug(
        action="set_variable",
        scope_id=locals_ref["variablesReference"],
        name="total",
        value="7",
    )
    assert text(changed) == "total = 7 (int)"

    stepped = debug(action="step_over")
    assert f"Step over stopped at {debug.cwd / 'prog.py'}:4" in text(stepped)

    debug(action="remove_breakpoint", file="prog.py", line=5)
    ended = debug(action="continue")
    assert "Program terminated with exit code 3." in text(ended)
    assert text(debug(action="output")) == "result 58"  # 7 + 1 + 2 + 3 + 4 + 41
    assert all(gone(pid) for pid in debug.pids)


def test_conditional_breakpoint_and_one_session_at_a_time(debug: Debugger) -> None:
    debug(action="launch", program="prog.py")
    bp = debug(action="set_breakpoint", file="prog.py", line=5, condition="i == 3")
    assert text(bp).endswith("- line 5: verified if i == 3")
    debug(action="continue")
    assert text(debug(action="evaluate", expression="i")) == "Result: 3\nType: int"

    again = debug(action="launch", program="prog.py")
    assert again.is_error
    assert text(again) == (
        "Debug session debug-1 is still active. Terminate it before launching another."
    )

    unsupported = debug(action="disassemble", instruction_count=4)
    assert text(unsupported) == "disassemble is not supported by this adapter."

    ended = debug(action="terminate")
    assert text(ended).endswith("Debug session terminated.")
    assert all(gone(pid) for pid in debug.pids)
    assert text(debug(action="status")) == "No active debug session."


def test_abort_while_running_kills_the_debuggee(debug: Debugger) -> None:
    debug(action="launch", program="loop.py")

    async def scenario() -> ToolResult:
        signal = AbortSignal()
        running = asyncio.ensure_future(debug.call(signal, action="continue", timeout=60))
        manager = debug.ctx.state[STATE_KEY]
        deadline = time.monotonic() + 30
        while "ready" not in manager.active.output and time.monotonic() < deadline:
            await asyncio.sleep(0.01)  # polling a condition, bounded
        assert "ready" in manager.active.output
        debug.remember()
        signal.abort()
        return await running

    result = asyncio.run(scenario())
    assert result.is_error
    assert text(result) == "Aborted; debug session debug-1 was ended."
    assert all(gone(pid) for pid in debug.pids)


def test_a_missing_program_is_a_one_line_error(debug: Debugger) -> None:
    result = debug(action="launch", program="nope.py")
    assert result.is_error
    assert text(result) == f"Program not found: {debug.cwd / 'nope.py'}"
    assert not debug.pids


def test_without_an_adapter_the_plugin_is_degraded_and_says_why(
    omp_harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from omp_tool_debug import adapters

    monkeypatch.setattr(adapters, "debugpy_installed", lambda: False)
    runtime = omp_harness.runtime(builtins=["debug", "read"])
    record = next(r for r in runtime.host.records if r.name == "debug")
    assert record.status == "degraded"
    assert "debugpy is not importable" in (record.error or "")
    assert "debug" not in [t.name for _, t in runtime.contributions.items["tools"]]


def test_a_session_that_ends_takes_its_debuggee_with_it(omp_harness: Any) -> None:
    (omp_harness.cwd / "loop.py").write_text(LOOP)
    launch = {"name": "debug", "arguments": {"action": "launch", "program": "loop.py"}}
    run = {"name": "debug", "arguments": {"action": "continue", "timeout": 5}}
    session = omp_harness.session(
        script=[{"tool_calls": [launch]}, {"tool_calls": [run]}, {"text": "left running"}],
        builtins=["debug"],
    )
    events = omp_harness.run(session, "debug it")
    launched, ran = [e.result for e in events.of("tool_execution_end")]
    assert "Status: stopped" in launched["content"][0].text
    assert "Program is still running after 5s." in ran["content"][0].text
    pid = ran["details"]["snapshot"]["pid"]
    assert pid and gone(pid)  # session shutdown ended the debug session
    assert events.final_text() == "left running"


def test_an_adapter_from_configuration(debug: Debugger) -> None:
    adapter = [sys.executable, "-m", "debugpy.adapter"]
    debug.ctx.settings = settings_with({"debug": {"adapters": {"mine": adapter}}})
    unknown = debug(action="launch", program="prog.py", adapter="nope")
    assert text(unknown) == "adapter 'nope' is not available. Installed adapters: debugpy, mine"
    launched = debug(
        action="launch",
        program="prog.py",
        adapter="mine",
        arguments={"console": "internalConsole"},
    )
    assert "Adapter: mine" in text(launched) and "Status: stopped" in text(launched)
    ended = debug(action="continue")
    assert "Program terminated with exit code 3." in text(ended)


def test_an_idle_session_is_collected(debug: Debugger) -> None:
    debug.ctx.settings = settings_with({"debug": {"idleTimeoutSeconds": 1}})
    debug(action="launch", program="loop.py")
    manager = debug.ctx.state[STATE_KEY]
    deadline = time.monotonic() + 15
    while manager.sessions and time.monotonic() < deadline:
        time.sleep(0.05)  # polling the collector's outcome, bounded
    assert not manager.sessions
    assert all(gone(pid) for pid in debug.pids)
    assert text(debug(action="status")) == "No active debug session."


def test_plugin_info_says_whether_the_debug_tool_is_offered(
    omp_harness: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from omp_tool_debug import adapters

    omp_harness.run_subcommand("plugin", "info", "debug", builtins=["debug", "plugin_manager"])
    assert "  tools debug: offered here" in capsys.readouterr().out
    monkeypatch.setattr(adapters, "debugpy_installed", lambda: False)
    omp_harness.run_subcommand("plugin", "info", "debug", builtins=["debug", "plugin_manager"])
    out = capsys.readouterr().out
    assert "tools debug: not offered here: no debug adapter: debugpy is not importable" in out
    assert "(pip install debugpy)" in out
