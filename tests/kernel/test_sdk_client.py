"""The SDK from a client's side (a run mode, an editor): the public ``omp.AgentSession``
gives what the print, json and ACP modes need, and ``omp.create_session`` opens a
session as an ``omp`` command line would (``cli_flags``)."""

from __future__ import annotations

import asyncio

import omp
import pytest


def _open(harness, steps, **options):
    options.setdefault("cwd", harness.cwd)
    options.setdefault("session", "memory")
    options.setdefault("plugins", ["scripted", "read"])
    return omp.create_session(flags={"script": str(harness.script(steps))}, **options)


class AskBeforeRead:
    """Asks about every ``read`` call, and says what it saw of the session's state."""

    def __init__(self) -> None:
        self.seen_state: object = None

    @omp.hookimpl
    def omp_register_commands(self, api):
        return [omp.Command("hello", "say hello", lambda args, ctx: None)]

    @omp.hookimpl
    def omp_session_start(self, event, ctx):
        self.seen_state = ctx.state.get("client")

    @omp.hookimpl
    def omp_tool_call(self, event, ctx):
        return omp.ToolCallDecision(ask=True, reason="reading is watched")


class Yes(omp.UI):
    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    async def _ask_confirm(self, title, message):
        self.asked.append(title)
        return True


def test_a_client_attaches_its_ui_guards_approvals_and_hands_plugins_state(omp_harness):
    (omp_harness.cwd / "notes.txt").write_text("some notes\n")
    steps = [
        {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
        {"text": "read it"},
        {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
        {"text": "read it again"},
    ]
    plugin = AskBeforeRead()
    ui = Yes()
    gated: list[tuple[str, str | None]] = []

    async def gate(call, decide):
        denied = await decide()
        gated.append((call.name, denied))
        return denied

    async def main():
        async with _open(omp_harness, steps, extra_plugins=[plugin]) as session:
            assert session.approval_mode == "write"
            session.state["client"] = "editor"
            session.attach_client(ui=ui)
            session.guard_approval(gate)
            first = await session.prompt("read my notes")
            session.approval_mode = "yolo"
            second = await session.prompt("again")
            with pytest.raises(omp.OmpError, match="unknown approval mode 'sometimes'"):
                session.approval_mode = "sometimes"  # type: ignore[assignment]
            return first, second, [c.name for c in session.commands]

    first, second, commands = asyncio.run(main())
    assert (first.text, second.text) == ("read it", "read it again")
    assert ui.asked == ["Allow read?"]  # yolo asks no more
    assert gated == [("read", None), ("read", None)]
    assert plugin.seen_state == "editor"
    assert "hello" in commands and commands == sorted(commands)


def test_a_client_replaces_a_tool_and_sees_the_tools_renderers(omp_harness):
    class EchoRead(omp.Tool):
        def __init__(self, original: omp.Tool) -> None:
            super().__init__(
                name=original.name,
                description=original.description,
                parameters=original.parameters,
            )

        async def execute(self, call_id, args, signal=None, on_update=None, ctx=None):
            return omp.ToolResult.text(f"client read {args.path}")

    steps = [
        {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
        {"text": "done"},
    ]

    async def main():
        async with _open(omp_harness, steps) as session:
            original = session.tool("read")
            assert original is not None and session.tool("nosuch") is None
            session.replace_tool(EchoRead(original))
            await session.prompt("read")
            assert session.renderer("tool", "read") is None
            assert session.tool_rendering().call("read", {"path": "x"}, {}) is None
            return [m for m in session.messages if m.role == "toolResult"]

    (result,) = asyncio.run(main())
    assert omp.content_text(result.content) == "client read notes.txt"


def test_cli_flags_open_the_session_as_the_command_line_would(omp_harness):
    async def main():
        async with _open(
            omp_harness,
            [{"text": "ok"}],
            session="new",
            cli_flags={"no-session": True, "thinking": "high", "api-key": "sk-live-0123456789"},
        ) as session:
            assert session.session_file is None
            assert session.thinking_level == "high"
            assert session.flags["api-key"] == "sk-live-0123456789"
            assert session.header["id"] == session.session_id
            assert [m.key for m in session.usable_models()] == ["scripted/demo"]
            secret = session.redact("key sk-live-0123456789 here")
            frame = session.redact_bytes(b'{"key":"sk-live-0123456789"}')
        async with _open(
            omp_harness, [{"text": "ok"}], thinking="low", cli_flags={"thinking": "high"}
        ) as explicit:
            return secret, frame, explicit.thinking_level

    secret, frame, level = asyncio.run(main())
    assert "sk-live-0123456789" not in secret and secret.startswith("key ")
    assert b"sk-live-0123456789" not in frame
    assert level == "low"  # an explicit keyword wins over the command line


def test_run_prompts_stops_after_a_failed_prompt(omp_harness):
    steps = [{"text": "one"}, {"error": "the model fell over"}, {"text": "never asked"}]

    async def main():
        async with _open(omp_harness, steps) as session:
            answer = await session.run_prompts(["first", "second", "third"])
            return answer, [m.role for m in session.messages]

    answer, roles = asyncio.run(main())
    assert answer.stop_reason == "error" and "fell over" in answer.error_message
    assert roles == ["user", "assistant", "user", "assistant"]


def test_a_run_mode_asking_for_it_gets_the_public_session(omp_harness, capsys):
    from omp.runtime.modes import ModeRequest, run_mode

    got = []

    async def run(session, request):
        got.append(type(session))
        answer = await session.run_prompts(request.prompts)
        print(answer.text)
        return 0

    session = omp_harness.session(script=[{"text": "from the public session"}])
    mode = omp.RunMode("public", "a mode on the SDK", run=run, public_session=True)
    assert run_mode(mode, session, ModeRequest(prompts=["hi"])) == 0
    assert got == [omp.AgentSession]
    assert capsys.readouterr().out == "from the public session\n"
