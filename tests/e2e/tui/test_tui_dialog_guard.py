"""A dialog that pops up while the user is typing is not answered by that typing: keys
arriving within ``interactive.dialogGuardMs`` (400 ms by default) of a dialog opening are
kept for the editor, not taken as the answer; while a tool approval waits, the spinner
says so."""

from __future__ import annotations

import json
import time

from tui_script import bash_call

GUARD_MS = 1500
"""Longer than the default, so a loaded machine still types inside the window."""


def approval_session(terminal, omp_cli, guard_ms: int | None = GUARD_MS):
    assert omp_cli("config", "set", "tools.approval.bash", "prompt").returncode == 0
    if guard_ms is not None:
        settings = omp_cli.agent_dir / "settings.json"
        data = json.loads(settings.read_text()) if settings.is_file() else {}
        data["interactive"] = {"dialogGuardMs": guard_ms}
        settings.write_text(json.dumps(data))
    script = omp_cli.script(
        [
            bash_call("echo ran-$((40+2))"),
            {"repeat": True, "text": "finished"},
        ]
    )
    terminal.start("--script", script).ready()
    terminal.submit("clean up")


def test_typing_into_a_fresh_approval_dialog_does_not_answer_it(terminal, omp_cli):
    approval_session(terminal, omp_cli)
    terminal.wait_for("Allow bash?")
    opened = time.monotonic()
    terminal.submit("yes I mean it")
    assert time.monotonic() - opened < GUARD_MS / 1000, "typed too late to test the guard"
    time.sleep(0.3)
    screen = terminal.screen()
    assert "Allow bash?" in screen and "ran-42" not in screen, screen
    assert "Waiting for approval" in screen, screen
    time.sleep(GUARD_MS / 1000)
    terminal.send("n")
    screen = terminal.wait_for("finished")
    after = screen.split("clean up")[-1]
    assert "the user declined" in " ".join(after.split()) and "ran-42" not in after
    kept = terminal.wait_for(lambda s: "> yes I mean it" in s)
    assert "Allow bash?" not in kept.split("finished")[-1]


def test_after_the_default_window_y_answers_at_once(terminal, omp_cli):
    approval_session(terminal, omp_cli, guard_ms=None)
    terminal.wait_for("Allow bash?")
    time.sleep(0.6)
    terminal.send("y")
    screen = terminal.wait_for("finished")
    assert "ran-42" in screen.split("clean up")[-1]
