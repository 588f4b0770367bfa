"""Sequential thinking through the real CLI (issue 3's acceptance, print and json mode)."""

from __future__ import annotations

WRITE_TOOL = """
import omp


@omp.hookimpl
def omp_register_tools(api):
    from pathlib import Path

    from omp import Tool
    from pydantic import BaseModel

    class Params(BaseModel):
        path: str
        content: str

    def write(call_id, params, signal, on_update, ctx):
        target = Path(ctx.cwd) / params.path
        target.write_text(params.content)
        return f"wrote {len(params.content)} bytes to {params.path}"

    return [Tool(name="write", parameters=Params, execute=write, description="Write a file")]
"""

CALCULATOR = "export const add = (a: number, b: number) => a + b;\n"


def think(n: int, total: int = 3) -> dict:
    args = {
        "thought": f"plan step {n}",
        "thoughtNumber": n,
        "totalThoughts": total,
        "nextThoughtNeeded": n < total,
    }
    return {"tool_calls": [{"name": "sequential_thinking", "arguments": args}]}


def call(name: str, **arguments) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def tool_ends(lines):
    return [e for e in lines if e["type"] == "tool_execution_end"]


def test_help_lists_seq_thoughts(omp_cli):
    proc = omp_cli("--help")
    assert proc.returncode == 0
    assert "--seq-thoughts N" in proc.stdout


def test_three_thoughts_happen_before_the_first_other_tool(omp_cli):
    ext = omp_cli.extension(WRITE_TOOL, "write_tool.py")
    script = omp_cli.script(
        [
            think(1),
            think(2),
            think(3),
            call("write", path="calc.ts", content=CALCULATOR),
            {"text": "Wrote calc.ts"},
        ]
    )
    proc = omp_cli(
        "--mode",
        "json",
        "--seq-thoughts",
        "3",
        "-e",
        ext,
        "--script",
        script,
        "Generate a simple calculator in typescript.",
    )
    assert proc.returncode == 0, proc.stderr
    ends = tool_ends(omp_cli.json_lines(proc.stdout))
    assert [e["toolName"] for e in ends] == ["sequential_thinking"] * 3 + ["write"]
    assert not any(e["isError"] for e in ends)
    assert [e["result"]["details"]["thoughtNumber"] for e in ends[:3]] == [1, 2, 3]
    assert (omp_cli.cwd / "calc.ts").read_text() == CALCULATOR


def test_print_mode_verbose_shows_each_thought(omp_cli):
    script = omp_cli.script([think(1, 2), think(2, 2), {"text": "done"}])
    proc = omp_cli("-p", "--verbose", "--seq-thoughts", "2", "--script", script, "go")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"
    lines = omp_cli.stderr_lines(proc)
    assert "thought 1/2: plan step 1" in lines and "thought 2/2: plan step 2" in lines


def test_a_blocked_call_is_retried_after_thinking(omp_cli):
    (omp_cli.cwd / "notes.txt").write_text("kiwi\n")
    reason = (
        "Sequential thinking is required. You have recorded 0 thoughts, but need at "
        "least 3 thoughts before calling other tools."
    )
    script = omp_cli.script(
        [
            call("read", path="notes.txt"),
            {"choose": [{"when": reason, **think(1)}, {"text": "no block reason was sent"}]},
            think(2),
            think(3),
            call("read", path="notes.txt"),
            {"text": "notes say kiwi"},
        ]
    )
    proc = omp_cli("--mode", "json", "--seq-thoughts", "3", "--script", script, "read notes")
    assert proc.returncode == 0, proc.stderr
    ends = tool_ends(omp_cli.json_lines(proc.stdout))
    assert [(e["toolName"], e["isError"]) for e in ends] == [
        ("read", True),
        ("sequential_thinking", False),
        ("sequential_thinking", False),
        ("sequential_thinking", False),
        ("read", False),
    ]
    assert ends[0]["result"]["content"][0]["text"] == reason
    assert "kiwi" in ends[-1]["result"]["content"][0]["text"]


def test_a_model_that_never_complies_is_stopped_with_a_message(omp_cli):
    script = omp_cli.script([{"text": f"just text {n}"} for n in range(8)])
    proc = omp_cli("-p", "--seq-thoughts", "2", "--script", script, "calculator please")
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert (
        "omp: error: Stopped: the model did not comply with sequential thinking. It was "
        "reminded 3 times"
    ) in proc.stderr
    session = omp_cli.read_session(omp_cli.all_session_files()[0])
    nudges = [omp_cli.text_of(m) for m in omp_cli.messages_of(session, "user")][1:]
    assert (
        nudges
        == [
            "You must use the sequential_thinking tool. You have currently recorded 0 "
            "thoughts, but need at least 2 thoughts."
        ]
        * 3
    )


def test_seqthink_command_path_and_off(omp_cli):
    (omp_cli.cwd / "notes.txt").write_text("kiwi\n")
    instructed = "at least 5 times before calling other tools"
    script = omp_cli.script(
        [
            {
                "choose": [
                    {"when": instructed, **call("read", path="notes.txt")},
                    {"text": "no instruction arrived"},
                ]
            },
            *(think(n, 5) for n in range(1, 6)),
            {"text": "thought five times"},
            {
                "choose": [
                    {"when": instructed, "text": "still instructed"},
                    {"unless": instructed, **call("read", path="notes.txt")},
                ]
            },
            {"text": "read it freely"},
        ]
    )
    proc = omp_cli(
        "--mode",
        "json",
        "--script",
        script,
        "/seqthink 5",
        "Run ls in terminal.",
        "/seqthink off",
        "read the notes",
    )
    lines = omp_cli.json_lines(proc.stdout)
    ends = tool_ends(lines)
    assert (
        ends[0]["isError"] and "need at least 5 thoughts" in ends[0]["result"]["content"][0]["text"]
    )
    assert [e["toolName"] for e in ends[1:6]] == ["sequential_thinking"] * 5
    assert ends[6]["toolName"] == "read" and not ends[6]["isError"]
    assert proc.returncode == 0, proc.stderr
    notices = [e["message"] for e in lines if e["type"] == "notice"]
    assert "sequential thinking: at least 5 thoughts per prompt" in notices
    assert "sequential thinking: off" in notices


def test_progress_of_the_prompt_in_flight_survives_a_resume(omp_cli):
    first = omp_cli.script([think(1), think(2), {"error": "connection reset by peer"}])
    proc = omp_cli("-p", "--seq-thoughts", "3", "--script", first, "build a calculator")
    assert proc.returncode == 1 and "connection reset by peer" in proc.stderr
    again = omp_cli.script([{"text": "unused"}])
    status = omp_cli("--continue", "-p", "--seq-thoughts", "3", "--script", again, "/seqthink")
    assert status.returncode == 0, status.stderr
    assert (
        "omp: sequential thinking: at least 3 thoughts per prompt; 2 recorded for the "
        "current prompt"
    ) in status.stderr
