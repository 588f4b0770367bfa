"""End to end: `omp sessions [SEARCH]`, `omp --export ID FILE` (HTML and Markdown), a pi
session file continued with `--session`, and `/tree ID --summarize`."""

from __future__ import annotations

import json

REPLIES = [
    {"text": "looking", "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
    {"text": "the notes say kiwi <b>"},
    {"text": "second answer"},
]


def _run_two(omp_cli):
    (omp_cli.cwd / "notes.txt").write_text("kiwi\n", encoding="utf-8")
    script = omp_cli.script(REPLIES)
    first = omp_cli("-p", "read my notes", "--script", script)
    assert first.returncode == 0, first.stderr
    second = omp_cli("-p", "an unrelated <question>", "--script", script)
    assert second.returncode == 0, second.stderr
    named = omp_cli("-c", "-p", "/name Kiwi hunt", "--script", script)
    assert named.returncode == 0, named.stderr
    return script


def test_sessions_lists_and_searches(omp_cli):
    _run_two(omp_cli)
    listed = omp_cli("sessions")
    assert listed.returncode == 0, listed.stderr
    rows = listed.stdout.splitlines()
    assert len(rows) == 2
    assert rows[0].endswith("Kiwi hunt")  # the newest, by its name
    assert rows[1].endswith("read my notes") and "4 msgs" in rows[1]
    found = omp_cli("sessions", "kiwi", "--json")
    [row] = [json.loads(line) for line in found.stdout.splitlines()]
    assert row["title"] == "Kiwi hunt" and row["cwd"] == str(omp_cli.cwd)
    assert row["messageCount"] == 4 and row["firstMessage"] == "an unrelated <question>"
    none = omp_cli("sessions", "nothing-like-this")
    assert none.returncode == 0 and none.stdout == "" and "no sessions matching" in none.stderr


def test_export_writes_html_and_markdown(omp_cli):
    _run_two(omp_cli)
    oldest = json.loads(omp_cli("sessions", "--json").stdout.splitlines()[-1])
    page = omp_cli("--export", oldest["id"][:13], "out.html")
    assert page.returncode == 0, page.stderr
    html = (omp_cli.cwd / "out.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "<script" not in html and "http" not in html
    assert "<details><summary>Tool call: read</summary>" in html
    assert "the notes say kiwi &lt;b&gt;" in html
    markdown = omp_cli("sessions", "export", "notes.md")  # the latest session
    assert markdown.returncode == 0, markdown.stderr
    text = (omp_cli.cwd / "notes.md").read_text(encoding="utf-8")
    assert text.startswith("# Kiwi hunt\n") and "## user\n\nan unrelated <question>" in text
    bad = omp_cli("--export", "zzzz", "x.html")
    assert bad.returncode != 0 and "no session matching 'zzzz'" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_a_pi_session_file_continues_here(omp_cli):
    usage = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2}
    usage["cost"] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    reply = {"role": "assistant", "content": [{"type": "text", "text": "Hi!"}], "usage": usage}
    reply |= {"api": "openai-completions", "provider": "openai", "model": "gpt-4o"}
    reply |= {"stopReason": "stop", "timestamp": 2}
    stamp = "2024-12-03T14:00:00.000Z"
    pi = [
        {
            "type": "session",
            "version": 3,
            "id": "pi-1",
            "timestamp": stamp,
            "cwd": str(omp_cli.cwd),
        },
        {"type": "model_change", "id": "m0000001", "parentId": None, "timestamp": stamp}
        | {"provider": "openai", "modelId": "gpt-4o"},
        {"type": "message", "id": "a1b2c3d4", "parentId": "m0000001", "timestamp": stamp}
        | {"message": {"role": "user", "content": "Hello", "timestamp": 1}},
        {"type": "message", "id": "b2c3d4e5", "parentId": "a1b2c3d4", "timestamp": stamp}
        | {"message": reply},
    ]
    path = omp_cli.cwd / "pi.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in pi), encoding="utf-8")
    # step N answers the conversation holding N assistant messages: pi's "Hi!" is one
    script = omp_cli.script([{"text": "fresh"}, {"text": "continued from pi"}])
    proc = omp_cli("--session", str(path), "-p", "and now?", "--script", script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "continued from pi\n"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[:4] == pi  # pi's lines untouched
    assert lines[4]["parentId"] == "b2c3d4e5"  # the first new entry hangs off pi's leaf
    asked = next(e for e in lines[4:] if e["type"] == "message")
    assert asked["message"]["content"] == "and now?"


def test_tree_summarize_leaves_a_summary_of_the_branch_it_left(omp_cli):
    written = "## Goal\nTried approach B\n\n## Next Steps\n1. drop it"
    # step N answers a request holding N assistant messages; the summary request has none
    first_step = {"choose": [{"when": "<conversation>", "text": written}, {"text": "one"}]}
    script = omp_cli.script([first_step, {"text": "two"}])
    path = omp_cli.cwd / "s.jsonl"
    first = omp_cli("--session", str(path), "-p", "first", "try approach B", "--script", script)
    assert first.returncode == 0, first.stderr
    before = path.read_bytes()
    reply = next(
        e["id"]
        for e in map(json.loads, path.read_text().splitlines())
        if e["type"] == "message" and e["message"]["role"] == "assistant"
    )
    moved = omp_cli(
        "--session", str(path), "-p", f"/tree {reply} --summarize the failure", "--script", script
    )
    assert moved.returncode == 0, moved.stderr
    assert (
        f"moved to {reply}" in moved.stderr and "with a summary of the branch left" in moved.stderr
    )
    assert path.read_bytes().startswith(before)  # the branch left is still on disk
    summary = json.loads(path.read_text().splitlines()[-1])
    assert summary["type"] == "branch_summary" and summary["parentId"] == reply
    assert "Tried approach B" in summary["summary"]
    bad = omp_cli("--session", str(path), "-p", "/tree zzzz --summarize", "--script", script)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert (
        bad.stderr.strip().splitlines()[-1]
        == "omp: no entry 'zzzz' in this session (/tree lists them)"
    )
