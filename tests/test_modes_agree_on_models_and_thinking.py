"""The interactive, RPC and ACP modes offer the same usable models and cycle through the
same thinking levels (``omp.base.thinking``): a reasoning model without ``xhigh`` in its
``thinkingLevelMap`` never offers xhigh, and a built-in provider without its key
(anthropic, in the private environment) is not offered."""

from __future__ import annotations

import asyncio
import json
import subprocess

import omp
from isolation import isolated_env, omp_command
from omp.testing import write_script

PROVIDERS = {
    "peer": {
        "baseUrl": "http://127.0.0.1:9/v1",
        "api": "openai-completions",
        "apiKey": "unused",
        "models": [{"id": "local", "name": "Peer local", "reasoning": True}],
    },
}
CYCLE_FROM_OFF = ["minimal", "low", "medium", "high", "off"]


def _write_models(agent_dir) -> None:
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "models.json").write_text(json.dumps({"providers": PROVIDERS}))


def _interactive(omp_harness) -> tuple[set[str], list[str]]:
    from omp_mode_interactive.app import InteractiveApp
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    _write_models(omp_harness.agent_dir)
    session = omp_harness.session(script=[{"text": "ok", "repeat": True}])

    async def body() -> tuple[set[str], list[str]]:
        await session.start()
        try:
            with create_pipe_input() as pipe, create_app_session(pipe, DummyOutput()):
                app = InteractiveApp(omp.AgentSession(session), None)
                models = {key for key, _ in app.model_choices()}
                assert any(m.provider == "anthropic" for m in session.models.models)
                assert session.set_model("peer/local")
                session.set_thinking_level("off")
                levels = []
                for _ in CYCLE_FROM_OFF:
                    app.cycle_thinking()
                    levels.append(session.agent.thinking_level)
                return models, levels
        finally:
            await session.shutdown()

    return asyncio.run(body())


def _rpc(root) -> tuple[set[str], list[str]]:
    _write_models(root / "agent")
    (root / "work").mkdir(parents=True, exist_ok=True)
    script = write_script(root / "script.jsonl", [{"text": "ok", "repeat": True}])
    frames = [
        {"id": "models", "type": "get_available_models"},
        {"type": "set_model", "provider": "peer", "modelId": "local"},
        {"type": "set_thinking_level", "level": "off"},
        *({"id": f"cycle{i}", "type": "cycle_thinking_level"} for i in range(len(CYCLE_FROM_OFF))),
    ]
    done = subprocess.run(
        [*omp_command(), "--mode", "rpc", "--script", str(script)],
        input="".join(json.dumps(f) + "\n" for f in frames),
        capture_output=True,
        text=True,
        cwd=root / "work",
        env=isolated_env(root),
        timeout=60,
    )
    answers = {}
    for line in done.stdout.splitlines():
        frame = json.loads(line)
        if frame.get("type") == "response" and frame.get("id"):
            answers[frame["id"]] = frame
    assert "models" in answers, done.stderr
    models = {f"{m['provider']}/{m['id']}" for m in answers["models"]["data"]["models"]}
    levels = [answers[f"cycle{i}"]["data"]["level"] for i in range(len(CYCLE_FROM_OFF))]
    return models, levels


def _acp(root) -> tuple[set[str], list[str]]:
    from acp import PROTOCOL_VERSION, schema, spawn_agent_process

    _write_models(root / "agent")
    (root / "work").mkdir(parents=True, exist_ok=True)
    script = write_script(root / "script.jsonl", [{"text": "ok", "repeat": True}])

    class Editor:
        async def session_update(self, session_id, update, **kwargs) -> None:
            pass

        def on_connect(self, conn) -> None:
            pass

    async def body() -> tuple[set[str], list[str]]:
        async with spawn_agent_process(
            Editor(),
            *omp_command(),
            "acp",
            "--script",
            str(script),
            env=isolated_env(root),
            cwd=root / "work",
            transport_kwargs={"stderr": None},
        ) as (conn, _process):
            await conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=schema.ClientCapabilities(),
            )
            sid = (await conn.new_session(cwd=str(root / "work"), mcp_servers=[])).session_id
            await conn.set_config_option(session_id=sid, config_id="thinking", value="off")
            changed = await conn.set_config_option(
                session_id=sid, config_id="model", value="peer/local"
            )
            options = {o.id: o for o in changed.config_options}
            models = {o.value for o in options["model"].options}
            offered = [o.value for o in options["thinking"].options]
            return models, offered[offered.index("off") + 1 :] + offered[: offered.index("off") + 1]

    return asyncio.run(body())


def test_the_three_modes_offer_the_same_models_and_thinking_cycle(omp_harness, tmp_path):
    interactive = _interactive(omp_harness)
    rpc = _rpc(tmp_path / "rpc")
    acp = _acp(tmp_path / "acp")
    assert interactive[1] == CYCLE_FROM_OFF  # no xhigh: the model does not map it
    assert rpc == acp == interactive
    assert {"scripted/demo", "peer/local"} <= interactive[0]
    assert not any(key.startswith("anthropic/") for key in interactive[0])
