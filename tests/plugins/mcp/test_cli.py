"""``omp mcp ...`` and a whole run through the CLI with the scripted provider."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp_helpers import DEMO, run_omp


def test_add_list_disable_enable_remove(tmp_path: Path) -> None:
    added = run_omp(tmp_path, "mcp", "add", "demo", "--env", "A=1", "--", sys.executable, str(DEMO))
    assert added.returncode == 0, added.stderr
    config_file = tmp_path / "agent" / "mcp.json"
    assert config_file.stat().st_mode & 0o777 == 0o600
    config = json.loads(config_file.read_text())
    assert config["mcpServers"]["demo"] == {
        "command": sys.executable,
        "args": [str(DEMO)],
        "env": {"A": "1"},
    }
    run_omp(tmp_path, "mcp", "add", "web", "--header", "X-Key: k", "https://example.org/mcp")
    listing = json.loads(run_omp(tmp_path, "mcp", "list", "--json").stdout)
    assert [(r["name"], r["transport"], r["enabled"]) for r in listing] == [
        ("demo", "stdio", True),
        ("web", "http", True),
    ]
    assert run_omp(tmp_path, "mcp", "disable", "web").returncode == 0
    assert "web   off" in run_omp(tmp_path, "mcp", "list").stdout
    assert run_omp(tmp_path, "mcp", "enable", "web").returncode == 0
    assert "web   on" in run_omp(tmp_path, "mcp", "list").stdout
    assert run_omp(tmp_path, "mcp", "remove", "web").returncode == 0
    assert "web" not in run_omp(tmp_path, "mcp", "list").stdout


def test_test_lists_tools_with_their_token_cost(tmp_path: Path) -> None:
    run_omp(tmp_path, "mcp", "add", "demo", "--", sys.executable, str(DEMO))
    proc = run_omp(tmp_path, "mcp", "test", "demo")
    assert proc.returncode == 0, proc.stderr
    assert "mcp__demo__shout" in proc.stdout and "tokens" in proc.stdout
    assert "mcp://demo/demo://readme" in proc.stdout
    assert "/mcp__demo__review" in proc.stdout


def test_test_reports_a_server_that_never_starts_with_its_stderr(tmp_path: Path) -> None:
    script = "import sys; sys.stderr.write('cannot open database\\n'); sys.exit(4)"
    run_omp(tmp_path, "mcp", "add", "broken", "--", sys.executable, "-c", script)
    proc = run_omp(tmp_path, "mcp", "test", "broken")
    assert proc.returncode == 1
    assert "broken failed" in proc.stdout and "cannot open database" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


def test_bad_usage_is_one_line_and_non_zero(tmp_path: Path) -> None:
    for args in (["frob"], ["test"], ["remove", "nope"], ["add", "x"], ["test", "nope"]):
        proc = run_omp(tmp_path, "mcp", *args)
        assert proc.returncode != 0, args
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("omp: "), (args, proc.stderr)


def test_a_print_run_calls_an_mcp_tool(tmp_path: Path) -> None:
    run_omp(tmp_path, "mcp", "add", "demo", "--", sys.executable, str(DEMO))
    (tmp_path / "agent" / "settings.json").write_text('{"mcp": {"startupGateMs": 20000}}')
    script = tmp_path / "script.jsonl"
    steps = [
        {"tool_calls": [{"name": "mcp__demo__shout", "arguments": {"text": "quiet"}}]},
        {"choose": [{"when": "QUIET", "text": "the server said QUIET"}, {"text": "no answer"}]},
    ]
    script.write_text("".join(json.dumps(s) + "\n" for s in steps))
    proc = run_omp(tmp_path, "-p", "--script", str(script), "shout quiet")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "the server said QUIET"
