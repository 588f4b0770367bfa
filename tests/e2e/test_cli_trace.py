"""``OMP_TRACE_PLUGINS=1`` prints every hook call and its result, through pluggy's
hook-call monitoring (issue 9): registration hooks and async event hooks alike."""

from __future__ import annotations


def test_trace_shows_registration_and_event_hooks_with_results(omp_cli):
    ext = omp_cli.extension(
        "import omp\n\n@omp.hookimpl\nasync def omp_tool_call(event):\n"
        "    return {'block': True, 'reason': 'traced block'}\n",
        "blocker.py",
    )
    script = omp_cli.script(
        [{"tool_calls": [{"name": "read", "arguments": {"path": "x"}}]}, {"text": "done"}]
    )
    proc = omp_cli("-p", "go", "-e", ext, "--script", script, env={"OMP_TRACE_PLUGINS": "1"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"
    lines = [line for line in proc.stderr.splitlines() if line.startswith("[omp trace] ")]
    assert any(line.startswith("[omp trace] omp_register_tools <- ") for line in lines)
    assert any(line.startswith("[omp trace] omp_tool_call <- ext:blocker") for line in lines)
    assert any(
        "omp_tool_call -> ToolCallDecision(block=True, reason='traced block'" in line
        for line in lines
    )
