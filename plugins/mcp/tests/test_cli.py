"""``omp mcp ...`` and a whole run through the CLI with the scripted provider."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest
from isolation import isolated_env
from mcp_helpers import DEMO, configure, run_omp, stdio_server


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
    # and keeps what it listed, for the next session to offer before the server is up
    (kept,) = (tmp_path / "agent" / "cache" / "mcp-tools").glob("demo-*.json")
    assert '"shout"' in kept.read_text()


def test_test_reports_a_server_that_never_starts_with_its_stderr(tmp_path: Path) -> None:
    script = "import sys; sys.stderr.write('cannot open database\\n'); sys.exit(4)"
    run_omp(tmp_path, "mcp", "add", "broken", "--", sys.executable, "-c", script)
    proc = run_omp(tmp_path, "mcp", "test", "broken")
    assert proc.returncode == 1
    assert "broken failed" in proc.stdout and "cannot open database" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


def test_bad_usage_is_one_line_and_non_zero(tmp_path: Path) -> None:
    cases = (
        ["frob"],
        ["test"],
        ["remove", "nope"],
        ["add", "x"],
        ["test", "nope"],
        ["list", "--bogus"],
        ["add", "", "--", "cmd"],
        ["add", "x y", "--", "cmd"],
        ["add", "web", "ftp://example.org/mcp"],
    )
    for args in cases:
        proc = run_omp(tmp_path, "mcp", *args)
        assert proc.returncode != 0, args
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("omp: "), (args, proc.stderr)
    assert not (tmp_path / "agent" / "mcp.json").exists()


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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_to_omp_kills_the_server_and_its_children(tmp_path: Path, signum: int) -> None:
    for sub in ("work", "agent", "home"):
        (tmp_path / sub).mkdir()
    configure(tmp_path / "agent", {"demo": stdio_server()}, mcp={"startupGateMs": 20000})
    script = tmp_path / "script.jsonl"
    steps = [
        {"tool_calls": [{"name": "mcp__demo__pid", "arguments": {}}]},
        {"tool_calls": [{"name": "mcp__demo__spawn_child", "arguments": {}}]},
        {"tool_calls": [{"name": "mcp__demo__nap", "arguments": {"seconds": 300}}]},
        {"text": "never"},
    ]
    script.write_text("".join(json.dumps(s) + "\n" for s in steps))
    omp = Path(sys.executable).with_name("omp")
    proc = subprocess.Popen(
        [str(omp), "--mode", "json", "--script", str(script), "go"],
        cwd=tmp_path / "work",
        env=isolated_env(tmp_path),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    pids: list[int] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            event = json.loads(line)
            if event.get("type") == "tool_execution_end":
                pids.append(int(event["result"]["content"][0]["text"]))
            if event.get("type") == "tool_execution_start" and event["toolName"].endswith("nap"):
                break
        assert len(pids) == 2 and all(_alive(p) for p in pids)
        time.sleep(0.2)
        proc.send_signal(signum)
        proc.wait(10)
    finally:
        proc.kill()
        proc.communicate()
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    server, child = pids
    assert not _alive(server), "the MCP server outlived omp"
    assert not _alive(child), "the MCP server's child outlived omp"


def test_values_from_the_environment_are_never_shown(tmp_path: Path, http_server: str) -> None:
    secrets = {"API_KEY": "s3cr3t-key-value", "TOKEN": "t0ken-value-123"}
    for sub in ("work", "agent", "home"):
        (tmp_path / sub).mkdir()
    wrong_path = http_server.replace("/mcp", "/nothing-here")
    configure(
        tmp_path / "agent",
        {
            "web": {"type": "http", "url": wrong_path + "?key=${API_KEY}"},
            "local": {"command": sys.executable, "args": [str(DEMO), "--token", "${TOKEN}"]},
        },
    )
    shown = ""
    for args in (["list"], ["list", "--json"], ["test", "web"], ["test", "local"]):
        proc = run_omp(tmp_path, "mcp", *args, env=secrets)
        shown += proc.stdout + proc.stderr
    assert "${API_KEY}" in shown and "${TOKEN}" in shown
    assert "web failed" in shown and "local failed" in shown
    for value in secrets.values():
        assert value not in shown


def test_project_servers_start_only_in_a_trusted_directory(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    starts = f"open({str(marker)!r}, 'w').close(); import sys; sys.exit(1)"
    work = tmp_path / "work"
    work.mkdir()
    (work / "mcp.json").write_text(
        json.dumps({"mcpServers": {"proj": {"command": sys.executable, "args": ["-c", starts]}}})
    )
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "settings.json").write_text('{"mcp": {"startupGateMs": 20000}}')
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"text": "ok"}) + "\n")
    untrusted = run_omp(tmp_path, "-p", "--script", str(script), "hi")
    assert untrusted.returncode == 0, untrusted.stderr
    assert "mcp.json were not started: this directory is not trusted" in untrusted.stderr
    assert not marker.exists()
    listed = run_omp(tmp_path, "mcp", "list")
    assert "proj" not in listed.stdout and "not trusted" in listed.stderr
    assert run_omp(tmp_path, "mcp", "test", "proj").returncode != 0
    assert not marker.exists()
    trusted = run_omp(tmp_path, "--trust", "-p", "--script", str(script), "hi")
    assert trusted.returncode == 0, trusted.stderr
    assert marker.exists()


def imported_by(root: Path, *args: str) -> set[str]:
    """The modules ``omp *args`` imports (``python -X importtime``)."""
    for sub in ("work", "agent", "home"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    omp = Path(sys.executable).with_name("omp")
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", str(omp), *args],
        cwd=root / "work",
        env=isolated_env(root),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line]
    return {line for line in lines if line and line != "imported package"}


def test_version_and_the_config_commands_never_import_the_sdk(tmp_path: Path) -> None:
    version = imported_by(tmp_path, "--version")
    assert not {m for m in version if m.split(".")[0] in {"mcp", "pydantic", "httpx", "rich"}}
    for args in (["mcp", "--help"], ["mcp", "list"]):
        found = imported_by(tmp_path, *args)
        assert not {m for m in found if m.split(".")[0] in {"mcp", "mcp_types"}}, args


def test_malformed_entries_are_named_and_the_rest_still_work(tmp_path: Path) -> None:
    for sub in ("work", "agent", "home"):
        (tmp_path / sub).mkdir()
    configure(
        tmp_path / "agent",
        {
            "args-text": {"command": "x", "args": "--port 3000"},
            "headers-text": {"url": "http://127.0.0.1:9/mcp", "headers": "Authorization: x"},
            "env-list": {"command": "x", "env": ["A=1"]},
            "number": {"command": 5},
            "text": "nope",
            "demo": stdio_server(),
        },
        mcp={"startupGateMs": 20000},
    )
    listed = run_omp(tmp_path, "mcp", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    problems = {row["name"]: row["problems"] for row in json.loads(listed.stdout)}
    assert problems["args-text"] == ["args must be a list of strings"]
    assert problems["headers-text"] == ["headers must be an object of strings"]
    assert problems["env-list"] == ["env must be an object of strings"]
    assert problems["number"] == ["command must be a string"]
    assert problems["text"] == ["not an object"]
    assert problems["demo"] == []
    test = run_omp(tmp_path, "mcp", "test", "args-text")
    assert test.returncode == 1 and "args must be a list of strings" in test.stdout
    script = tmp_path / "script.jsonl"
    steps = [
        {"tool_calls": [{"name": "mcp__demo__shout", "arguments": {"text": "fine"}}]},
        {"choose": [{"when": "FINE", "text": "the server said FINE"}, {"text": "no answer"}]},
    ]
    script.write_text("".join(json.dumps(s) + "\n" for s in steps))
    proc = run_omp(tmp_path, "-p", "--script", str(script), "go")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "the server said FINE"
    assert "args-text failed: args must be a list of strings" in proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


def test_a_server_that_never_answers_does_not_hold_omp_at_exit(tmp_path: Path) -> None:
    for sub in ("work", "agent", "home"):
        (tmp_path / sub).mkdir()
    pidfile = tmp_path / "hung.pid"
    hangs = f"import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); time.sleep(300)"
    configure(tmp_path / "agent", {"hung": {"command": sys.executable, "args": ["-c", hangs]}})
    script = tmp_path / "script.jsonl"
    wait = f"for i in $(seq 300); do [ -s {pidfile} ] && break; sleep 0.1; done"
    steps = [{"tool_calls": [{"name": "bash", "arguments": {"command": wait}}]}, {"text": "ok"}]
    script.write_text("".join(json.dumps(s) + "\n" for s in steps))
    proc = run_omp(tmp_path, "-p", "--script", str(script), "hi", "--session", "s.jsonl")
    assert proc.returncode == 0 and proc.stdout == "ok\n", proc.stderr
    entries = [
        json.loads(line) for line in (tmp_path / "work" / "s.jsonl").read_text().splitlines()
    ]
    answered = max(e["timestamp"] for e in entries if e.get("type") == "message")
    took = time.time() - datetime.fromisoformat(answered.replace("Z", "+00:00")).timestamp()
    assert took < 4, f"omp took {took:.1f} s to end beside a server that never answered"
    assert not _alive(int(pidfile.read_text()))


def test_project_servers_are_added_to_and_removed_from_the_projects_mcp_json(
    tmp_path: Path,
) -> None:
    added = run_omp(tmp_path, "mcp", "add", "proj", "--project", "--", sys.executable, str(DEMO))
    assert added.returncode == 0, added.stderr
    project_file = tmp_path / "work" / ".mcp.json"
    entry = json.loads(project_file.read_text())["mcpServers"]["proj"]
    assert entry == {"command": sys.executable, "args": [str(DEMO)]}
    assert "not trusted" in added.stdout + added.stderr
    assert "proj" not in run_omp(tmp_path, "mcp", "list").stdout
    assert "proj" in run_omp(tmp_path, "--trust", "mcp", "list").stdout
    removed = run_omp(tmp_path, "mcp", "remove", "proj", "--project")
    assert removed.returncode == 0, removed.stderr
    assert json.loads(project_file.read_text())["mcpServers"] == {}
