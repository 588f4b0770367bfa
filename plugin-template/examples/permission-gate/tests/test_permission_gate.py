"""The gate, tested with omp's kit: ``omp_harness`` needs no import (a pytest plugin of
omp-kernel). The scripted provider plays the model; the real bash tool runs."""

from __future__ import annotations

from omp_permission_gate import plugin


def rm_rf_then_done() -> list[dict]:
    call = {"name": "bash", "arguments": {"command": "rm -rf build"}}
    return [{"tool_calls": [call]}, {"text": "done"}]


def test_asks_and_runs_when_the_user_allows(omp_harness):
    (omp_harness.cwd / "build").mkdir()
    session = omp_harness.session([plugin], script=rm_rf_then_done(), ui_answers=[True])
    events = omp_harness.run(session, "clean up")
    assert session.ui.requests == [("confirm", "Allow rm -rf?")]
    assert not events.of("tool_execution_end")[0].is_error
    assert not (omp_harness.cwd / "build").exists()


def test_blocks_when_the_user_says_no(omp_harness):
    (omp_harness.cwd / "build").mkdir()
    session = omp_harness.session([plugin], script=rm_rf_then_done(), ui_answers=[False])
    end = omp_harness.run(session, "clean up").of("tool_execution_end")[0]
    assert end.is_error and "did not allow" in end.result["content"][0].text
    assert (omp_harness.cwd / "build").is_dir()


def test_blocks_without_a_ui(omp_harness):
    (omp_harness.cwd / "build").mkdir()
    session = omp_harness.session([plugin], script=rm_rf_then_done())
    end = omp_harness.run(session, "clean up").of("tool_execution_end")[0]
    assert end.is_error and "needs a person" in end.result["content"][0].text
    assert (omp_harness.cwd / "build").is_dir()


def test_other_commands_pass_without_a_question(omp_harness):
    script = [{"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]}]
    session = omp_harness.session([plugin], script=[*script, {"text": "ok"}], ui_answers=[])
    events = omp_harness.run(session, "say hi")
    assert session.ui.requests == []
    assert "hi" in events.of("tool_execution_end")[0].result["content"][0].text


def test_spellings_of_rm_rf() -> None:
    for command in (
        "rm -rf x",
        "rm -fr x",
        "rm -r -f x",
        "sudo rm -Rf /",
        "rm --recursive --force x",
    ):
        assert plugin.is_dangerous(command), command
    for command in ("rm x", "rm -r x", "echo rm -rf", "grep -rf pattern"):
        assert plugin.is_dangerous(command) == ("rm -rf" in command), command
