"""A broken ~/.omp/agent/models.json is reported once, with file, line and column, and
disables only what it defines: providers keyed from the environment keep working
(issue 8, item 14). An unknown --model suggests the user's own and keyed models first
(item 17). Nothing here leaves loopback: a fake key is only listed and resolved."""

from __future__ import annotations

import json

BROKEN = '{\n  "providers": {\n    "mine": {"baseUrl": "http://x", "api": "openai-completions",,\n'


def _broken_file(omp_cli) -> None:
    (omp_cli.agent_dir / "models.json").write_text(BROKEN)
    omp_cli.env["OPENAI_API_KEY"] = "sk-test"


def _rows(stdout: str) -> dict[str, str]:
    rows = {}
    for line in stdout.splitlines():
        first = (line.split() or [""])[0]
        if "/" in first:
            rows[first] = line
    return rows


def _problem_lines(proc) -> list[str]:
    return [line for line in proc.stderr.splitlines() if "models.json" in line]


def test_a_malformed_models_file_is_reported_once_and_env_keys_still_work(omp_cli):
    _broken_file(omp_cli)

    listing = omp_cli("models")

    assert listing.returncode == 0, listing.stderr
    assert "Traceback" not in listing.stderr
    [problem] = _problem_lines(listing)
    assert str(omp_cli.agent_dir / "models.json") in problem
    assert "line 3, column 65" in problem
    assert "sk-test" not in listing.stderr + listing.stdout
    rows = _rows(listing.stdout)
    openai = [row for key, row in rows.items() if key.startswith("openai/")]
    assert openai and all(row.rstrip().endswith("ready") for row in openai), openai
    assert not any(key.startswith("mine/") for key in rows)


def test_a_run_with_a_malformed_models_file_reports_it_once_and_goes_on(omp_cli):
    _broken_file(omp_cli)
    script = omp_cli.script([{"text": "still answered"}])

    proc = omp_cli("-p", "hi", "--script", script)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "still answered\n"
    assert len(_problem_lines(proc)) == 1, proc.stderr
    assert "failed while registering" not in proc.stderr

    plugins = omp_cli("plugins")
    assert plugins.returncode == 0
    assert "[FAILED]" not in plugins.stdout and "[DEGRADED]" not in plugins.stdout


def test_one_invalid_provider_disables_only_itself(omp_cli, replay_server):
    replay_server.add(
        'data: {"choices":[{"index":0,"delta":{"content":"PROXIED"}}]}\n\n'
        'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
        "data: [DONE]\n\n",
        headers={"content-type": "text/event-stream"},
    )
    providers = {
        "broken": {"baseUrl": "http://x", "api": "openai-completions", "models": [{"nm": 1}]},
        "groq": {"baseUrl": f"{replay_server.url}/v1"},
    }
    (omp_cli.agent_dir / "models.json").write_text(json.dumps({"providers": providers}))
    omp_cli.env["GROQ_API_KEY"] = "gsk-test"

    listing = omp_cli("models")
    assert listing.returncode == 0, listing.stderr
    [problem] = _problem_lines(listing)
    assert "'broken'" in problem and "string id" in problem
    rows = _rows(listing.stdout)
    assert not any(key.startswith("broken/") for key in rows)
    assert rows["groq/llama-3.3-70b-versatile"].rstrip().endswith("ready")

    proc = omp_cli("-p", "--model", "groq/llama-3.3-70b-versatile", "hi")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "PROXIED\n"
    assert len(_problem_lines(proc)) == 1, proc.stderr


def test_unknown_model_suggests_configured_and_keyed_models_first(omp_cli):
    providers = {
        "mybox": {
            "baseUrl": "http://127.0.0.1:9/v1",
            "api": "openai-completions",
            "apiKey": "none",
            "models": [{"id": "house-model"}],
        }
    }
    (omp_cli.agent_dir / "models.json").write_text(json.dumps({"providers": providers}))
    omp_cli.env["GEMINI_API_KEY"] = "g-test"

    line = omp_cli.assert_one_line_error(omp_cli("-p", "--model", "zzzzqq", "hi"))

    suggested = line.split(": ", 2)[-1]
    assert "mybox/house-model" in suggested, line
    first = suggested.split("available: ")[-1].split(", ")
    assert first[0] == "mybox/house-model", line
    assert any(name.startswith("google/") for name in first[1:4]), line
    assert not any(name.startswith("anthropic/") for name in first[:4]), line
