"""Real providers through the CLI, against loopback servers (issue 4)."""

from __future__ import annotations

import json

SECRET = "sk-test-0123456789abcdefghijklmnop"


def chat_stream(text: str) -> bytes:
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 3}},
    ]
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return body.encode()


def models_file(omp_cli, providers: dict) -> None:
    (omp_cli.agent_dir / "models.json").write_text(json.dumps({"providers": providers}))


def proxy(url: str, **extra) -> dict:
    return {
        "baseUrl": f"{url}/v1",
        "api": "openai-completions",
        "apiKey": "PROXY_KEY",
        "models": [{"id": "coder", "cost": {"input": 1, "output": 2}}],
        **extra,
    }


def test_a_custom_provider_answers_through_the_cli(omp_cli, replay_server):
    models_file(omp_cli, {"proxy": proxy(replay_server.url)})
    replay_server.add(
        chat_stream("hello from the proxy"), headers={"content-type": "text/event-stream"}
    )
    omp_cli.env["PROXY_KEY"] = SECRET
    proc = omp_cli("-p", "--model", "proxy/coder", "hi")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "hello from the proxy\n"
    request = replay_server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {SECRET}"
    assert request.json["model"] == "coder" and request.json["stream"] is True


def test_the_key_never_reaches_session_events_or_errors(omp_cli, replay_server):
    models_file(omp_cli, {"proxy": proxy(replay_server.url)})
    body = json.dumps(
        {
            "error": {
                "message": f"Incorrect API key provided: {SECRET}",
                "type": "invalid_request_error",
            }
        }
    )
    replay_server.add(body, status=401, headers={"content-type": "application/json"})
    proc = omp_cli("--mode", "json", "--model", "proxy/coder", "--api-key", SECRET, "hi")
    assert proc.returncode == 1
    assert "Incorrect API key provided" in proc.stdout  # the explanation reaches the user
    everything = proc.stdout + proc.stderr
    for path in omp_cli.all_session_files():
        everything += path.read_text()
    assert SECRET not in everything
    assert replay_server.requests[0].headers["authorization"] == f"Bearer {SECRET}"


def test_without_model_the_first_provider_with_a_key_wins(omp_cli, replay_server):
    models_file(omp_cli, {"groq": {"baseUrl": f"{replay_server.url}/v1"}})
    omp_cli.env["GROQ_API_KEY"] = SECRET
    replay_server.add(chat_stream("groq here"), headers={"content-type": "text/event-stream"})
    proc = omp_cli("-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "groq here\n"
    assert "replaying" not in proc.stderr


def test_a_running_ollama_comes_before_the_demo(omp_cli, replay_server):
    host = replay_server.url.removeprefix("http://")
    omp_cli.env["OLLAMA_HOST"] = host
    replay_server.add(json.dumps({"models": [{"name": "qwen2.5-coder:7b"}]}))
    replay_server.add(chat_stream("local answer"), headers={"content-type": "text/event-stream"})
    proc = omp_cli("-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "local answer\n"
    assert replay_server.requests[0].path == "/api/tags"
    assert replay_server.requests[1].json["model"] == "qwen2.5-coder:7b"
    assert "authorization" not in replay_server.requests[1].headers


def test_no_key_and_no_ollama_falls_back_to_the_demo_and_says_so(omp_cli):
    omp_cli.env["OLLAMA_HOST"] = "127.0.0.1:9"  # nothing listens on the discard port
    (omp_cli.cwd / "README.md").write_text("# demo\n")
    proc = omp_cli("-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert "replaying the recorded script" in proc.stderr


def test_a_model_whose_provider_has_no_key_says_how_to_give_one(omp_cli):
    first = next(
        line
        for line in omp_cli("models", "anthropic/").stdout.splitlines()
        if line.startswith("anthropic/")
    )
    line = omp_cli.assert_one_line_error(omp_cli("-p", "--model", first.split()[0], "hi"))
    assert "no API key" in line and "$ANTHROPIC_API_KEY" in line


def test_a_custom_provider_with_an_unknown_api_says_why(omp_cli):
    models_file(
        omp_cli,
        {"odd": {"baseUrl": "http://x", "api": "bedrock-converse", "models": [{"id": "m"}]}},
    )
    line = omp_cli.assert_one_line_error(omp_cli("-p", "--model", "odd/m", "hi"))
    assert "'bedrock-converse'" in line and "not served by any installed plugin" in line


def test_a_wrong_route_is_explained(omp_cli, replay_server):
    provider = proxy(replay_server.url)
    provider["baseUrl"] = replay_server.url  # missing /v1
    models_file(omp_cli, {"proxy": provider})
    omp_cli.env["PROXY_KEY"] = "k"
    replay_server.add("404 page not found", status=404)
    proc = omp_cli("-p", "--model", "proxy/coder", "hi")
    assert proc.returncode == 1
    assert "404" in proc.stderr and "/v1" in proc.stderr


def test_models_lists_what_is_available_and_which_have_keys(omp_cli):
    omp_cli.env["OLLAMA_HOST"] = "127.0.0.1:9"
    omp_cli.env["ANTHROPIC_API_KEY"] = SECRET
    proc = omp_cli("models")
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    anthropic = [line for line in lines if line.startswith("anthropic/")]
    openai = [line for line in lines if line.startswith("openai/")]
    assert anthropic and all(line.endswith("ready") for line in anthropic)
    assert openai and all("no API key" in line for line in openai)
    assert SECRET not in proc.stdout
    assert omp_cli("models", "gemini").stdout.count("google/") >= 1
