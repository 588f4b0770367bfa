"""End to end: ``omp -p`` and ``--mode json`` output, and bad input on the command line."""

from __future__ import annotations

READ_THEN_ANSWER = [
    {
        "text": "Let me read it.",
        "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}],
    },
    {
        "choose": [
            {"when": "pineapple", "text": "FINAL: the notes mention pineapple"},
            {"text": "FINAL: the notes did not reach me"},
        ]
    },
]


# -- print mode -------------------------------------------------------------------------


def test_print_mode_prints_only_the_final_answer(omp_cli):
    (omp_cli.cwd / "notes.txt").write_text("buy a pineapple\n", encoding="utf-8")
    script = omp_cli.script(READ_THEN_ANSWER)

    proc = omp_cli("-p", "what do my notes say?", "--script", script)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "FINAL: the notes mention pineapple\n"
    assert "Traceback" not in proc.stderr


def test_demo_without_script_says_it_replays_a_recording(omp_cli):
    (omp_cli.cwd / "README.md").write_text("# Demo project\n", encoding="utf-8")

    proc = omp_cli("-p", "what is this project?")

    assert proc.returncode == 0, proc.stderr
    assert "replaying the recorded script" in proc.stderr
    assert "demo.jsonl" in proc.stderr
    assert proc.stdout.strip(), "the demo printed no answer"
    assert "README.md" in proc.stdout


def test_script_error_step_fails_the_run(omp_cli):
    script = omp_cli.script([{"error": "the provider exploded"}])

    proc = omp_cli("-p", "hi", "--script", script)

    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "the provider exploded" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_piped_stdin_without_p_runs_once_and_prints(omp_cli):
    script = omp_cli.script(
        [
            {
                "choose": [
                    {"when": "question from the pipe", "text": "answered the pipe"},
                    {"text": "the piped prompt was lost"},
                ]
            }
        ]
    )

    proc = omp_cli("--script", script, input="a question from the pipe\n")

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "answered the pipe\n"


def test_p_without_any_prompt_is_a_clear_error(omp_cli):
    script = omp_cli.script([{"text": "never"}])

    proc = omp_cli("-p", "--script", script)

    # One line: not preceded by notices of a session that should never have started.
    line = omp_cli.assert_one_line_error(proc)
    assert "no prompt given" in line
    assert omp_cli.all_session_files() == []


def test_help_lists_builtin_and_plugin_flags(omp_cli):
    proc = omp_cli("--help")

    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for flag in ("--print", "--mode", "--model", "--session", "--continue", "--extension"):
        assert flag in out
    script_line = next(line for line in out.splitlines() if "--script" in line)
    assert "[scripted]" in script_line
    assert "plugins" in out  # the subcommand


def test_version(omp_cli):
    proc = omp_cli("--version")

    assert proc.returncode == 0
    assert proc.stdout.startswith("omp ")
    assert proc.stdout.split()[1][0].isdigit()


# -- json mode --------------------------------------------------------------------------


def test_json_mode_prints_header_then_events_in_order(omp_cli):
    (omp_cli.cwd / "notes.txt").write_text("buy a pineapple\n", encoding="utf-8")
    script = omp_cli.script(READ_THEN_ANSWER)

    proc = omp_cli("--mode", "json", "--script", script, "what do my notes say?")

    assert proc.returncode == 0, proc.stderr
    lines = omp_cli.json_lines(proc.stdout)
    header = lines[0]
    assert header["type"] == "session"
    assert header["version"] == 3
    assert header["cwd"] == str(omp_cli.cwd.resolve())
    events = lines[1:]
    assert all(isinstance(e.get("type"), str) for e in events)
    types = [e["type"] for e in events]
    for kind in (
        "agent_start",
        "turn_start",
        "message_start",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_end",
        "turn_end",
        "agent_end",
    ):
        assert kind in types, f"{kind} missing from {types}"
    assert types[0] == "agent_start"
    assert types[-1] == "agent_end"
    first = {kind: types.index(kind) for kind in set(types)}
    assert first["turn_start"] < first["message_start"] < first["message_update"]
    assert first["message_update"] < first["tool_execution_start"]
    assert first["tool_execution_start"] < first["tool_execution_end"] < first["turn_end"]
    assert types.count("turn_start") == types.count("turn_end") == 2

    end = next(e for e in events if e["type"] == "tool_execution_end")
    assert "pineapple" in end["result"]["content"][0]["text"]
    finals = [
        e["message"]
        for e in events
        if e["type"] == "message_end" and e["message"]["role"] == "assistant"
    ]
    assert finals[-1]["content"][-1]["text"] == "FINAL: the notes mention pineapple"


# -- bad input: one line on stderr, no traceback, non-zero exit ----------------------------


def test_unknown_flag(omp_cli):
    line = omp_cli.assert_one_line_error(omp_cli("--bogus", "-p", "hi"))
    assert "unknown flag" in line
    assert "--bogus" in line


def test_unknown_model_lists_what_is_available(omp_cli):
    line = omp_cli.assert_one_line_error(omp_cli("--model", "scripted/dmeo", "-p", "hi"))
    assert "scripted/dmeo" in line
    assert "closest matches" in line and "scripted/demo" in line


def test_model_scripted_demo_works(omp_cli):
    script = omp_cli.script([{"text": "demo model here"}])

    proc = omp_cli("--model", "scripted/demo", "--script", script, "-p", "hi")

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "demo model here\n"


def test_malformed_script_names_file_and_line(omp_cli):
    script = omp_cli.root / "broken.jsonl"
    script.write_text('{"text": "one"}\n{"text": "two"}\n{"text": oops}\n', encoding="utf-8")

    line = omp_cli.assert_one_line_error(omp_cli("-p", "hi", "--script", script))

    assert f"{script}:3" in line


def test_script_step_with_unknown_key_names_file_and_line(omp_cli):
    script = omp_cli.root / "odd.jsonl"
    script.write_text('{"text": "one"}\n{"txt": "two"}\n', encoding="utf-8")

    line = omp_cli.assert_one_line_error(omp_cli("-p", "hi", "--script", script))

    assert f"{script}:2" in line
    assert "txt" in line


def test_session_file_without_header(omp_cli):
    bogus = omp_cli.root / "not-a-session.jsonl"
    bogus.write_text('{"hello": "world"}\n', encoding="utf-8")

    line = omp_cli.assert_one_line_error(omp_cli("--session", bogus, "-p", "hi"))

    assert str(bogus) in line
    assert bogus.read_text(encoding="utf-8") == '{"hello": "world"}\n'


def test_session_that_is_a_directory(omp_cli):
    folder = omp_cli.root / "a-directory.jsonl"
    folder.mkdir()

    line = omp_cli.assert_one_line_error(omp_cli("--session", folder, "-p", "hi"))

    assert str(folder) in line


def test_cwd_that_does_not_exist(omp_cli):
    line = omp_cli.assert_one_line_error(omp_cli("--cwd", "/nonexistent/omp-e2e", "-p", "hi"))
    assert "/nonexistent/omp-e2e" in line


def test_unknown_tool_lists_valid_tools(omp_cli):
    line = omp_cli.assert_one_line_error(omp_cli("--tools", "nosuchtool", "-p", "hi"))
    assert "nosuchtool" in line
    assert "read" in line


def test_unknown_thinking_level(omp_cli):
    line = omp_cli.assert_one_line_error(omp_cli("--thinking", "bogus", "-p", "hi"))
    assert "bogus" in line
    assert "high" in line


def test_conflicting_session_flags(omp_cli):
    line = omp_cli.assert_one_line_error(omp_cli("--continue", "--no-session", "-p", "hi"))
    assert "--continue" in line
