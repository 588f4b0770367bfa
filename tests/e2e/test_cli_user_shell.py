"""``!cmd`` from the command line: the output reaches the model with the next prompt."""

from __future__ import annotations

ANSWER = [
    {
        "choose": [
            {"when": "hi-from-shell", "text": "it printed hi-from-shell"},
            {"text": "I saw no output"},
        ]
    }
]


def test_bang_output_reaches_the_model_in_print_mode(omp_cli):
    script = omp_cli.script(ANSWER)
    proc = omp_cli("-p", "--script", script, "!echo hi-from-shell", "what did it print?")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "it printed hi-from-shell\n"
    assert "Traceback" not in proc.stderr


def test_double_bang_output_stays_out_of_the_context(omp_cli):
    script = omp_cli.script(ANSWER)
    proc = omp_cli("-p", "--script", script, "!!echo hi-from-shell", "what did it print?")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "I saw no output\n"


def test_json_mode_shows_the_execution_and_the_session_keeps_it(omp_cli):
    script = omp_cli.script(ANSWER)
    proc = omp_cli("--mode", "json", "--script", script, "!echo hi-from-shell", "and?")
    assert proc.returncode == 0, proc.stderr
    events = omp_cli.json_lines(proc.stdout)
    ends = [e["message"] for e in events if e.get("type") == "message_end"]
    run = next(m for m in ends if m["role"] == "bashExecution")
    assert run["command"] == "echo hi-from-shell" and run["exitCode"] == 0
    [session] = omp_cli.session_files()
    stored = omp_cli.messages_of(omp_cli.read_session(session), "bashExecution")
    assert stored[0]["output"] == "hi-from-shell\n"


def test_without_the_user_shell_plugin_a_bang_command_is_neither_run_nor_sent(omp_cli):
    script = omp_cli.script(ANSWER)
    env = {"OMP_DISABLED_PLUGINS": "user_shell"}
    proc = omp_cli("-p", "--script", script, "!touch never-created", env=env)
    assert not (omp_cli.cwd / "never-created").exists()
    assert proc.stdout == ""  # the model was never asked
    assert "no user shell plugin is installed: the bash command was not run" in proc.stderr
    assert "Traceback" not in proc.stderr
