"""``python -m omp_plugin_manager.probe``: load every plugin in a fresh process and
print the inventory as JSON.

``omp plugin add`` checks what it just installed here rather than in its own process:
a new editable install only reaches ``sys.path`` in a process that starts after it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from omp import OmpError, python_module_command


def main() -> int:
    from omp import SubcommandContext

    from omp_plugin_manager.inventory import build_inventory

    inventory = build_inventory(SubcommandContext.load(Path.cwd()), disabled=set())
    report = {
        "plugins": [p.as_json() for p in inventory.plugins],
        "conflicts": [c.as_json() for c in inventory.conflicts],
        "problems": inventory.registration_problems,
    }
    print(json.dumps(report))
    return 0


def probe(cwd: Path) -> dict[str, Any]:
    """The inventory as a fresh ``omp`` process would see it."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_STRICT_PLUGINS",)}
    proc = subprocess.run(
        python_module_command("omp_plugin_manager.probe"),
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = " ".join((proc.stderr or proc.stdout).split())[-400:]
        raise OmpError(f"could not load the plugins in a fresh process to check them: {tail}")
    return json.loads(lines[-1])


if __name__ == "__main__":
    raise SystemExit(main())
