"""Provider keys never leak through a tool (issue 24, item 8): every credential omp knows
is hidden from tool results, json-mode events, the session file and exports, unless
``secrets.enabled`` is false; and children omp starts do not get omp's provider keys
unless ``bash.passProviderKeys`` is true."""

from __future__ import annotations

import json

from replay import chat_stream

OPENAI_KEY = "sk-proj-leakcheck-0123456789abcdef"
MODELS_KEY = "mk-literal-in-models-json-98765"
CLI_KEY = "sk-from-the-command-line-4242"

SEEN = {"choose": [{"when": OPENAI_KEY, "text": "I SAW THE KEY"}, {"text": "nothing secret"}]}


def _bash_then_answer(command: str) -> list[dict]:
    return [{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, SEEN]


def _settings(omp_cli, **values: object) -> None:
    (omp_cli.agent_dir / "settings.json").write_text(json.dumps(values), encoding="utf-8")


def _tool_output(entries: list[dict]) -> str:
    results = [e["message"] for e in entries if e.get("type") == "message"]
    return "".join(
        block.get("text", "")
        for message in results
        if message.get("role") == "toolResult"
        for block in message["content"]
    )


def _run_json(omp_cli, steps: list[dict], *args: str, **env: str):
    script = omp_cli.script(steps)
    proc = omp_cli("--mode", "json", "--script", script, *args, "go", env=env)
    assert proc.returncode == 0, proc.stderr
    [session] = omp_cli.session_files()
    return proc, session


def test_bash_children_do_not_get_omps_provider_keys(omp_cli):
    proc, session = _run_json(
        omp_cli, _bash_then_answer("env"), OPENAI_API_KEY=OPENAI_KEY, UNRELATED_VAR="kept-42"
    )
    output = _tool_output(omp_cli.read_session(session))
    assert "UNRELATED_VAR=kept-42" in output  # the rest of the environment is passed
    assert "OPENAI_API_KEY" not in output
    assert OPENAI_KEY not in proc.stdout


def test_a_key_printed_by_a_tool_is_hidden_everywhere(omp_cli):
    _settings(omp_cli, bash={"passProviderKeys": True})
    steps = _bash_then_answer("env; sleep 0.5")  # still running: partial output is sent
    proc, session = _run_json(omp_cli, steps, OPENAI_API_KEY=OPENAI_KEY)

    text = session.read_text(encoding="utf-8")
    assert OPENAI_KEY not in text
    assert "OPENAI_API_KEY=[REDACTED:OPENAI_API_KEY]" in _tool_output(omp_cli.read_session(session))
    assert OPENAI_KEY not in proc.stdout
    events = omp_cli.json_lines(proc.stdout)
    updates = [json.dumps(e) for e in events if e["type"] == "tool_execution_update"]
    assert any("[REDACTED:OPENAI_API_KEY]" in update for update in updates)
    assert "nothing secret" in proc.stdout  # the model never saw it

    export = omp_cli.root / "out.html"
    done = omp_cli("sessions", "export", session, export, env={"OPENAI_API_KEY": OPENAI_KEY})
    assert done.returncode == 0, done.stderr
    assert OPENAI_KEY not in export.read_text(encoding="utf-8")
    assert "[REDACTED:OPENAI_API_KEY]" in export.read_text(encoding="utf-8")


def test_the_setting_passes_keys_and_turning_secrets_off_shows_them(omp_cli):
    _settings(omp_cli, bash={"passProviderKeys": True}, secrets={"enabled": False})
    proc, session = _run_json(omp_cli, _bash_then_answer("env"), OPENAI_API_KEY=OPENAI_KEY)
    output = _tool_output(omp_cli.read_session(session))
    assert f"OPENAI_API_KEY={OPENAI_KEY}" in output
    assert "I SAW THE KEY" in proc.stdout

    _settings(omp_cli)  # on again: an export hides the key this older session holds
    export = omp_cli.root / "old.md"
    done = omp_cli("sessions", "export", session, export, env={"OPENAI_API_KEY": OPENAI_KEY})
    assert done.returncode == 0, done.stderr
    assert OPENAI_KEY not in export.read_text(encoding="utf-8")


def test_a_key_written_in_models_json_is_hidden_when_a_tool_echoes_it(omp_cli):
    provider = {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions"}
    provider |= {"apiKey": MODELS_KEY, "models": [{"id": "m"}]}
    (omp_cli.agent_dir / "models.json").write_text(json.dumps({"providers": {"mine": provider}}))
    proc, session = _run_json(omp_cli, _bash_then_answer(f"echo key={MODELS_KEY}"))
    text = session.read_text(encoding="utf-8")
    assert MODELS_KEY not in text and MODELS_KEY not in proc.stdout
    assert "key=[REDACTED:models.json:mine]" in _tool_output(omp_cli.read_session(session))


def test_a_user_bang_command_gets_no_keys_and_shows_no_secret(omp_cli):
    script = omp_cli.script([SEEN])
    env = {"OPENAI_API_KEY": OPENAI_KEY, "GITHUB_TOKEN": "ghp_0123456789abcdefghij"}
    proc = omp_cli(
        "--mode", "json", "--script", script, "!env; echo gh=$GITHUB_TOKEN", "and?", env=env
    )
    assert proc.returncode == 0, proc.stderr
    [session] = omp_cli.session_files()
    [run] = omp_cli.messages_of(omp_cli.read_session(session), "bashExecution")
    assert "OPENAI_API_KEY" not in run["output"]
    assert "gh=[REDACTED:GITHUB_TOKEN]" in run["output"]
    assert "ghp_0123456789abcdefghij" not in proc.stdout


def _tool_call_stream(command: str) -> bytes:
    call = {"index": 0, "id": "call_1", "type": "function"}
    call["function"] = {"name": "bash", "arguments": json.dumps({"command": command})}
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [call]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def _proxy_run(omp_cli, replay_server, api_key: str, printed: str, *args: str):
    """A models.json provider on loopback whose model runs ``echo printed`` once."""
    provider = {"baseUrl": f"{replay_server.url}/v1", "api": "openai-completions"}
    provider |= {"apiKey": api_key, "models": [{"id": "coder"}]}
    (omp_cli.agent_dir / "models.json").write_text(json.dumps({"providers": {"proxy": provider}}))
    sse = {"content-type": "text/event-stream"}
    replay_server.add(_tool_call_stream(f"echo printed={printed}"), headers=sse)
    replay_server.add(chat_stream("done"), headers=sse)
    proc = omp_cli("--mode", "json", "--model", "proxy/coder", *args, "go")
    assert proc.returncode == 0, proc.stderr
    [result] = [m for m in replay_server.requests[1].json["messages"] if m["role"] == "tool"]
    [session] = omp_cli.session_files()
    assert printed not in json.dumps(result)
    assert printed not in session.read_text(encoding="utf-8") and printed not in proc.stdout
    return replay_server.requests[0].headers.get("authorization"), json.dumps(result)


def test_the_api_key_flag_is_hidden_when_a_tool_prints_it(omp_cli, replay_server):
    sent, result = _proxy_run(
        omp_cli, replay_server, "UNSET_PROXY_KEY", CLI_KEY, "--api-key", CLI_KEY
    )
    assert sent == f"Bearer {CLI_KEY}"
    assert "printed=[REDACTED:--api-key]" in result


def test_a_key_a_command_printed_is_hidden_once_the_provider_used_it(omp_cli, replay_server):
    key = "sk-from-a-key-command-777777"
    sent, result = _proxy_run(omp_cli, replay_server, f"!printf {key}", key)
    assert sent == f"Bearer {key}"
    assert "printed=[REDACTED:proxy:key]" in result


def test_a_key_stored_in_auth_json_is_hidden(omp_cli):
    stored = "sk-stored-in-auth-json-55555"
    auth = {"openai": {"type": "api_key", "key": stored}}
    (omp_cli.agent_dir / "auth.json").write_text(json.dumps(auth), encoding="utf-8")
    proc, session = _run_json(omp_cli, _bash_then_answer(f"echo stored={stored}"))
    assert stored not in session.read_text(encoding="utf-8") and stored not in proc.stdout
    assert "stored=[REDACTED:auth.json:openai]" in _tool_output(omp_cli.read_session(session))


def _deltas(events: list[dict], kind: str) -> str:
    return "".join(
        e["assistantMessageEvent"]["delta"]
        for e in events
        if e["type"] == "message_update" and e["assistantMessageEvent"]["type"] == kind
    )


def test_a_key_the_model_repeats_across_deltas_is_hidden_in_every_delta(omp_cli):
    """The scripted provider streams 24 characters a delta and a tool call's arguments
    in two halves: the key is split in the text, the thinking and the arguments."""
    arguments = {"path": "note.txt", "content": OPENAI_KEY}
    encoded = json.dumps(arguments)
    middle = len(encoded) // 2
    assert (
        OPENAI_KEY[1:] in encoded[1 : middle + len(OPENAI_KEY)]
        and OPENAI_KEY not in encoded[:middle]
    )
    steps = [
        {
            "thinking": f"I will repeat {OPENAI_KEY} now",
            "text": f"Your key is {OPENAI_KEY}.",
            "tool_calls": [{"name": "write", "arguments": arguments}],
        },
        {"text": "written"},
    ]
    proc, session = _run_json(omp_cli, steps, OPENAI_API_KEY=OPENAI_KEY)

    assert OPENAI_KEY not in proc.stdout
    events = omp_cli.json_lines(proc.stdout)
    end = next(
        i
        for i, e in enumerate(events)
        if e["type"] == "message_end" and e["message"]["role"] == "assistant"
    )
    first, events = events[end]["message"], events[:end]
    shown = "[REDACTED:OPENAI_API_KEY]"
    assert _deltas(events, "text_delta") == f"Your key is {shown}." == first["content"][1]["text"]
    assert _deltas(events, "thinking_delta") == f"I will repeat {shown} now"
    assert first["content"][0]["thinking"] == f"I will repeat {shown} now"
    assert json.loads(_deltas(events, "toolcall_delta")) == {"path": "note.txt", "content": shown}
    # the model cannot know the key but from the user: the tool gets what was shown
    assert (omp_cli.cwd / "note.txt").read_text(encoding="utf-8") == shown
    assert OPENAI_KEY not in session.read_text(encoding="utf-8")
