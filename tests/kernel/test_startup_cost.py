"""What a run pays before its first request (issue 10): message and event models are
built on first use, not at import, so a run builds only the few it uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROBE = """
import json, sys
import omp.events, omp.messages, omp.providers, omp.tools

def every(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from every(sub)

models = sorted({c for c in every(omp.messages.WireModel)}, key=lambda c: c.__qualname__)
built = [c.__qualname__ for c in models if c.__pydantic_complete__]
omp.messages.UserMessage(content="hi")
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


def test_the_console_script_skips_the_exit_time_collection(monkeypatch, capsys, tmp_path):
    """At interpreter exit a cycle collection walks the whole heap (about 40 ms after
    a run): the process is about to end, so ``omp`` freezes the heap first. Called
    with an argument list (embedded, in tests), main() leaves the collector alone."""
    import gc

    from omp.cli.main import main

    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    monkeypatch.setattr(gc, "disable", lambda: None)
    frozen: list[bool] = []
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(tmp_path / "agent"))
    assert main(["--help"]) == 0
    assert frozen == []
    monkeypatch.setattr(sys, "argv", ["omp", "--help"])
    assert main() == 0
    assert frozen == [True]
    assert "usage" in capsys.readouterr().out.lower()
