"""An untrusted directory runs nothing, whatever omp command or run mode starts there
(issue 24, "also confirm"): every way a project could carry code that omp might load
or start (discovered and listed extensions, MCP servers in each config file omp reads,
plugins to sync, modules named like what omp imports, git hooks and fsmonitor) writes a
marker, and no marker may appear after every subcommand and mode has run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_project import hostile_project, ran


@pytest.fixture
def hostile(omp_cli) -> Path:
    markers = hostile_project(omp_cli.cwd, omp_cli.root / "markers")
    omp_cli.env["OMP_OFFLINE"] = "1"  # `plugin sync` must not reach an index either
    return markers


def _acp_frames(cwd: Path) -> str:
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "session/new",
            "params": {"cwd": str(cwd), "mcpServers": []},
        },
    ]
    return "".join(json.dumps(f) + "\n" for f in frames)


def _tasks(path: Path, *tasks: dict) -> str:
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    return str(path)


def test_no_command_or_mode_runs_anything_from_an_untrusted_directory(omp_cli, hostile):
    script = str(omp_cli.script([{"text": "ok"}, {"text": "ok"}, {"text": "ok"}]))
    reader = omp_cli.script(
        [
            {"tool_calls": [{"name": "read", "arguments": {"path": "tools/listed.py"}}]},
            {"text": "read it"},
        ]
    )
    writer = omp_cli.script(
        [
            {"tool_calls": [{"name": "write", "arguments": {"path": "n.txt", "content": "n"}}]},
            {"text": "wrote"},
        ]
    )
    in_cwd = {"id": "t", "prompt": "x", "cwd": str(omp_cli.cwd), "flags": {"script": script}}
    in_worktree = {
        "id": "r",
        "prompt": "x",
        "repo": str(omp_cli.cwd),
        "settings": {"tools": {"approvalMode": "yolo"}},
        "flags": {"script": str(writer)},
    }
    root = omp_cli.root
    runs: list[tuple[list[str], str | None, bool]] = [
        (["--help"], None, True),
        (["--version"], None, True),
        (["plugins"], None, True),
        (["models"], None, True),
        (["--list-models"], None, True),
        (["config", "list"], None, True),
        (["config", "get", "extensions"], None, True),
        (["sessions"], None, True),
        (["mcp", "list"], None, True),
        (["mcp", "test", "evil0"], None, False),  # no such server: not loaded
        (["plugin", "list"], None, True),
        (["plugin", "doctor"], None, True),
        (["plugin", "sync"], None, False),  # refused: not trusted
        (["recover"], None, True),
        (["-p", "hi", "--script", str(reader)], None, True),
        (["--mode", "json", "-p", "hi", "--script", script], None, True),
        (
            ["--mode", "rpc", "--script", script],
            '{"id":"1","type":"prompt","message":"hi"}\n',
            True,
        ),
        (["acp", "--script", script], _acp_frames(omp_cli.cwd), True),
        (["batch", _tasks(root / "t.jsonl", in_cwd), "--out", str(root / "o1")], None, True),
        (["batch", _tasks(root / "r.jsonl", in_worktree), "--out", str(root / "o2")], None, True),
        (["--continue", "-p", "again", "--script", script], None, True),
        ([], "piped prompt\n", True),
        (["--export", "SESSION", str(root / "export.html")], None, True),
    ]
    for args, stdin, succeeds in runs:
        if "SESSION" in args:
            args[args.index("SESSION")] = str(omp_cli.session_files()[0])
        env = {"OMP_SCRIPT": script} if not args else None
        proc = omp_cli(*args, input=stdin, env=env, timeout=90)
        assert ((proc.returncode == 0), ran(hostile)) == (succeeds, []), (args, proc.stderr)
        assert "Traceback" not in proc.stderr, (args, proc.stderr)
    assert (root / "o2" / "r").is_dir()  # the worktree task ran (and git with it)
    assert not (omp_cli.cwd / "stolen").exists()
