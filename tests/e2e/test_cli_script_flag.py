"""`--script FILE` selects the scripted provider whatever keys are set, and a missing or
malformed script is an error before anything is sent (issue 8, item 12)."""

from __future__ import annotations

import json

STREAM = (
    'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"PAID MODEL"}}]}\n\n'
    'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    "data: [DONE]\n\n"
)


def _keyed_provider(omp_cli, replay_server) -> None:
    """A real provider with a key, served on loopback: what --script must not reach."""
    (omp_cli.agent_dir / "models.json").write_text(
        json.dumps({"providers": {"groq": {"baseUrl": f"{replay_server.url}/v1"}}})
    )
    omp_cli.env["GROQ_API_KEY"] = "gsk-test-key"
    replay_server.add(STREAM, headers={"content-type": "text/event-stream"})


def test_script_wins_over_a_provider_with_a_key(omp_cli, replay_server):
    _keyed_provider(omp_cli, replay_server)
    script = omp_cli.script([{"text": "from the script"}])
    proc = omp_cli("-p", "hi", "--script", script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "from the script\n"
    assert replay_server.requests == []


def test_a_missing_script_is_an_error_before_anything_is_sent(omp_cli, replay_server):
    _keyed_provider(omp_cli, replay_server)
    missing = omp_cli.root / "nope.jsonl"
    line = omp_cli.assert_one_line_error(omp_cli("-p", "hi", "--script", missing))
    assert "nope.jsonl" in line and "not found" in line
    assert replay_server.requests == []
    assert omp_cli.all_session_files() == []


def test_a_malformed_script_names_its_file_and_line(omp_cli, replay_server):
    _keyed_provider(omp_cli, replay_server)
    bad = omp_cli.root / "bad.jsonl"
    bad.write_text('{"text": "fine"}\n{"text": \n')
    line = omp_cli.assert_one_line_error(omp_cli("-p", "hi", "--script", bad))
    assert "bad.jsonl:2" in line  # file:line
    assert replay_server.requests == []


def test_script_with_a_model_of_another_provider_is_an_error(omp_cli, replay_server):
    _keyed_provider(omp_cli, replay_server)
    script = omp_cli.script([{"text": "x"}])
    proc = omp_cli("-p", "hi", "--script", script, "--model", "groq/llama-3.3-70b-versatile")
    line = omp_cli.assert_one_line_error(proc)
    assert "--script" in line and "groq" in line
    assert replay_server.requests == []
