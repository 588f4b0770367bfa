"""A plugin hook that fails on every turn is reported to the user once, then counted at
the end of the run; the event streams still carry every ``extension_error``
(issue 24, item 11)."""

from __future__ import annotations

FAILING_TURN_END = """
import omp

@omp.hookimpl
def omp_turn_end(event):
    raise RuntimeError("turn_end is broken")

@omp.hookimpl
def omp_agent_end(event):
    raise ValueError("agent_end is broken too")
"""

FIRST = "omp: plugin ext:failing failed in turn_end: RuntimeError: turn_end is broken"


def _ten_turns(omp_cli) -> str:
    (omp_cli.cwd / "notes.txt").write_text("hello\n")
    read = {"name": "read", "arguments": {"path": "notes.txt"}}
    return str(omp_cli.script([*[{"tool_calls": [read]}] * 9, {"text": "done"}]))


def test_print_mode_reports_a_failing_hook_once_then_counts_it(omp_cli):
    ext = omp_cli.extension(FAILING_TURN_END, "failing.py")
    proc = omp_cli("-p", "go", "--no-session", "-e", ext, "--script", _ten_turns(omp_cli))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"
    reports = [line for line in omp_cli.stderr_lines(proc) if "ext:failing" in line]
    assert reports == [
        FIRST,
        "omp: plugin ext:failing failed in agent_end: ValueError: agent_end is broken too",
        "omp: warning: plugin ext:failing failed in turn_end 9 more times",
    ], proc.stderr


def test_json_mode_still_carries_every_extension_error(omp_cli):
    ext = omp_cli.extension(FAILING_TURN_END, "failing.py")
    proc = omp_cli(
        "--mode", "json", "--no-session", "-e", ext, "--script", _ten_turns(omp_cli), "go"
    )
    assert proc.returncode == 0, proc.stderr
    errors = [e for e in omp_cli.json_lines(proc.stdout) if e["type"] == "extension_error"]
    turn_end = [e for e in errors if e["event"] == "turn_end"]
    assert len(turn_end) == 10
    assert turn_end[-1] == {
        "type": "extension_error",
        "extensionPath": str(ext),
        "event": "turn_end",
        "error": "RuntimeError: turn_end is broken",
    }


FAILING_COMMAND = """
import omp
from omp import Command

@omp.hookimpl
def omp_register_commands(api):
    def boom(args, ctx):
        raise RuntimeError("the command is broken")

    return [Command("boom", "always fails", boom)]
"""


def test_a_failing_slash_command_is_one_line_naming_plugin_and_command(omp_cli):
    ext = omp_cli.extension(FAILING_COMMAND, "failing.py")
    script = str(omp_cli.script([{"text": "never asked"}]))
    proc = omp_cli("-p", "/boom", "--no-session", "-e", ext, "--script", script)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = [line for line in omp_cli.stderr_lines(proc) if "replaying the script" not in line]
    assert lines == [
        "omp: plugin ext:failing failed in command /boom: RuntimeError: the command is broken"
    ], proc.stderr
