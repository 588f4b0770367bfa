"""Every command of §2.3 that has a feature here, against one shared rpc process (the
tests run in file order; each leaves the session usable for the next)."""

from __future__ import annotations

from pathlib import Path


def test_prompt_streams_omp_event_frames(rpc):
    frames = rpc.run("hello")
    kinds = [f["type"] for f in frames]
    ack = next(f for f in frames if f["type"] == "response")
    assert set(ack) == {"id", "type", "command", "success"}
    assert kinds.index("response") < kinds.index("agent_start")
    for kind in ("agent_start", "turn_start", "message_start", "message_update", "message_end"):
        assert kind in kinds
    assert kinds.index("agent_start") < kinds.index("turn_end") < kinds.index("agent_end")
    update = next(f for f in frames if f["type"] == "message_update")
    event = update["assistantMessageEvent"]
    assert event["type"] in ("start", "text_start", "text_delta", "text_end")
    assert event["partial"]["role"] == "assistant"
    assert update["message"] == event["partial"]
    delta = next(
        f for f in frames if f.get("assistantMessageEvent", {}).get("type") == "text_delta"
    )
    assert delta["assistantMessageEvent"]["contentIndex"] == 0
    assert isinstance(delta["assistantMessageEvent"]["delta"], str)
    user = next(f["message"] for f in frames if f["type"] == "message_start")
    assert user["role"] == "user" and user["content"] == "hello"
    assert isinstance(user["timestamp"], int)
    assistant = [f["message"] for f in frames if f["type"] == "message_end"][-1]
    assert assistant["content"] == [{"type": "text", "text": "Hello from the script"}]
    assert assistant["stopReason"] == "stop"
    assert {"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"} <= set(
        assistant["usage"]
    )
    assert assistant["provider"] == "scripted" and assistant["model"] == "demo"
    end = next(f for f in frames if f["type"] == "agent_end")
    assert end["isTerminal"] is True and len(end["messages"]) == 2


def test_tool_execution_frames_carry_omp_fields(rpc):
    frames = rpc.run("SLOW tools")
    start = next(f for f in frames if f["type"] == "tool_execution_start")
    assert {"toolCallId", "toolName", "args"} <= set(start)
    end = next(f for f in frames if f["type"] == "tool_execution_end")
    assert end["toolName"] == "slow" and end["isError"] is False
    assert end["result"]["content"][0]["type"] == "text"
    turn_end = next(f for f in frames if f["type"] == "turn_end")
    assert turn_end["toolResults"][0]["role"] == "toolResult"
    result = turn_end["toolResults"][0]
    assert {"toolCallId", "toolName", "content", "isError", "timestamp"} <= set(result)


def test_get_state_has_every_rpc_session_state_field(rpc):
    state = rpc.ok("get_state")
    for key in (
        "model",
        "thinkingLevel",
        "isStreaming",
        "isCompacting",
        "steeringMode",
        "followUpMode",
        "interruptMode",
        "sessionFile",
        "sessionId",
        "autoCompactionEnabled",
        "fastModeEnabled",
        "fastModeActive",
        "tokensPerSecond",
        "messageCount",
        "queuedMessageCount",
        "todoPhases",
        "systemPrompt",
        "contextUsage",
    ):
        assert key in state, key
    assert state["model"]["provider"] == "scripted" and state["model"]["id"] == "demo"
    assert state["model"]["contextWindow"] == 200_000
    assert state["isStreaming"] is False and state["messageCount"] == 7
    assert (state["steeringMode"], state["followUpMode"], state["interruptMode"]) == (
        "one-at-a-time",
        "one-at-a-time",
        "immediate",
    )
    assert set(state["contextUsage"]) == {"tokens", "contextWindow", "percent"}
    tools = {t["name"]: t for t in state["dumpTools"]}
    assert {"read", "bash", "slow", "ask"} <= set(tools)
    assert set(tools["slow"]) == {"name", "description", "parameters"}
    assert tools["slow"]["description"] == "Takes a while"
    assert tools["slow"]["parameters"]["type"] == "object"
    assert set(tools["slow"]["parameters"]["properties"]) == {"n", "seconds"}


def test_queue_and_interrupt_modes(rpc):
    assert rpc.ok("set_steering_mode", mode="all") is None
    assert rpc.ok("set_follow_up_mode", mode="all") is None
    assert rpc.ok("set_interrupt_mode", mode="wait") is None
    state = rpc.ok("get_state")
    assert (state["steeringMode"], state["followUpMode"], state["interruptMode"]) == (
        "all",
        "all",
        "wait",
    )
    assert rpc.request("set_steering_mode", mode="sometimes")["success"] is False
    for kind, mode in (
        ("set_steering_mode", "one-at-a-time"),
        ("set_follow_up_mode", "one-at-a-time"),
        ("set_interrupt_mode", "immediate"),
    ):
        rpc.ok(kind, mode=mode)


def test_models_and_thinking(rpc):
    models = rpc.ok("get_available_models")["models"]
    assert any(m["provider"] == "scripted" and m["id"] == "demo" for m in models)
    model = rpc.ok("set_model", provider="scripted", modelId="demo")
    assert model["id"] == "demo"
    missing = rpc.request("set_model", provider="nope", modelId="none")
    assert missing["error"] == "Model not found: nope/none"
    assert rpc.ok("cycle_model") is None  # one usable model: nothing to cycle to
    assert rpc.ok("set_thinking_level", level="high") is None
    assert rpc.ok("get_state")["thinkingLevel"] == "high"
    assert rpc.request("set_thinking_level", level="max")["success"] is False
    assert rpc.ok("cycle_thinking_level") is None  # the scripted model does not reason
    rpc.ok("set_thinking_level", level="off")


def test_auto_compaction_and_retry_switches(rpc):
    rpc.ok("set_auto_compaction", enabled=False)
    assert rpc.ok("get_state")["autoCompactionEnabled"] is False
    rpc.ok("set_auto_compaction", enabled=True)
    assert rpc.ok("get_state")["autoCompactionEnabled"] is True
    assert rpc.ok("set_auto_retry", enabled=False) is None
    assert rpc.ok("set_auto_retry", enabled=True) is None
    assert rpc.ok("abort_retry") is None
    assert rpc.request("set_auto_retry", enabled="yes")["success"] is False


def test_bash_records_the_command_and_returns_omp_bash_result(rpc):
    result = rpc.ok("bash", command="printf 'one\\ntwo\\n'; exit 3")
    assert result["output"] == "one\ntwo\n"
    assert result["exitCode"] == 3 and result["cancelled"] is False
    assert result["truncated"] is False
    assert (result["totalLines"], result["outputLines"]) == (2, 2)
    assert result["totalBytes"] == result["outputBytes"] == 8
    messages = rpc.ok("get_messages")["messages"]
    assert messages[-1]["role"] == "bashExecution" and messages[-1]["exitCode"] == 3


def test_session_stats_and_texts(rpc):
    stats = rpc.ok("get_session_stats")
    assert stats["userMessages"] == 2 and stats["assistantMessages"] == 3
    assert stats["toolCalls"] == 2 and stats["toolResults"] == 2
    assert stats["totalMessages"] == 8
    assert set(stats["tokens"]) == {
        "input",
        "output",
        "reasoning",
        "cacheRead",
        "cacheWrite",
        "total",
    }
    assert stats["tokens"]["total"] >= stats["tokens"]["input"] > 0
    assert stats["sessionId"] == rpc.ok("get_state")["sessionId"]
    assert rpc.ok("get_last_assistant_text") == {"text": "slow done"}
    branch = rpc.ok("get_branch_messages")["messages"]
    assert [m["text"] for m in branch] == ["hello", "SLOW tools"]
    assert all(isinstance(m["entryId"], str) for m in branch)


def test_messages_page_cursor_limits_and_stale(rpc):
    total = len(rpc.ok("get_messages")["messages"])
    first = rpc.ok("get_messages_page", limit=3)
    assert len(first["messages"]) == 3 and first["totalMessages"] == total
    second = rpc.ok("get_messages_page", cursor=first["nextCursor"], limit=300)
    assert len(second["messages"]) == total - 3 and "nextCursor" not in second
    assert first["messages"] + second["messages"] == rpc.ok("get_messages")["messages"]
    rpc.run("hello again")
    stale = rpc.request("get_messages_page", cursor=first["nextCursor"])
    assert stale["success"] is False and stale["code"] == "stale_cursor"
    assert stale["error"] == "RPC message cursor is stale"


def test_messages_page_is_refused_while_streaming(rpc):
    start = rpc.mark()
    rpc.request("prompt", message="DELAY a bit")
    rpc.wait_for(lambda f: f["type"] == "agent_start", start)
    busy = rpc.request("get_messages_page")
    assert busy["success"] is False and busy["code"] == "session_busy"
    assert busy["error"] == "Cannot page messages while the session is changing"
    rpc.wait_for(lambda f: f["type"] == "agent_end", start)


def test_session_name_commands_and_export(rpc):
    assert rpc.ok("set_session_name", name="my rpc work") is None
    assert rpc.ok("get_state")["sessionName"] == "my rpc work"
    commands = rpc.ok("get_available_commands")["commands"]
    names = {c["name"] for c in commands}
    assert {"compact", "export"} <= names
    assert all(c["source"] for c in commands)
    by_name = {c["name"]: c for c in commands}
    assert by_name["name"]["input"] == {"hint": "[NAME]"}  # the command's argument hint
    assert set(by_name["name"]) == {"name", "description", "input", "source"}
    startup = rpc.frames[1:4]
    assert any(f["type"] == "available_commands_update" for f in startup)
    target = rpc.cwd / "out" / "transcript.html"
    assert rpc.ok("export_html", outputPath=str(target)) == {"path": str(target)}
    assert "<html" in target.read_text(encoding="utf-8").lower()


def test_slash_command_prompt_reports_agent_not_invoked(rpc):
    start = rpc.mark()
    answer = rpc.request("prompt", message="/name renamed by command")
    assert answer["success"] is True
    result = rpc.wait_for(lambda f: f["type"] == "prompt_result", start)
    assert result == {"type": "prompt_result", "id": answer["id"], "agentInvoked": False}
    assert rpc.ok("get_state")["sessionName"] == "renamed by command"


def test_slash_command_that_starts_a_turn_is_not_reported_local_only(rpc):
    start = rpc.mark()
    answer = rpc.request("prompt", message="/kick off")
    assert answer["success"] is True
    end = rpc.wait_for(lambda f: f["type"] == "agent_end", start)
    assert end["messages"][0]["content"] == "kicked off"
    assert rpc.ok("get_state")["isStreaming"] is False
    assert not any(f["type"] == "prompt_result" for f in rpc.since(start))


def test_a_failing_slash_command_answers_its_prompt_once(rpc):
    # one response per id: a failure after the prompt was accepted is its prompt_result
    start = rpc.mark()
    answer = rpc.request("prompt", message="/boom")
    assert answer["success"] is True
    result = rpc.wait_for(lambda f: f["type"] == "prompt_result", start)
    assert result == {
        "type": "prompt_result",
        "id": answer["id"],
        "agentInvoked": False,
        "error": "/boom failed: RuntimeError: the command is broken",
    }
    frames = rpc.since(start)
    assert [f for f in frames if f.get("id") == answer["id"]] == [answer, result]
    [error] = [f for f in frames if f["type"] == "extension_error"]
    assert error["event"] == "command /boom"
    assert error["error"] == "RuntimeError: the command is broken"
    assert "rpc_extension" in error["extensionPath"]

    start = rpc.mark()  # a command refusing its input: the user's error, not the plugin's
    answer = rpc.request("prompt", message="/tree nosuchentry")
    result = rpc.wait_for(lambda f: f["type"] == "prompt_result", start)
    assert answer["success"] is True and result["id"] == answer["id"]
    assert "nosuchentry" in result["error"] and "\n" not in result["error"]
    frames = rpc.since(start)
    assert [f for f in frames if f.get("id") == answer["id"]] == [answer, result]
    assert not any(f["type"] == "extension_error" for f in frames)
    assert rpc.ok("get_state")["isStreaming"] is False


def test_compact_returns_omp_compaction_result(rpc):
    before = rpc.ok("get_state")["messageCount"]
    result = rpc.ok("compact", customInstructions="SUMMARIZE_ME briefly")
    assert result["summary"] and isinstance(result["tokensBefore"], int)
    assert "firstKeptEntryId" in result
    assert rpc.ok("get_state")["messageCount"] <= before


def test_branch_new_and_switch_session(rpc):
    old = rpc.ok("get_state")
    user = rpc.ok("get_branch_messages")["messages"]
    assert rpc.request("branch", entryId="nope")["success"] is False
    branched = rpc.ok("branch", entryId=user[-1]["entryId"])
    assert branched == {"text": user[-1]["text"], "cancelled": False}
    assert rpc.ok("get_state")["sessionId"] != old["sessionId"]

    start = rpc.mark()
    assert rpc.ok("new_session") == {"cancelled": False}
    # as omp: a new session announces its commands again
    assert any(f["type"] == "available_commands_update" for f in rpc.since(start))
    fresh = rpc.ok("get_state")
    assert fresh["messageCount"] == 0 and fresh["sessionId"] != old["sessionId"]
    rpc.run("hello in the new session")

    assert rpc.ok("switch_session", sessionPath=old["sessionFile"]) == {"cancelled": False}
    back = rpc.ok("get_state")
    assert back["sessionId"] == old["sessionId"]
    assert back["messageCount"] >= 1
    missing = rpc.request("switch_session", sessionPath=str(Path(rpc.root) / "none.jsonl"))
    assert missing["success"] is False and "no such file" in missing["error"]


def test_tokens_per_second_of_the_last_reply(fresh_rpc):
    client = fresh_rpc()
    assert client.ok("get_state")["tokensPerSecond"] is None  # no reply yet
    frames = client.run("DELAY a measurable reply")
    reply = [f["message"] for f in frames if f["type"] == "message_end"][-1]
    rate = client.ok("get_state")["tokensPerSecond"]
    # output tokens over the reply's 1.5 s or more (the scripted delay)
    assert 0 < rate <= reply["usage"]["output"] / 1.5
    client.ok("new_session")
    assert client.ok("get_state")["tokensPerSecond"] is None


def test_available_commands_name_their_source_as_omp_does(fresh_rpc):
    skill = "---\nname: tidy\ndescription: Tidy the code\n---\nTidy everything.\n"
    client = fresh_rpc(
        agent_files={
            "prompts/greet.md": "---\ndescription: Greet someone\n---\nSay hello to $1\n",
            "skills/tidy/SKILL.md": skill,
        }
    )
    commands = {c["name"]: c for c in client.ok("get_available_commands")["commands"]}
    assert commands["compact"]["source"] == "builtin"
    assert commands["name"]["source"] == "extension"
    assert commands["greet"]["source"] == "file"
    assert commands["skill:tidy"]["source"] == "skill"


def test_a_plugin_command_carries_its_own_source(fresh_rpc, tmp_path):
    extension = tmp_path / "sourced.py"
    extension.write_text(
        "import omp\n\n\n@omp.hookimpl\ndef omp_register_commands(api):\n"
        "    return [omp.Command('team-tidy', 'a team skill', lambda a, c: None, source='skill')]\n"
    )
    client = fresh_rpc("-e", str(extension))
    commands = {c["name"]: c for c in client.ok("get_available_commands")["commands"]}
    assert commands["team-tidy"]["source"] == "skill"
