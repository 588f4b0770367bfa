"""Known secrets are hidden at the tool-result boundary and in the session file, in
process (issue 24, item 8): the model, every event, the tool_result hooks and the
session file see ``[REDACTED:label]``; a plugin registers its own values through
``api.register_secret`` (as the MCP plugin does with its servers' env and headers)."""

from __future__ import annotations

import json

import omp
from omp.agent.tools import Tool, ToolResult
from pydantic import BaseModel

TOKEN = "srv-token-0123456789abcdef"
SHOWN = "[REDACTED:mcp:srv:TOKEN]"


class Empty(BaseModel):
    pass


class RegistersAToken:
    """What the MCP plugin does with a server's credentials, at load time."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    @omp.hookimpl
    def omp_register_tools(self, api):
        api.register_secret(TOKEN, "mcp:srv:TOKEN")
        api.register_secret("1", "too-short")
        return []

    @omp.hookimpl
    def omp_tool_result(self, event):
        self.seen.append(json.dumps([b.model_dump() for b in event.content]))


def _leaky_tool() -> Tool:
    def execute(call_id, params, signal, on_update, ctx):
        on_update(ToolResult.text(f"partial {TOKEN}"))
        return {"content": [f"token={TOKEN} count=1"], "details": {TOKEN: [TOKEN]}}

    return Tool(name="leak", parameters=Empty, execute=execute)


def test_a_registered_secret_reaches_no_model_event_hook_or_session_line(make_session, omp_harness):
    plugin = RegistersAToken()
    session, provider = make_session(
        [{"calls": [("leak", {})]}, {"text": "done"}],
        tools=[_leaky_tool()],
        plugins=[plugin],
        no_session=False,
    )
    log = omp_harness.run(session, "go")

    [result] = [m for m in provider.requests[1].messages if m.role == "toolResult"]
    assert result.content[0].text == f"token={SHOWN} count=1"  # "1" is too short to hide
    assert result.details == {SHOWN: [SHOWN]}
    assert SHOWN in plugin.seen[0] and TOKEN not in plugin.seen[0]
    [update] = log.of("tool_execution_update")
    assert update.partial_result["content"][0]["text"] == f"partial {SHOWN}"
    for event in log:
        assert TOKEN not in event.model_dump_json(), event.type
    text = session.session_file.path.read_text(encoding="utf-8")
    assert SHOWN in text and TOKEN not in text


def test_a_tool_error_naming_a_secret_is_hidden(make_session, omp_harness):
    def execute(call_id, params, signal, on_update, ctx):
        raise RuntimeError(f"could not log in with {TOKEN}")

    session, provider = make_session(
        [{"calls": [("fail", {})]}, {"text": "done"}],
        tools=[Tool(name="fail", parameters=Empty, execute=execute)],
        plugins=[RegistersAToken()],
    )
    omp_harness.run(session, "go")
    [result] = [m for m in provider.requests[1].messages if m.role == "toolResult"]
    assert result.is_error and result.content[0].text.endswith(f"could not log in with {SHOWN}")


def test_what_the_user_types_is_hidden_in_the_session_file(make_session, omp_harness):
    session, _ = make_session([{"text": "ok"}], plugins=[RegistersAToken()], no_session=False)
    omp_harness.run(session, f"my token is {TOKEN}")
    text = session.session_file.path.read_text(encoding="utf-8")
    assert f"my token is {SHOWN}" in text and TOKEN not in text
    entries = session.session_file.entries
    [user] = [e for e in entries if e.get("message", {}).get("role") == "user"]
    assert SHOWN in json.dumps(user)  # what is in memory is what the file holds


def test_redaction_matches_the_longest_value_and_every_form_of_it():
    from omp.config.secrets import Secrets

    secrets = Secrets()
    secrets.add("Bearer tok-abcdefgh12345", "mcp:web:Authorization")
    secrets.add("tok-abcdefgh12345-and-more", "LONGER_TOKEN")
    secrets.add('quote"and\\slash-value', "ODD_KEY")
    text = "a tok-abcdefgh12345-and-more b tok-abcdefgh12345 c"
    assert secrets.redact(text) == (
        "a [REDACTED:LONGER_TOKEN] b [REDACTED:mcp:web:Authorization] c"
    )
    line = json.dumps({"v": 'quote"and\\slash-value'}).encode()
    assert json.loads(secrets.redact_bytes(line)) == {"v": "[REDACTED:ODD_KEY]"}
    untouched = "nothing to hide here"
    assert secrets.redact(untouched) is untouched


def test_turned_off_nothing_is_hidden():
    from omp.config.secrets import Secrets

    secrets = Secrets(enabled=False)
    secrets.add("tok-abcdefgh12345", "T")
    assert secrets.redact("tok-abcdefgh12345") == "tok-abcdefgh12345"
    assert not secrets
