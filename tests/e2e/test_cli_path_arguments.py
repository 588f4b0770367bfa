"""Every path argument is checked before anything is sent to a model: a bad one is one
line on stderr and a non-zero exit (issue 8, item 15)."""

from __future__ import annotations

import pytest


def _script(omp_cli):
    return omp_cli.script([{"text": "the answer"}])


def test_session_dir_that_is_a_file_fails_before_the_model_answers(omp_cli):
    blocker = omp_cli.cwd / "not-a-dir"
    blocker.write_text("x")
    proc = omp_cli("-p", "hi", "--session-dir", blocker, "--script", _script(omp_cli))
    line = omp_cli.assert_one_line_error(proc)
    assert "--session-dir" in line and "is a file, not a directory" in line


def test_session_dir_below_a_file_fails(omp_cli):
    blocker = omp_cli.cwd / "file"
    blocker.write_text("x")
    proc = omp_cli("-p", "hi", "--session-dir", blocker / "sub", "--script", _script(omp_cli))
    line = omp_cli.assert_one_line_error(proc)
    assert "is a file, not a directory" in line


def test_session_dir_setting_that_is_a_file_fails(omp_cli):
    blocker = omp_cli.root / "sessions-file"
    blocker.write_text("x")
    proc = omp_cli("-p", "hi", "--script", _script(omp_cli), env={"OMP_SESSION_DIR": str(blocker)})
    line = omp_cli.assert_one_line_error(proc)
    assert "sessionDir" in line


def test_session_path_that_is_a_directory_fails(omp_cli):
    proc = omp_cli("-p", "hi", "--session", omp_cli.root, "--script", _script(omp_cli))
    line = omp_cli.assert_one_line_error(proc)
    assert "--session" in line and "is a directory" in line


@pytest.mark.parametrize("kind", ["missing", "plain directory", "not python"])
def test_bad_extension_paths_fail(omp_cli, kind):
    if kind == "missing":
        path = omp_cli.root / "nope.py"
    elif kind == "plain directory":
        path = omp_cli.root / "extdir"
        path.mkdir()
    else:
        path = omp_cli.root / "notes.txt"
        path.write_text("hello")
    proc = omp_cli("-e", path, "-p", "hi", "--script", _script(omp_cli))
    line = omp_cli.assert_one_line_error(proc)
    assert "-e" in line and str(path.name) in line


def test_an_extension_package_directory_loads(omp_cli):
    package = omp_cli.root / "mypack"
    package.mkdir()
    (package / "__init__.py").write_text(
        "import omp\n\n\n@omp.hookimpl\ndef omp_tool_call(event):\n"
        "    return {'block': True, 'reason': 'package guard'}\n"
    )
    script = omp_cli.script(
        [{"tool_calls": [{"name": "read", "arguments": {"path": "x"}}]}, {"text": "ok"}]
    )
    proc = omp_cli("-e", package, "-p", "go", "--script", script)
    assert proc.returncode == 0, proc.stderr
    [session] = omp_cli.session_files()
    results = omp_cli.messages_of(omp_cli.read_session(session), "toolResult")
    assert omp_cli.text_of(results[0]) == "package guard"
