"""Protected paths with the real write and edit tools, the model played by a script."""

from __future__ import annotations

from omp_protected_paths import plugin


def write(path: str, content: str = "x\n") -> dict:
    return {"tool_calls": [{"name": "write", "arguments": {"path": path, "content": content}}]}


def edit(path: str, old: str, new: str) -> dict:
    edits = [{"oldText": old, "newText": new}]
    return {"tool_calls": [{"name": "edit", "arguments": {"path": path, "edits": edits}}]}


def test_writes_to_env_files_are_blocked(omp_harness):
    script = [write(".env", "KEY=stolen\n"), write("config/.env.local"), {"text": "done"}]
    session = omp_harness.session([plugin], script=script)
    ends = omp_harness.run(session, "save the key").of("tool_execution_end")
    assert [e.is_error for e in ends] == [True, True]
    assert "holds secrets" in ends[0].result["content"][0].text
    assert not (omp_harness.cwd / ".env").exists()


def test_edits_inside_git_are_blocked_and_the_file_is_unchanged(omp_harness):
    config = omp_harness.cwd / ".git" / "config"
    config.parent.mkdir()
    config.write_text("[core]\n", encoding="utf-8")
    session = omp_harness.session(
        [plugin], script=[edit(".git/config", "[core]", "[x]"), {"text": "ok"}]
    )
    end = omp_harness.run(session, "fix git").of("tool_execution_end")[0]
    assert end.is_error and "inside .git" in end.result["content"][0].text
    assert config.read_text(encoding="utf-8") == "[core]\n"


def test_other_paths_are_written(omp_harness):
    session = omp_harness.session(
        [plugin], script=[write("src/app.py", "print(1)\n"), {"text": "ok"}]
    )
    end = omp_harness.run(session, "write it").of("tool_execution_end")[0]
    assert not end.is_error
    assert (omp_harness.cwd / "src" / "app.py").read_text(encoding="utf-8") == "print(1)\n"


def test_tricky_spellings() -> None:
    assert plugin.protection("./sub/../.env", "/w")
    assert plugin.protection("/w/.git/hooks/pre-commit", "/w")
    assert plugin.protection("environment.py", "/w") is None
    assert plugin.protection(".envrc", "/w") is None
