"""``!cmd`` / ``!!cmd`` and ``$code`` / ``$$code`` typed as a prompt: the command runs,
its output joins the conversation (or only the display, with the doubled prefix), and
user_bash / user_python handlers see it first and may supply the result."""

from __future__ import annotations

import omp
from doubles import texts


def _executions(log, role):
    return [e.message for e in log.of("message_end") if e.message.role == role]


def test_bang_runs_a_shell_command_and_the_model_sees_its_output(make_session, omp_harness):
    seen: list = []

    class Watch:
        @omp.hookimpl
        def omp_user_bash(self, event):
            seen.append((event.command, event.exclude_from_context, event.cwd))

    session, provider = make_session([{"text": "it printed hi"}], plugins=[Watch()])
    log = omp_harness.run(session, "!echo hi; echo oops >&2; exit 3", "what did it print?")
    assert seen == [("echo hi; echo oops >&2; exit 3", False, str(omp_harness.cwd))]
    [run] = _executions(log, "bashExecution")
    assert run.output == "hi\noops\n" and run.exit_code == 3 and not run.exclude_from_context
    assert len(provider.requests) == 1  # the command itself does not start the agent
    sent = texts(provider.requests[0])
    assert "echo hi" in sent[0] and "hi\noops" in sent[0] and "code 3" in sent[0]
    entry = next(e for e in session.session_file.entries if e["type"] == "message")
    assert entry["message"]["role"] == "bashExecution"
    assert entry["message"]["exitCode"] == 3


def test_double_bang_runs_but_keeps_the_output_out_of_the_context(make_session, omp_harness):
    session, provider = make_session([{"text": "ok"}])
    log = omp_harness.run(session, "!!echo secret-output", "hello")
    [run] = _executions(log, "bashExecution")
    assert run.output == "secret-output\n" and run.exclude_from_context
    assert not any("secret-output" in t for t in texts(provider.requests[0]))


def test_a_user_bash_handler_can_supply_the_result(make_session, omp_harness):
    class Remote:
        @omp.hookimpl
        def omp_user_bash(self, event):
            return {"result": {"stdout": f"remote: {event.command}", "stderr": "", "code": 0}}

    session, _ = make_session([], plugins=[Remote()])
    log = omp_harness.run(session, "!touch never-created")
    [run] = _executions(log, "bashExecution")
    assert run.output == "remote: touch never-created" and run.exit_code == 0
    assert not (omp_harness.cwd / "never-created").exists()


def test_dollar_runs_python_and_double_dollar_keeps_it_out(make_session, omp_harness):
    seen: list = []

    class Watch:
        @omp.hookimpl
        def omp_user_python(self, event):
            seen.append((event.code, event.exclude_from_context))

    session, provider = make_session([{"text": "ok"}], plugins=[Watch()])
    log = omp_harness.run(session, "$print(6 * 7)", "$$print('hidden')", "and?")
    assert seen == [("print(6 * 7)", False), ("print('hidden')", True)]
    runs = _executions(log, "pythonExecution")
    assert [(r.output, r.exit_code, bool(r.exclude_from_context)) for r in runs] == [
        ("42\n", 0, False),
        ("hidden\n", 0, True),
    ]
    sent = texts(provider.requests[0])
    assert any("print(6 * 7)" in t and "42" in t for t in sent)
    assert not any("hidden" in t for t in sent)


def test_a_user_python_handler_can_supply_the_result(make_session, omp_harness):
    class Kernel:
        @omp.hookimpl
        def omp_user_python(self, event):
            return {"result": {"output": "from my kernel", "exit_code": 0}}

    session, _ = make_session([], plugins=[Kernel()])
    log = omp_harness.run(session, "$1/0")
    [run] = _executions(log, "pythonExecution")
    assert run.output == "from my kernel"


def test_an_empty_command_says_so_and_runs_nothing(make_session, omp_harness):
    session, provider = make_session([])
    log = omp_harness.run(session, "!  ")
    assert _executions(log, "bashExecution") == [] and provider.requests == []
    assert any("nothing to run" in e.message for e in log.of("notice"))


def test_without_a_user_shell_plugin_nothing_runs_and_nothing_reaches_the_model(
    make_session, omp_harness
):
    session, provider = make_session([{"text": "ok"}], builtins=[])
    log = omp_harness.run(session, "!touch never-created", "$$print(1)")
    assert not (omp_harness.cwd / "never-created").exists()
    assert _executions(log, "bashExecution") == _executions(log, "pythonExecution") == []
    assert provider.requests == []
    notices = [e.message for e in log.of("notice")]
    assert [n for n in notices if "no user shell plugin is installed" in n] == [
        "no user shell plugin is installed: the bash command was not run",
        "no user shell plugin is installed: the python command was not run",
    ]


def test_a_command_outlasting_the_hook_time_limit_still_finishes(
    make_session, omp_harness, monkeypatch
):
    monkeypatch.setenv("OMP_SETTINGS", '{"hookTimeoutMs": 100}')
    session, _ = make_session([])
    log = omp_harness.run(session, "!sleep 0.4; echo done")
    [run] = _executions(log, "bashExecution")
    assert run.output == "done\n" and run.exit_code == 0
    assert not log.of("extension_error")
