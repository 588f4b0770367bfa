"""Registering the provider plugins loads no API's wire code (issue 10): a run
registers all four APIs' providers but talks to one, so only that one's wire, convert
and parse modules load, on its first request."""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROBE = """
import json, sys
from types import SimpleNamespace
import omp_provider_anthropic.plugin as a, omp_provider_google.plugin as g
import omp_provider_openai_completions.plugin as c, omp_provider_openai_responses.plugin as r

from pathlib import Path
api = SimpleNamespace(agent_dir=Path(sys.argv[1]))
providers = [p for m in (a, g, c, r) for p in m.omp_register_providers(api=api)]
loaded = lambda: sorted(m for m in sys.modules if m.startswith("omp_provider_")
                        and not m.endswith(".plugin") and "." in m)
before = loaded()
openai = next(p for p in providers if p.api == "openai-completions")
from omp_provider_openai_completions.wire import WIRE
print(json.dumps({"apis": sorted({p.api for p in providers}), "before": before,
                  "wire": openai.wire is WIRE, "after": loaded()}))
"""


def test_registering_providers_loads_no_wire_code(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    env["HOME"] = str(tmp_path)
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "agent")],
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert found["apis"] == [
        "anthropic-messages",
        "google-generative-ai",
        "openai-completions",
        "openai-responses",
    ]
    assert found["before"] == []
    assert found["wire"] is True
    assert all(m.startswith("omp_provider_openai_completions.") for m in found["after"])
