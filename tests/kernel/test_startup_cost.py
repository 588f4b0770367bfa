"""What a run pays before its first request (issue 10): message and event models are
built on first use, not at import, so a run builds only the few it uses."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from functools import partial
from types import SimpleNamespace

PROBE = """
import json, sys
import omp.agent.events, omp.agent.messages, omp.agent.providers, omp.agent.tools

def every(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from every(sub)

models = sorted({c for c in every(omp.agent.messages.WireModel)}, key=lambda c: c.__qualname__)
built = [c.__qualname__ for c in models if c.__pydantic_complete__]
omp.agent.messages.UserMessage(content="hi")
after = [c.__qualname__ for c in models if c.__pydantic_complete__]
print(json.dumps({"models": len(models), "built": built, "after": after}))
"""


def test_importing_the_models_builds_none_of_them():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    ).stdout
    found = json.loads(out)
    assert found["models"] > 50
    assert found["built"] == []
    assert found["after"] == ["UserMessage"]  # the first use builds that one only


def test_the_console_script_freezes_startup_and_skips_the_exit_collection(
    monkeypatch, capsys, tmp_path
):
    """Startup makes long-lived objects only: omp collects nothing during it, then
    freezes what it made so that the run's collections walk only the run's objects;
    at exit it freezes the heap instead of letting the exit-time collection walk it
    (about 40 ms after a run). Called with an argument list (embedded, in tests),
    main() leaves the collector alone."""
    import omp.cli.main
    from omp.cli.main import main

    calls: list[str] = []
    recorder = SimpleNamespace(
        **{n: partial(calls.append, n) for n in ("disable", "enable", "freeze")}
    )
    monkeypatch.setattr(omp.cli.main, "gc", recorder)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    run = ["-p", "hi", "--model", "scripted/demo", "--no-session"]
    assert main(run) == 0
    assert calls == []
    monkeypatch.setattr(sys, "argv", ["omp", *run])
    assert main() == 0
    assert calls == ["disable", "freeze", "enable", "disable", "freeze"]
    monkeypatch.setattr(sys, "argv", ["omp", "--help"])
    calls.clear()
    assert main() == 0
    assert calls == ["disable", "disable", "freeze"]
    assert "usage" in capsys.readouterr().out.lower()


WAITING_INPUT = """
import asyncio, sys
from pathlib import Path
import omp
from omp.agent import warmup
@omp.hookimpl
async def omp_input(ctx):
    if {wait}:
        await asyncio.sleep(0.3)  # as MCP's startup gate holds a first prompt
    left = [m.__name__ for m in warmup.PROMPT_MODELS if not m.__pydantic_complete__]
    left += [m for m in warmup.PROMPT_MODULES if m not in sys.modules]
    Path({out!r}).write_text(" ".join(left))
"""


def _not_ready_after_input(tmp_path, wait: bool) -> list[str]:
    from isolation import run_omp

    out = tmp_path / f"left-{wait}"
    extension = tmp_path / f"input-{wait}.py"
    extension.write_text(WAITING_INPUT.format(wait=wait, out=str(out)), encoding="utf-8")
    script = tmp_path / "script.jsonl"
    script.write_text('{"text": "ok"}\n', encoding="utf-8")
    proc = run_omp(tmp_path, "-p", "--script", str(script), "-e", str(extension), "hi")
    assert proc.returncode == 0, proc.stderr
    return out.read_text().split()


def test_a_prompt_held_by_an_input_hook_gets_its_models_built_meanwhile(tmp_path):
    """While a first prompt waits (an input hook awaiting MCP's gate, say), the models
    and modules its run needs are made ready, so its own path after the wait is short;
    a prompt that does not wait is not made to do that work first."""
    assert _not_ready_after_input(tmp_path, wait=True) == []
    left = _not_ready_after_input(tmp_path, wait=False)
    assert "UserMessage" in left and "AssistantMessage" in left


HELP_PROBE = """
import sys
from omp.cli.main import main
code = main(["--help"])
sys.stdout.flush()
print("LOADED:", " ".join(sorted(sys.modules)), file=sys.stderr)
sys.exit(code)
"""

# What `omp --help` has no use for: the UI and its event loop (asyncio, ssl),
# logging, uuid (platform), difflib, the agent and session floors, the heavy libraries.
NOT_FOR_HELP = (
    "asyncio",
    "ssl",
    "subprocess",
    "logging",
    "uuid",
    "platform",
    "difflib",
    "pydantic",
    "httpx",
    "rich",
    "prompt_toolkit",
)
NOT_FOR_HELP_PREFIXES = ("omp.agent.", "omp.session.", "omp.runtime.ui")
REGISTRATION_DATA = {
    "omp_compaction.settings",
    "omp_sequential_thinking.names",
    "omp_tool_bash.limits",
}
"""The plugin modules besides entry modules that registration reads (settings, names):
data only, importing nothing else."""


def test_help_loads_only_what_registration_needs(tmp_path):
    """`omp --help` imports every plugin's entry module to list its flags, commands and
    modes: those import their implementation (tools, modes, UIs) when it runs, not
    then, and the kernel builds no UI, session or agent for it (issue 25: --help at
    or below the cost from before the kernel split)."""
    from isolation import isolated_env

    for sub in ("work", "agent", "home"):
        (tmp_path / sub).mkdir()
    env = isolated_env(tmp_path)
    env.pop("OMP_TRACE_PLUGINS", None)  # tracing is not what a user's --help loads
    proc = subprocess.run(
        [sys.executable, "-c", HELP_PROBE],
        cwd=tmp_path / "work",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "--script" in proc.stdout  # a plugin's flag: the plugins were loaded
    loaded = proc.stderr.rpartition("LOADED:")[2].split()
    assert sorted(set(loaded) & set(NOT_FOR_HELP)) == []
    assert [m for m in loaded if m.startswith(NOT_FOR_HELP_PREFIXES)] == []
    plugin_modules = [m for m in loaded if m.startswith("omp_") and "." in m]
    extra = [m for m in plugin_modules if not m.endswith(".plugin")]
    assert sorted(set(extra) - REGISTRATION_DATA) == []
