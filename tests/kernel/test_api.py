"""Runtime actions (api) and the handler context (ctx)."""

from __future__ import annotations

import sys

import omp
import pytest
from omp.agent.tools import Tool
from omp.base.errors import OmpError, RuntimeNotReadyError
from omp.runtime.api import OmpAPI
from pydantic import BaseModel


class Empty(BaseModel):
    pass


@pytest.mark.parametrize(
    "action, args",
    [
        ("send_message", ({"custom_type": "x", "content": "y"},)),
        ("send_user_message", ("hi",)),
        ("append_entry", ("state",)),
        ("get_flag", ("script",)),
        ("get_active_tools", ()),
        ("set_model", ("test/model",)),
        ("set_thinking_level", ("low",)),
    ],
)
def test_actions_raise_while_plugins_load(action, args):
    api = OmpAPI()
    with pytest.raises(
        RuntimeNotReadyError,
        match=rf"api\.{action}\(\) cannot be called while "
        "plugins are loading",
    ):
        getattr(api, action)(*args)


def test_an_action_called_from_a_registration_hook_is_reported_with_that_reason(omp_harness):
    class Eager:
        @omp.hookimpl
        def omp_register_tools(self, api):
            api.send_message({"custom_type": "x", "content": "too early"})

    runtime = omp_harness.runtime([Eager()])
    problems = " ".join(runtime.contributions.problems)
    assert "Eager failed while registering" in problems
    assert "cannot be called while plugins are loading" in problems


class Actions:
    """A plugin that exercises the actions from its hooks and a tool."""

    def __init__(self) -> None:
        self.seen: dict = {}

    @omp.hookimpl
    def omp_register_tools(self, api):
        async def execute(call_id, params, signal, on_update, ctx):
            result = await api.exec(sys.executable, ["-c", "print('from exec')"])
            self.seen["exec"] = (result.stdout.strip(), result.code, result.killed)
            slow = await api.exec(sys.executable, ["-c", "import time; time.sleep(5)"], timeout=0.2)
            self.seen["killed"] = slow.killed
            return "ran"

        return [
            Tool(name="run", parameters=Empty, execute=execute),
            Tool(name="hidden_one", parameters=Empty, execute=lambda *a: "", hidden=True),
        ]

    @omp.hookimpl
    def omp_session_start(self, ctx, api):
        self.seen["flag"] = api.get_flag("mode")
        self.seen["active"] = api.get_active_tools()
        self.seen["all"] = [t["name"] for t in api.get_all_tools()]
        self.seen["has_ui"] = ctx.has_ui
        self.seen["cwd"] = ctx.cwd
        self.seen["model"] = ctx.model.key
        api.append_entry("actions-state", {"n": 1})
        api.set_thinking_level("high")
        self.seen["thinking"] = api.get_thinking_level()
        api.events.on("ping", lambda data: self.seen.setdefault("bus", data))
        api.events.emit("ping", {"hello": "bus"})

    @omp.hookimpl
    def omp_agent_end(self, ctx, api):
        self.seen["usage"] = ctx.get_context_usage()
        self.seen["idle"] = ctx.is_idle()
        self.seen["prompt"] = ctx.get_system_prompt()
        self.seen["entries"] = [e["type"] for e in ctx.session.entries()]


def test_actions_and_context_from_hooks_and_tools(make_session, omp_harness):
    plugin = Actions()
    session, _ = make_session(
        [{"calls": [("run", {})]}, {"text": "ok"}], plugins=[plugin], flags={"mode": "given"}
    )
    omp_harness.run(session, "go")
    seen = plugin.seen
    assert seen["exec"] == ("from exec", 0, False)
    assert seen["killed"] is True
    assert seen["flag"] == "given"
    assert "run" in seen["active"] and "hidden_one" not in seen["active"]
    assert "hidden_one" in seen["all"]
    assert seen["has_ui"] is False and seen["cwd"] == str(omp_harness.cwd)
    assert seen["model"] == "test/model"
    assert seen["thinking"] == "high"
    assert seen["bus"] == {"hello": "bus"}
    assert seen["usage"]["context_window"] == 1000 and seen["usage"]["tokens"] >= 0
    assert seen["prompt"] and "Current working directory" in seen["prompt"][-1]
    assert "custom" in seen["entries"] and "thinking_level_change" in seen["entries"]
    assert seen["idle"] is False  # agent_end fires while the run is finishing


def test_set_active_tools_changes_what_the_model_is_offered(make_session, omp_harness):
    class Narrow:
        @omp.hookimpl
        def omp_session_start(self, api):
            api.set_active_tools(["read"])

    session, provider = make_session([{"text": "ok"}], plugins=[Narrow()])
    omp_harness.run(session, "go")
    assert [t["name"] for t in provider.requests[0].tools] == ["read"]


def test_set_active_tools_rejects_unknown_names(make_session):
    session, _ = make_session([])
    with pytest.raises(OmpError, match="unknown tool"):
        session.api.set_active_tools(["no_such_tool"])


def test_set_model_switches_and_records_the_change(make_session, omp_harness, monkeypatch):
    # The scripted model's script from the environment: --script would select it at start.
    monkeypatch.setenv("OMP_SCRIPT", str(omp_harness.script([{"text": "s"}])))

    class Switch:
        @omp.hookimpl
        def omp_session_start(self, api):
            Switch.ok = api.set_model("scripted/demo")
            Switch.bad = api.set_model("nope/none")

    session, provider = make_session(
        [{"text": "never used"}],
        plugins=[Switch()],
    )
    events = omp_harness.run(session, "go")
    assert Switch.ok is True and Switch.bad is False
    assert provider.requests == []  # the scripted model answered instead
    assert events.final_text() == "s"
    assert session.session_file.build_context().model == "scripted/demo"


def test_trigger_turn_when_idle_starts_a_run(make_session, omp_harness):
    import asyncio

    session, provider = make_session([{"text": "answer to the trigger"}])

    async def scenario():
        await session.start()
        session.api.send_message({"custom_type": "wake", "content": "wake up"}, trigger_turn=True)
        await asyncio.sleep(0)
        await session.wait_for_idle()
        await session.shutdown()

    asyncio.run(scenario())
    assert len(provider.requests) == 1
    assert provider.requests[0].messages[-1].content == "wake up"


def test_send_message_when_idle_without_trigger_only_records_it(make_session):
    import asyncio

    session, provider = make_session([])

    async def scenario():
        await session.start()
        session.api.send_message({"custom_type": "note", "content": "remember this"})
        await session.wait_for_idle()

    asyncio.run(scenario())
    assert provider.requests == []
    assert session.agent.messages[-1].content == "remember this"


def test_send_user_message_when_idle_goes_through_the_prompt_flow(make_session):
    import asyncio

    class Input:
        seen = []

        @omp.hookimpl
        def omp_input(self, event):
            Input.seen.append((event.text, event.source))

    session, provider = make_session([{"text": "hi back"}], plugins=[Input()])

    async def scenario():
        await session.start()
        session.api.send_user_message("hello from a plugin")
        await asyncio.sleep(0)
        await session.wait_for_idle()

    asyncio.run(scenario())
    assert Input.seen == [("hello from a plugin", "extension")]
    assert provider.requests[0].messages[-1].content == "hello from a plugin"


def test_send_user_message_from_agent_end_becomes_the_next_prompt(make_session):
    """The run reads its queues no more once agent_end fires: a message sent then (plan
    mode's approved plan) starts the next prompt instead of waiting in a queue."""
    import asyncio

    class Chain:
        @omp.hookimpl
        def omp_agent_end(self, api):
            if len(provider.requests) == 1:
                api.send_user_message("and now this")

    session, provider = make_session([{"text": "one"}, {"text": "two"}], plugins=[Chain()])

    async def scenario():
        await session.prompt("first")
        await session.wait_for_idle()

    asyncio.run(scenario())
    assert len(provider.requests) == 2
    assert provider.requests[1].messages[-1].content == "and now this"


def test_send_user_message_with_text_and_an_image_keeps_both(make_session):
    """Content given as parts (text and an image) arrives whole, not as an empty prompt."""
    import asyncio

    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    session, provider = make_session([{"text": "seen"}])

    async def scenario():
        await session.start()
        session.api.send_user_message([{"type": "text", "text": "look at this"}, image])
        await asyncio.sleep(0)
        await session.wait_for_idle()

    asyncio.run(scenario())
    sent = provider.requests[0].messages[-1].content
    assert [part.type for part in sent] == ["text", "image"]
    assert sent[0].text == "look at this"
    assert sent[1].data == image["data"]


def test_input_hook_can_rewrite_or_handle(make_session, omp_harness):
    class Rewrite:
        @omp.hookimpl
        def omp_input(self, event):
            if event.text == "skip":
                return {"handled": True}
            return {"text": event.text.upper()}

    session, provider = make_session([{"text": "a"}], plugins=[Rewrite()])
    omp_harness.run(session, "skip", "shout")
    assert len(provider.requests) == 1
    assert provider.requests[0].messages[-1].content == "SHOUT"


def test_slash_commands_run_their_handler_instead_of_the_model(make_session, omp_harness):
    from omp.plugin.contrib import Command

    class Commands:
        ran = []

        @omp.hookimpl
        def omp_register_commands(self, api):
            async def handler(args, ctx):
                Commands.ran.append((args, ctx.is_idle()))
                await ctx.wait_for_idle()

            return [Command("hello", "Say hello", handler)]

    session, provider = make_session([{"text": "model"}], plugins=[Commands()])
    omp_harness.run(session, "/hello  world ", "/unknown stays a prompt")
    assert Commands.ran == [("world", True)]
    assert provider.requests[0].messages[-1].content == "/unknown stays a prompt"


def test_before_agent_start_can_rewrite_the_system_prompt(make_session, omp_harness):
    class Persona:
        @omp.hookimpl
        def omp_before_agent_start(self, event):
            return {"system_prompt": ["You are a pirate.", *event.system_prompt[1:]]}

    session, provider = make_session([{"text": "arr"}], plugins=[Persona()])
    omp_harness.run(session, "hi")
    assert provider.requests[0].system_prompt.startswith("You are a pirate.")


def test_duplicate_tool_names_are_reported_naming_both_plugins(omp_harness):
    from doubles import Contribute

    first = Contribute(tools=[Tool(name="dup", parameters=Empty, execute=lambda *a: "1")])
    second = Contribute(tools=[Tool(name="dup", parameters=Empty, execute=lambda *a: "2")])
    runtime = omp_harness.runtime([first, second])
    (problem,) = [p for p in runtime.contributions.problems if "dup" in p]
    assert "registered by both Contribute and Contribute-2; Contribute-2's is refused" in problem
    kept = [t for t in runtime.contributions.of("tools") if t.name == "dup"]
    assert kept == [first.tools[0]]  # the first loaded keeps the name


def test_a_command_can_branch_the_session_and_hooks_see_it(make_session, omp_harness):
    from omp.plugin.contrib import Command

    class Brancher:
        calls = []

        @omp.hookimpl
        def omp_register_commands(self, api):
            async def handler(args, ctx):
                first_user = next(e for e in ctx.session.entries() if e["type"] == "message")
                Brancher.calls.append(await ctx.branch(first_user["id"]))

            return [Command("back", "Go back to the first prompt", handler)]

        @omp.hookimpl
        def omp_session_before_branch(self, event):
            Brancher.calls.append(("before", event.entry_id))

        @omp.hookimpl
        def omp_session_branch(self, event):
            Brancher.calls.append("branched")

    session, provider = make_session(
        [{"text": "one"}, {"text": "two"}, {"text": "three"}], plugins=[Brancher()]
    )
    omp_harness.run(session, "first", "second", "/back", "third")
    assert Brancher.calls[1:] == ["branched", {"cancelled": False}]
    assert Brancher.calls[0][0] == "before"
    # after branching to the first prompt, the model no longer sees "second"
    assert [m.content for m in provider.requests[2].messages if m.role == "user"] == [
        "first",
        "third",
    ]


def test_ctx_search_goes_to_the_first_backend_that_answers(make_session, omp_harness, monkeypatch):
    import asyncio

    monkeypatch.setenv("OMP_DISABLED_PLUGINS", "natives")  # it would answer first (tryfirst)

    class Declines:
        @omp.hookimpl(tryfirst=True)
        def omp_search(self, event):
            return None

    class Answers:
        @omp.hookimpl
        def omp_search(self, event):
            return {
                "result": {"kind": event.kind, "pattern": event.params["pattern"], "cwd": event.cwd}
            }

    session, _ = make_session([], plugins=[Declines(), Answers()])

    async def scenario():
        await session.start()
        return await session.context.search("grep", pattern="TODO")

    assert asyncio.run(scenario()) == {
        "kind": "grep",
        "pattern": "TODO",
        "cwd": str(omp_harness.cwd),
    }


def test_ctx_search_of_an_unknown_kind_is_refused_in_one_line(make_session):
    import asyncio

    from omp.base.errors import OmpError

    session, _ = make_session([])

    async def scenario():
        await session.start()
        return await session.context.search("grepp", pattern="TODO")

    with pytest.raises(OmpError, match=r"^unknown search kind 'grepp': grep, find or tree$"):
        asyncio.run(scenario())


def test_ctx_search_without_a_backend_says_what_to_install(omp_harness):
    import asyncio

    from doubles import Contribute, ListProvider

    runtime = omp_harness.runtime([Contribute([ListProvider([])])], entry_points=False)
    session = omp_harness.session(runtime=runtime, model="test/model")

    async def scenario():
        await session.start()
        await session.context.search("find", pattern="*.py")

    with pytest.raises(OmpError, match="no search backend answered a find search"):
        asyncio.run(scenario())


def test_artifacts_live_in_the_session_folder_and_read_back(make_session, omp_harness):
    from omp.runtime.bootstrap import SessionOptions, open_session

    runtime = omp_harness.runtime()
    path = omp_harness.root / "s" / "session.jsonl"
    session = open_session(runtime, SessionOptions(session_path=str(path)))
    artifact_id = session.context.artifacts.save("x" * 10)
    stored = session.context.artifacts.path(f"artifact://{artifact_id}")
    assert stored.parent == path.with_suffix("") / "artifacts"
    assert stored.read_text() == "x" * 10
    with pytest.raises(OmpError, match="no artifact"):
        session.context.artifacts.path("artifact://nope.txt")


def test_file_ledger_notices_changes_since_the_last_read(tmp_path):
    from omp.session.artifacts import FileLedger

    target = tmp_path / "f.txt"
    target.write_text("one")
    ledger = FileLedger()
    assert ledger.changed_since_read(target) is None
    ledger.record(target)
    assert ledger.changed_since_read(target) is False
    import os

    target.write_text("two")
    os.utime(target, ns=(1, 1))
    assert ledger.changed_since_read(target) is True
