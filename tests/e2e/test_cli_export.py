"""``omp --export SESSION [OUT]`` as in pi and omp (issue 24, item 12): the argument names
the session to export (a file or an id prefix), the output defaults to
``omp-session-<name>.html`` in the current directory, and nothing existing is overwritten
without ``--force`` (a ``.jsonl`` never)."""

from __future__ import annotations


def _two_sessions(omp_cli):
    script = omp_cli.script([{"text": "kiwi answer"}])
    assert omp_cli("-p", "about kiwis", "--script", script).returncode == 0
    script = omp_cli.script([{"text": "mango answer"}])
    assert omp_cli("-p", "about mangos", "--script", script).returncode == 0
    older, newer = sorted(omp_cli.session_files())
    return older, newer


def test_export_names_the_session_and_writes_next_to_the_user(omp_cli):
    older, newer = _two_sessions(omp_cli)
    before = older.read_bytes(), newer.read_bytes()
    proc = omp_cli("--export", older)
    assert proc.returncode == 0, proc.stderr
    name = f"omp-session-{older.stem}.html"
    assert proc.stdout == f"Exported to: {name}\n"
    page = (omp_cli.cwd / name).read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "kiwi answer" in page and "mango" not in page
    assert (older.read_bytes(), newer.read_bytes()) == before


def test_export_takes_the_output_as_second_argument(omp_cli):
    older, _ = _two_sessions(omp_cli)
    proc = omp_cli("--export", older, "notes.md")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Exported to: notes.md\n"
    text = (omp_cli.cwd / "notes.md").read_text(encoding="utf-8")
    assert "about kiwis" in text and "mango" not in text


def test_export_takes_a_session_id_prefix(omp_cli):
    _, newer = _two_sessions(omp_cli)
    session_id = omp_cli.read_session(newer)[0]["id"]
    proc = omp_cli("--export", session_id[:8], "out.html")
    assert proc.returncode == 0, proc.stderr
    assert "mango answer" in (omp_cli.cwd / "out.html").read_text(encoding="utf-8")


def test_an_existing_output_needs_force(omp_cli):
    older, _ = _two_sessions(omp_cli)
    out = omp_cli.cwd / "out.html"
    out.write_text("keep me", encoding="utf-8")
    proc = omp_cli("--export", older, "out.html")
    line = omp_cli.assert_one_line_error(proc)
    assert proc.returncode == 2 and "--force" in line
    assert out.read_text(encoding="utf-8") == "keep me"
    forced = omp_cli("--export", older, "out.html", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "kiwi answer" in out.read_text(encoding="utf-8")


def test_an_export_never_lands_on_a_jsonl(omp_cli):
    older, newer = _two_sessions(omp_cli)
    before = newer.read_bytes()
    for target in (newer, omp_cli.cwd / "new.jsonl", older):
        proc = omp_cli("--export", older, target, "--force")
        line = omp_cli.assert_one_line_error(proc)
        assert proc.returncode == 2 and ".jsonl" in line, line
    assert newer.read_bytes() == before
    assert not (omp_cli.cwd / "new.jsonl").exists()


def test_the_old_spelling_says_what_export_takes(omp_cli):
    older, _ = _two_sessions(omp_cli)
    session_id = omp_cli.read_session(older)[0]["id"]
    proc = omp_cli("--export", "out.html", "--resume", session_id[:8])
    line = omp_cli.assert_one_line_error(proc)
    assert proc.returncode == 2 and "--export SESSION" in line
    assert not (omp_cli.cwd / "out.html").exists()


def test_more_than_one_output_is_a_usage_error(omp_cli):
    older, _ = _two_sessions(omp_cli)
    proc = omp_cli("--export", older, "a.html", "b.html")
    omp_cli.assert_one_line_error(proc)
    assert proc.returncode == 2
    assert not (omp_cli.cwd / "a.html").exists()


def test_a_missing_session_is_a_usage_error(omp_cli):
    proc = omp_cli("--export", "no-such-session.jsonl")
    line = omp_cli.assert_one_line_error(proc)
    assert proc.returncode == 2 and "no-such-session.jsonl" in line


def test_slash_export_keeps_an_existing_file_without_force(omp_cli):
    script = omp_cli.script([{"text": "kiwi answer"}])
    assert omp_cli("-p", "about kiwis", "--script", script).returncode == 0
    out = omp_cli.cwd / "out.html"
    out.write_text("keep me", encoding="utf-8")
    kept = omp_cli("-c", "-p", "/export out.html", "--script", script)
    assert kept.returncode == 2 and "--force" in kept.stderr
    assert out.read_text(encoding="utf-8") == "keep me"
    forced = omp_cli("-c", "-p", "/export out.html --force", "--script", script)
    assert forced.returncode == 0, forced.stderr
    assert "kiwi answer" in out.read_text(encoding="utf-8")
