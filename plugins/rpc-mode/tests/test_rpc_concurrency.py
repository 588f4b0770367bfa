"""Ordering under concurrency, the extension UI sub-protocol (§2.7) and host tools
(§2.8), against one shared rpc process."""

from __future__ import annotations

import time

ECHO_HOST = {
    "name": "echo_host",
    "description": "Echo text back, run by the RPC host",
    "parameters": {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
}
FORBIDDEN_HOST = {
    "name": "forbidden_host",
    "description": "A host tool a plugin's tool_call hook blocks",
    "parameters": {"type": "object", "properties": {}},
}


def _users(frames):
    return [
        f["message"]["content"]
        for f in frames
        if f["type"] == "message_start" and f["message"]["role"] == "user"
    ]


def test_steer_during_a_tool_batch_is_delivered_after_the_tools(rpc):
    start = rpc.mark()
    assert rpc.request("prompt", message="SLOW batch")["success"] is True
    rpc.wait_for(lambda f: f["type"] == "tool_execution_start", start)
    assert rpc.ok("steer", message="STEERED now") is None
    end = rpc.wait_for(lambda f: f["type"] == "agent_end", start)
    frames = rpc.since(start)
    kinds = [
        (f["type"], f["message"].get("content") if isinstance(f.get("message"), dict) else None)
        for f in frames
    ]
    steered = kinds.index(("message_start", "STEERED now"))
    last_tool_end = max(i for i, (k, _) in enumerate(kinds) if k == "tool_execution_end")
    assert steered > last_tool_end
    assert [m.get("content") for m in end["messages"] if m["role"] == "user"] == [
        "SLOW batch",
        "STEERED now",
    ]


def test_prompt_while_streaming_needs_streaming_behavior(rpc):
    start = rpc.mark()
    rpc.request("prompt", message="DELAY first")
    rpc.wait_for(lambda f: f["type"] == "agent_start", start)
    refused = rpc.request("prompt", message="second")
    assert refused["success"] is False and refused["command"] == "prompt"
    assert "streamingBehavior" in refused["error"]
    queued = rpc.request("prompt", message="FOLLOW later", streamingBehavior="followUp")
    assert queued["success"] is True
    assert rpc.ok("get_state")["isStreaming"] is True
    rpc.wait_for(lambda f: f["type"] == "agent_end", start)
    assert _users(rpc.since(start)) == ["DELAY first", "FOLLOW later"]


def test_follow_up_waits_for_the_model_to_finish(rpc):
    start = rpc.mark()
    rpc.request("prompt", message="DELAY before the follow-up")
    rpc.wait_for(lambda f: f["type"] == "agent_start", start)
    assert rpc.ok("follow_up", message="FOLLOWED after") is None
    assert rpc.ok("get_state")["queuedMessageCount"] == 1
    end = rpc.wait_for(lambda f: f["type"] == "agent_end", start)
    users = [m.get("content") for m in end["messages"] if m["role"] == "user"]
    assert users == ["DELAY before the follow-up", "FOLLOWED after"]
    replies = [m for m in end["messages"] if m["role"] == "assistant"]
    assert replies[0]["content"][0]["text"] == "late reply"  # not cut short


def test_abort_ends_the_run_as_aborted(rpc):
    start = rpc.mark()
    rpc.request("prompt", message="DELAY forever")
    rpc.wait_for(lambda f: f["type"] == "agent_start", start)
    assert rpc.ok("abort") is None
    end = rpc.wait_for(lambda f: f["type"] == "agent_end", start, timeout=5)
    assert end["messages"][-1]["stopReason"] == "aborted"


def test_abort_bash_overtakes_a_running_bash(rpc):
    bash_id = rpc.next_id()
    start = rpc.mark()
    began = time.monotonic()
    rpc.send({"id": bash_id, "type": "bash", "command": "sleep 30"})
    time.sleep(0.3)
    assert rpc.ok("abort_bash") is None
    result = rpc.wait_for(lambda f: f.get("id") == bash_id, start, timeout=10)
    assert time.monotonic() - began < 10
    assert result["success"] is True and result["data"]["cancelled"] is True


def test_extension_ui_round_trip_and_decorations(rpc):
    start = rpc.mark()
    rpc.request("prompt", message="ASK me")
    ask = rpc.wait_for(
        lambda f: f["type"] == "extension_ui_request" and f["method"] == "confirm", start
    )
    assert (ask["title"], ask["message"], ask["timeout"]) == ("Proceed?", "Really go on?", 30000)
    assert isinstance(ask["id"], str) and ask["id"].isdigit()
    rpc.send({"type": "extension_ui_response", "id": "no-such-dialog", "confirmed": False})
    rpc.send({"type": "extension_ui_response", "id": ask["id"], "confirmed": True})
    end = rpc.wait_for(lambda f: f["type"] == "tool_execution_end", start)
    assert end["result"]["content"][0]["text"] == "confirmed=True has_ui=False"
    rpc.wait_for(lambda f: f["type"] == "agent_end", start)
    asked = [f for f in rpc.since(start) if f["type"] == "extension_ui_request"]
    requests = {f["method"]: f for f in reversed(asked)}  # the first of each method
    # cleared as omp clears them: the text or lines left out (undefined in omp)
    cleared = [f for f in asked if f["method"] in ("setStatus", "setWidget")][-2:]
    assert [set(f) for f in cleared] == [
        {"type", "id", "method", "statusKey"},
        {"type", "id", "method", "widgetKey"},
    ]
    assert requests["notify"]["message"] == "asking now"
    assert requests["notify"]["notifyType"] == "warning"
    assert (requests["setStatus"]["statusKey"], requests["setStatus"]["statusText"]) == (
        "phase",
        "asking",
    )
    assert requests["setWidget"]["widgetKey"] == "todo"
    assert requests["setWidget"]["widgetLines"] == ["one", "two"]
    assert requests["set_editor_text"]["text"] == "draft text"


def test_dialog_timeout_takes_the_default_and_withdraws_the_request(rpc):
    start = rpc.mark()
    rpc.request("prompt", message="QUICKASK me")
    end = rpc.wait_for(lambda f: f["type"] == "tool_execution_end", start)
    assert end["result"]["content"][0]["text"].startswith("confirmed=False")
    frames = rpc.since(start)
    ask = next(f for f in frames if f.get("method") == "confirm")
    cancel = next(f for f in frames if f.get("method") == "cancel")
    assert cancel["targetId"] == ask["id"]
    rpc.wait_for(lambda f: f["type"] == "agent_end", start)


def test_host_tool_called_by_the_model(rpc):
    assert rpc.ok("set_host_tools", tools=[ECHO_HOST, FORBIDDEN_HOST]) == {
        "toolNames": ["echo_host", "forbidden_host"]
    }
    start = rpc.mark()
    rpc.request("prompt", message="HOST please")
    call = rpc.wait_for(lambda f: f["type"] == "host_tool_call", start)
    assert call["toolName"] == "echo_host" and call["arguments"] == {"text": "ping"}
    assert call["toolCallId"]
    rpc.send(
        {
            "type": "host_tool_update",
            "id": call["id"],
            "partialResult": {"content": [{"type": "text", "text": "working"}]},
        }
    )
    rpc.wait_for(lambda f: f["type"] == "tool_execution_update", start)
    rpc.send(
        {
            "type": "host_tool_result",
            "id": call["id"],
            "result": {"content": [{"type": "text", "text": "pong"}], "details": {"n": 1}},
        }
    )
    end = rpc.wait_for(lambda f: f["type"] == "tool_execution_end", start)
    assert end["toolCallId"] == call["toolCallId"]
    assert end["result"]["content"] == [{"type": "text", "text": "pong"}]
    assert end["result"]["details"] == {"n": 1} and end["isError"] is False
    update = next(f for f in rpc.since(start) if f["type"] == "tool_execution_update")
    assert update["partialResult"]["content"][0]["text"] == "working"
    rpc.wait_for(lambda f: f["type"] == "agent_end", start)


def test_host_tools_are_seen_by_hooks_and_cancelled_on_abort(rpc):
    start = rpc.mark()
    frames = rpc.run("FORBID it")
    end = next(f for f in frames if f["type"] == "tool_execution_end")
    assert end["isError"] is True
    assert end["result"]["content"][0]["text"] == "blocked by the test hook"
    assert not any(f["type"] == "host_tool_call" for f in frames)

    start = rpc.mark()
    rpc.request("prompt", message="HOST again")
    call = rpc.wait_for(lambda f: f["type"] == "host_tool_call", start)
    rpc.ok("abort")
    cancel = rpc.wait_for(lambda f: f["type"] == "host_tool_cancel", start)
    assert cancel["targetId"] == call["id"] and cancel["id"] != call["id"]
    rpc.wait_for(lambda f: f["type"] == "agent_end", start)
    assert rpc.ok("set_host_tools", tools=[]) == {"toolNames": []}
    clash = rpc.request("set_host_tools", tools=[{**ECHO_HOST, "name": "slow"}])
    assert clash["success"] is False and "already registered" in clash["error"]


def test_rpc_ui_mode_tells_tools_there_is_a_ui(fresh_rpc):
    client = fresh_rpc(mode="rpc-ui")
    start = client.mark()
    client.request("prompt", message="ASK me")
    ask = client.wait_for(lambda f: f.get("method") == "confirm", start)
    client.send({"type": "extension_ui_response", "id": ask["id"], "cancelled": True})
    end = client.wait_for(lambda f: f["type"] == "tool_execution_end", start)
    assert end["result"]["content"][0]["text"] == "confirmed=False has_ui=True"


def test_abort_right_after_a_prompt_stops_that_prompt(fresh_rpc):
    rpc = fresh_rpc()  # its own: no earlier tool result left for the script to answer
    # Both lines in one write: the abort is read before the prompt's run can begin.
    start = rpc.mark()
    rpc.send(
        '{"id":"order-p","type":"prompt","message":"DELAY one"}\n{"id":"order-a","type":"abort"}'
    )
    rpc.wait_for(lambda f: f.get("id") == "order-a" and f["type"] == "response", start)
    frames = rpc.since(start)
    answered = [f["id"] for f in frames if f["type"] == "response"]
    assert answered == ["order-p", "order-a"]  # ordinary commands keep arrival order
    done = [
        f
        for f in frames
        if f["type"] == "agent_end" or (f["type"] == "prompt_result" and f["id"] == "order-p")
    ]
    assert done, "the prompt is settled before abort is answered"
    if done[0]["type"] == "agent_end":
        assert done[0]["messages"][-1]["stopReason"] == "aborted"
    assert rpc.ok("get_state")["isStreaming"] is False
    assert not any(
        f["type"] == "message_end" and "late reply" in str(f["message"]["content"])
        for f in rpc.since(start)
    )


def test_a_prompt_sent_right_after_abort_is_accepted(rpc):
    start = rpc.mark()
    rpc.request("prompt", message="DELAY then replaced")
    rpc.wait_for(lambda f: f["type"] == "agent_start", start)
    rpc.send(
        '{"id":"after-a","type":"abort"}\n{"id":"after-p","type":"prompt","message":"hello after"}'
    )
    answer = rpc.wait_for(lambda f: f.get("id") == "after-p" and f["type"] == "response", start)
    assert answer["success"] is True, answer
    rpc.wait_for(
        lambda f: f["type"] == "agent_end" and f["messages"][0].get("content") == "hello after",
        start,
    )


def test_select_input_and_editor_round_trip(rpc):
    start = rpc.mark()
    rpc.request("prompt", message="DIALOGS please")

    def asked(method):
        return rpc.wait_for(
            lambda f: f["type"] == "extension_ui_request" and f["method"] == method, start
        )

    select = asked("select")
    assert (select["title"], select["options"], select["timeout"]) == (
        "Pick one",
        ["red", "blue"],
        30000,
    )
    assert select["optionDetails"] == [{"description": "warm"}, {}]
    rpc.send({"type": "extension_ui_response", "id": select["id"], "value": "red"})
    typed = asked("input")
    assert (typed["title"], typed["placeholder"]) == ("Branch name", "feature/...")
    assert "timeout" not in typed
    rpc.send({"type": "extension_ui_response", "id": typed["id"], "value": "feature/rpc"})
    editor = asked("editor")
    assert (editor["title"], editor["prefill"]) == ("Edit message", "draft")
    rpc.send({"type": "extension_ui_response", "id": editor["id"], "cancelled": True})
    end = rpc.wait_for(lambda f: f["type"] == "tool_execution_end", start)
    assert end["result"]["content"][0]["text"] == "picked=red typed=feature/rpc edited=None"
    rpc.wait_for(lambda f: f["type"] == "agent_end", start)
    # setTitle is only sent with PI_RPC_EMIT_TITLE=1, as in omp
    assert not any(f.get("method") == "setTitle" for f in rpc.since(start))


def test_abort_and_prompt_replaces_the_running_prompt(rpc):
    start = rpc.mark()
    rpc.request("prompt", message="DELAY to be replaced")
    rpc.wait_for(lambda f: f["type"] == "agent_start", start)
    answer = rpc.request("abort_and_prompt", message="instead this")
    assert answer["success"] is True and "data" not in answer
    second = rpc.wait_for(
        lambda f: f["type"] == "agent_end" and f["messages"][0].get("content") == "instead this",
        start,
    )
    assert second["messages"][-1]["content"][0]["text"] == "Hello from the script"
    first = next(f for f in rpc.since(start) if f["type"] == "agent_end")
    assert first["messages"][-1]["stopReason"] == "aborted"


def test_a_failing_hook_is_reported_as_an_extension_error_frame(rpc):
    frames = rpc.run("HOOKFAIL and go on")
    [error] = [f for f in frames if f["type"] == "extension_error"]
    assert set(error) == {"type", "extensionPath", "event", "error"}
    assert error["event"] == "input"
    assert "the test hook failed" in error["error"] and "\n" not in error["error"]
    assert "rpc_extension" in error["extensionPath"]  # the plugin's name (ext:rpc_extension)


def test_set_title_is_sent_when_the_host_asks_for_titles(fresh_rpc):
    client = fresh_rpc(env={"PI_RPC_EMIT_TITLE": "1"})
    start = client.mark()
    client.request("prompt", message="DIALOGS with title")
    for method in ("select", "input", "editor"):
        asked = client.wait_for(lambda f, m=method: f.get("method") == m, start)
        client.send({"type": "extension_ui_response", "id": asked["id"], "cancelled": True})
    title = client.wait_for(lambda f: f.get("method") == "setTitle", start)
    assert title["title"] == "a title for the host"
    client.wait_for(lambda f: f["type"] == "agent_end", start)


def test_abort_withdraws_an_open_dialog(rpc):
    # Last: the aborted tool's result is left without a reply, which the script's
    # after_tool lines would answer in the next test.
    start = rpc.mark()
    rpc.request("prompt", message="ASK and abort")
    ask = rpc.wait_for(lambda f: f.get("method") == "confirm", start)
    assert rpc.ok("abort") is None
    cancel = rpc.wait_for(lambda f: f.get("method") == "cancel", start)
    assert cancel["type"] == "extension_ui_request" and cancel["targetId"] == ask["id"]
    end = rpc.wait_for(lambda f: f["type"] == "tool_execution_end", start)
    assert end["result"]["content"][0]["text"].startswith("confirmed=False")
    rpc.wait_for(lambda f: f["type"] == "agent_end", start)


def test_sequential_thinking_holds_host_tools_like_built_in_ones(fresh_rpc):
    client = fresh_rpc("--seq-thoughts", "1")
    client.ok("set_host_tools", tools=[ECHO_HOST])
    frames = client.run("HOST before thinking")
    [blocked] = [f for f in frames if f["type"] == "tool_execution_end"]
    assert blocked["toolName"] == "echo_host" and blocked["isError"] is True
    assert "Sequential thinking is required" in blocked["result"]["content"][0]["text"]
    assert not any(f["type"] == "host_tool_call" for f in frames)

    start = client.mark()
    client.request("prompt", message="THINK then use the host tool")
    call = client.wait_for(lambda f: f["type"] == "host_tool_call", start)
    assert call["arguments"] == {"text": "after thinking"}
    client.send(
        {
            "type": "host_tool_result",
            "id": call["id"],
            "result": {"content": [{"type": "text", "text": "done by the host"}]},
        }
    )
    client.wait_for(lambda f: f["type"] == "agent_end", start)
    ends = [f for f in client.since(start) if f["type"] == "tool_execution_end"]
    assert [(e["toolName"], e["isError"]) for e in ends] == [
        ("sequential_thinking", False),
        ("echo_host", False),
    ]


def test_host_tool_arguments_are_checked_against_its_schema(fresh_rpc):
    # as for a built-in tool, the model hears what is wrong and the host is not called
    client = fresh_rpc()
    client.ok("set_host_tools", tools=[ECHO_HOST])
    frames = client.run("BADHOST calls")
    ends = [f for f in frames if f["type"] == "tool_execution_end"]
    assert [e["isError"] for e in ends] == [True, True]
    texts = [e["result"]["content"][0]["text"] for e in ends]
    assert texts[0] == "Invalid arguments for tool echo_host: text: Field required"
    assert texts[1] == "Invalid arguments for tool echo_host: text: Input should be a valid string"
    assert not any(f["type"] == "host_tool_call" for f in frames)


def test_eof_fails_an_open_host_tool_call_and_exits_zero(fresh_rpc):
    client = fresh_rpc()
    client.ok("set_host_tools", tools=[ECHO_HOST])
    start = client.mark()
    client.request("prompt", message="HOST then leave")
    client.wait_for(lambda f: f["type"] == "host_tool_call", start)
    began = time.monotonic()
    assert client.close() == 0
    assert time.monotonic() - began < 10
    end = next(f for f in client.since(start) if f["type"] == "tool_execution_end")
    assert end["isError"] is True
    assert end["result"]["content"][0]["text"] == "the RPC host closed the connection"
    assert "Traceback" not in client.stderr()


def test_host_tools_belong_to_the_connection_and_outlive_a_session(fresh_rpc):
    # set_host_tools registers them for the process: a new session still has them
    client = fresh_rpc()
    client.ok("set_host_tools", tools=[ECHO_HOST])
    assert client.ok("new_session") == {"cancelled": False}
    frames = client.run("BADHOST calls")
    ends = [f for f in frames if f["type"] == "tool_execution_end"]
    text = ends[0]["result"]["content"][0]["text"]
    assert text == "Invalid arguments for tool echo_host: text: Field required"
