"""The interactive mode in an untrusted directory runs none of its code: not when the
user says no to trusting it, not on a prompt, and not after /reload starts omp again
(issue 24, "also confirm"; the other commands and modes are in
tests/e2e/test_cli_untrusted_runs_nothing.py)."""

from __future__ import annotations

from hostile_project import hostile_project, ran
from tui_script import answer


def test_interactive_mode_and_reload_run_nothing_from_an_untrusted_directory(terminal, omp_cli):
    markers = hostile_project(omp_cli.cwd, omp_cli.root / "markers")
    script = omp_cli.script([answer("first answer"), answer("second answer")])

    terminal.start("--script", script)
    terminal.wait_for("[y/N]", 15)
    terminal.submit("n")
    terminal.ready()
    terminal.submit("hello")
    terminal.wait_for("first answer", 15)
    terminal.run_command("/reload")
    terminal.wait_for(lambda s: s.count("[y/N]") == 2, 20)  # omp starts again and asks
    terminal.submit("n")
    terminal.wait_for(lambda s: s.count("first answer") >= 2, 20)
    terminal.ready()
    terminal.submit("again")
    terminal.wait_for("second answer", 15)
    terminal.run_command("/quit")
    terminal.wait_for("[exit 0]", 15)

    assert ran(markers) == []
