"""The ``eval`` tool (plugins/eval) on a real ipykernel."""

from __future__ import annotations

import asyncio
import base64
import struct
import sys
import zlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import omp
import pytest
from omp import AbortSignal, ArtifactStore, ImageContent, ToolResult
from omp.testing import settings_with
from omp_tool_eval.interpreter import kernel_python
from omp_tool_eval.tool import EvalParams, EvalTool

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

IGNORES_SIGINT = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True: pass"


def gone(pid: int) -> bool:
    """No such process, or only a zombie waiting for a reaper that is not us."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode("ascii", "replace")
    except OSError:
        return True
    return stat[stat.rfind(")") + 2] in "ZX"


def tiny_png() -> bytes:
    """A 1x1 red PNG (no imaging library needed)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def call(name: str = "eval", **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def cells(*codes: str) -> list[dict[str, str]]:
    return [{"code": code} for code in codes]


def texts(events: Any) -> list[str]:
    return [e.result["content"][0].text for e in events.of("tool_execution_end")]


class Eval:
    """The tool with a session-like context, in one event loop."""

    def __init__(self, tmp_path: Path) -> None:
        self.ctx = SimpleNamespace(
            cwd=str(tmp_path),
            state={},
            artifacts=ArtifactStore(tmp_path / "artifacts"),
            settings=settings_with({}),
        )
        self.tool = EvalTool()

    async def __call__(
        self, *codes: str, signal: AbortSignal | None = None, on_update: Any = None, **params: Any
    ) -> ToolResult:
        args = EvalParams(cells=cells(*codes), **params)
        result = await self.tool.execute("c", args, signal or AbortSignal(), on_update, self.ctx)
        assert isinstance(result, ToolResult)
        return result

    async def close(self) -> None:
        kernel = self.ctx.state.pop("omp-tool-eval", None)
        if kernel is not None:
            await kernel.shutdown()


def run_with(tmp_path: Path, scenario: Any) -> Any:
    async def main() -> Any:
        tool = Eval(tmp_path)
        try:
            return await scenario(tool)
        finally:
            await tool.close()

    return asyncio.run(main())


def text(result: ToolResult) -> str:
    return result.content[0].text


# -- through a session ---------------------------------------------------------------


def test_state_is_kept_across_calls_reset_clears_it_and_shutdown_ends_the_kernel(
    omp_harness: Any,
) -> None:
    session = omp_harness.session(
        script=[
            call(cells=cells("x = 41")),
            call(cells=cells("print(x + 1)")),
            call(cells=cells("print('x' in globals())"), reset=True),
            {"text": "done"},
        ],
        builtins=["eval"],
    )
    events = omp_harness.run(session, "count")
    first, kept, reset = texts(events)
    assert first == "(no output)"
    assert kept == "42"
    assert reset == "Kernel reset: all state cleared.\n\nFalse"
    ends = events.of("tool_execution_end")
    pids = {e.result["details"]["pid"] for e in ends}
    assert len(pids) == 2 and None not in pids  # the reset started a new kernel
    assert all(gone(pid) for pid in pids)  # session shutdown took the kernel with it
    assert events.final_text() == "done"


def executions(events: Any) -> list[Any]:
    return [e.message for e in events.of("message_end") if e.message.role == "pythonExecution"]


def test_dollar_code_runs_in_the_eval_kernel_and_double_dollar_stays_out_of_context(
    omp_harness: Any,
) -> None:
    seen = SeenByModel()
    session = omp_harness.session(
        [seen],
        script=[call(cells=cells("print(x)\ny = x + 1")), {"text": "done"}],
        builtins=["eval", "user_shell"],
    )
    events = omp_harness.run(
        session, "$x = 41", "$$print('quiet', x)", "go", "$print(y)", "$1/0", "$6 * 7"
    )
    assert texts(events) == ["41"]  # the tool saw what $ defined
    runs = executions(events)
    assert [(r.code, r.output, r.exit_code, bool(r.exclude_from_context)) for r in runs] == [
        ("x = 41", "", 0, False),
        ("print('quiet', x)", "quiet 41\n", 0, True),
        ("print(y)", "42\n", 0, False),  # and $ sees what the tool defined
        ("1/0", runs[3].output, 1, False),
        ("6 * 7", "42\n", 0, False),  # an expression's value, as at a REPL
    ]
    assert runs[3].output.startswith("Traceback (most recent call last):\n  Cell In[")
    assert runs[3].output.endswith("ZeroDivisionError: division by zero\n")
    # the user shell's wrapper shaped the runs: $$ is marked, so it never reaches the model
    context = [m for m in seen.requests[0] if getattr(m, "role", None) == "pythonExecution"]
    assert [bool(m.exclude_from_context) for m in context] == [False, True]


class SeenByModel:
    """Records the messages of each request to the model."""

    def __init__(self) -> None:
        self.requests: list[list[Any]] = []

    @omp.hookimpl
    def omp_context(self, event: Any) -> None:
        self.requests.append(list(event.messages))


def test_an_image_output_reaches_the_model_as_an_image(omp_harness: Any) -> None:
    png = tiny_png()
    code = f"from IPython.display import Image, display\ndisplay(Image(data={png!r}))"
    seen = SeenByModel()
    session = omp_harness.session(
        [seen], script=[call(cells=cells(code)), {"text": "a red pixel"}], builtins=["eval"]
    )
    events = omp_harness.run(session, "draw")
    assert texts(events) == ["(1 image(s) attached)"]
    results = [m for m in seen.requests[-1] if getattr(m, "role", None) == "toolResult"]
    images = [c for c in results[-1].content if isinstance(c, ImageContent)]
    assert [(i.mime_type, base64.b64decode(i.data)) for i in images] == [("image/png", png)]


def test_the_tool_is_not_offered_when_disabled(omp_harness: Any) -> None:
    (omp_harness.agent_dir / "settings.json").write_text('{"eval": {"enabled": false}}')
    session = omp_harness.session(script=[{"text": "ok"}], builtins=["eval"])
    omp_harness.run(session, "hi")
    assert "eval" not in session.api.get_active_tools()


def test_omp_plugins_says_why_eval_is_not_offered(tmp_path: Path, monkeypatch: Any) -> None:
    from omp_tool_eval import plugin

    (check,) = plugin.omp_register_tool_checks(None)
    assert check.tools == "eval"
    assert check.unavailable(settings_with({}), tmp_path) is None
    off = settings_with({"eval": {"enabled": False}})
    assert check.unavailable(off, tmp_path) == "turned off by the eval.enabled setting"
    monkeypatch.setattr(plugin, "_kernel_installed", lambda: False)
    assert "ipykernel or jupyter_client is not importable" in check.unavailable(off, tmp_path)
    with pytest.raises(omp.OmpError, match="eval tool not offered: ipykernel"):
        plugin.omp_register_tools(None)


# -- the tool itself -----------------------------------------------------------------


def test_cells_stop_at_the_first_error_with_the_users_traceback(tmp_path: Path) -> None:
    async def scenario(run: Eval) -> ToolResult:
        return await run("a = 1", "def f():\n    return 1 / 0\nf()", "a = 2", timeout=10)

    result = run_with(tmp_path, scenario)
    assert result.is_error
    out = text(result)
    assert out.startswith("[1/3]\n\n[2/3]\nTraceback (most recent call last):\n  Cell In[")
    assert "return 1 / 0" in out and out.count("Cell In[") == 2
    assert "ipykernel" not in out and "\x1b[" not in out
    assert out.endswith("ZeroDivisionError: division by zero\n\nCell 3 was not run.")
    statuses = [c["status"] for c in result.details["cells"]]
    assert statuses == ["complete", "error"]


def test_a_timeout_interrupts_the_cell_and_the_next_call_works(tmp_path: Path) -> None:
    async def scenario(run: Eval) -> tuple[ToolResult, ToolResult]:
        await run("kept = 'yes'")
        stuck = await run("while True: pass", timeout=1)
        return stuck, await run("print(kept)")

    stuck, after = run_with(tmp_path, scenario)
    assert stuck.is_error
    assert text(stuck) == "Cell timed out after 1 s and was interrupted."
    assert stuck.details["cells"][0]["restarted"] is False
    assert (text(after), after.is_error) == ("yes", False)  # state survived the interrupt


def test_a_cell_that_ignores_sigint_gets_a_restart_and_a_clear_message(tmp_path: Path) -> None:
    async def scenario(run: Eval) -> tuple[ToolResult, ToolResult]:
        first = await run("kept = 1")
        stuck = await run(IGNORES_SIGINT, timeout=1)
        after = await run("print('kept' in globals())")
        assert gone(first.details["pid"])
        return stuck, after

    stuck, after = run_with(tmp_path, scenario)
    assert stuck.is_error
    assert text(stuck) == (
        "Cell timed out after 1 s and was interrupted.\nThe kernel did not stop on interrupt "
        "and was restarted: its state (variables, imports) was lost."
    )
    assert stuck.details["cells"][0]["restarted"] is True
    assert text(after) == "False"


def test_a_kernel_that_dies_is_restarted_and_the_model_told(tmp_path: Path) -> None:
    async def scenario(run: Eval) -> tuple[ToolResult, ToolResult]:
        await run("kept = 1")
        died = await run("import os\nos._exit(3)", "kept = 2")
        return died, await run("print('kept' in globals())")

    died, after = run_with(tmp_path, scenario)
    assert died.is_error
    assert text(died) == (
        "[1/2]\nThe kernel died (exit code 3) and was restarted: its state (variables, "
        "imports) was lost.\n\nCell 2 was not run."
    )
    assert [c["status"] for c in died.details["cells"]] == ["died"]
    assert text(after) == "False"


def test_abort_interrupts_the_running_cell(tmp_path: Path) -> None:
    signal = AbortSignal()

    def on_update(update: ToolResult) -> None:
        if "started" in update.content[0].text:
            signal.abort()

    async def scenario(run: Eval) -> tuple[ToolResult, ToolResult]:
        code = "print('started', flush=True)\nwhile True: pass"
        aborted = await run(code, signal=signal, on_update=on_update, timeout=60)
        return aborted, await run("print('again')")

    aborted, again = run_with(tmp_path, scenario)
    assert aborted.is_error
    assert text(aborted) == "started\nCell was aborted and interrupted."
    assert text(again) == "again"


def test_large_output_spills_to_an_artifact(tmp_path: Path) -> None:
    async def scenario(run: Eval) -> ToolResult:
        return await run("for i in range(5000): print('line', i)")

    result = run_with(tmp_path, scenario)
    out = text(result)
    reference = result.details["artifact"]
    assert reference and reference.startswith("artifact://")
    assert out.startswith("[Output truncated: showing the last 2000 of 5000 lines")
    assert reference in out.splitlines()[0]
    assert out.endswith("line 4999")
    saved = ArtifactStore(tmp_path / "artifacts").path(reference).read_text()
    assert saved.startswith("line 0\n") and saved.endswith("line 4999")


def test_cwd_parameter_and_a_missing_directory(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()

    async def scenario(run: Eval) -> tuple[ToolResult, ToolResult, ToolResult]:
        inside = await run("import os; print(os.getcwd())", cwd="sub")
        back = await run("import os; print(os.getcwd())")
        missing = await run("1", cwd="nope")
        return inside, back, missing

    inside, back, missing = run_with(tmp_path, scenario)
    assert text(inside) == str(tmp_path / "sub")
    assert text(back) == str(tmp_path)
    assert (
        missing.is_error
        and text(missing) == f"Working directory does not exist: {tmp_path / 'nope'}"
    )


def test_the_kernel_gets_no_api_keys(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-the-kernel")
    monkeypatch.setenv("OMP_EVAL_VISIBLE", "yes")

    async def scenario(run: Eval) -> ToolResult:
        code = "import os\nprint(os.environ.get('OPENAI_API_KEY'), os.environ['OMP_EVAL_VISIBLE'])"
        return await run(code)

    assert text(run_with(tmp_path, scenario)) == "None yes"


def test_the_kernel_runs_in_the_projects_virtualenv_only_when_it_has_ipykernel(
    tmp_path: Path,
) -> None:
    def venv(root: Path, target: str) -> Path:
        python = root / ".venv" / "bin" / "python"
        python.parent.mkdir(parents=True)
        python.write_text(f'#!/bin/sh\nexec {target} "$@"\n')
        python.chmod(0o755)
        return python

    without = tmp_path / "without"
    venv(without, "/bin/false")
    assert kernel_python(str(without), {}) == sys.executable
    project = tmp_path / "project"
    python = venv(project, sys.executable)
    assert kernel_python(str(project), {}) == str(python)
    assert kernel_python(str(without), {"VIRTUAL_ENV": str(project / ".venv")}) == str(python)
