"""Fixtures of the batch tests: a private home and agent directory, scripts for the
scripted provider, and a runner of ``omp batch`` in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from isolation import isolated_env


class Batch:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.work = root / "work"
        self.work.mkdir()
        (self.work / "a.txt").write_text("hello\n")
        self.env = isolated_env(root)
        self.env.pop("OMP_TRACE_PLUGINS", None)  # workers of many tasks: no per-hook trace
        self._scripts = 0

    def script(self, *steps: dict[str, Any]) -> str:
        self._scripts += 1
        path = self.root / f"script-{self._scripts}.jsonl"
        path.write_text("".join(json.dumps(s) + "\n" for s in steps))
        return str(path)

    def tasks(self, tasks: list[dict[str, Any]], name: str = "tasks.jsonl") -> Path:
        path = self.root / name
        path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
        return path

    def scripted_tasks(self, count: int, *steps: dict[str, Any]) -> Path:
        """``count`` tasks ``t0``, ``t1``... in ``work``, each replaying ``steps``."""
        script = self.script(*steps)
        return self.tasks(
            [
                {"id": f"t{n}", "prompt": "x", "cwd": "work", "flags": {"script": script}}
                for n in range(count)
            ]
        )

    def proxy_model(self, server_url: str, model: dict[str, Any], **batch_settings: Any) -> None:
        """``proxy/<model id>``: an OpenAI-compatible provider at ``server_url`` (a
        ReplayServer), its key in the environment; ``batch_settings`` in settings.json."""
        from replay import PROXY_SECRET

        agent = self.root / "agent"
        agent.mkdir(exist_ok=True)
        provider = {
            "baseUrl": f"{server_url}/v1",
            "api": "openai-completions",
            "apiKey": "PROXY_KEY",
            "models": [model],
        }
        (agent / "models.json").write_text(json.dumps({"providers": {"proxy": provider}}))
        if batch_settings:
            (agent / "settings.json").write_text(json.dumps({"batch": batch_settings}))
        self.env["PROXY_KEY"] = PROXY_SECRET

    def start(self, *args: str, **options: Any) -> subprocess.Popen[str]:
        """``omp batch *args`` started, not waited for (``options`` go to Popen)."""
        return subprocess.Popen(
            self.command(*args), cwd=self.root, env=self.env, text=True, **options
        )

    def crasher(self) -> str:
        """An extension that kills its worker process the first time a session starts
        (as a lost node would), and does nothing after that."""
        marker = self.root / "crashed-once"
        path = self.root / "crasher.py"
        path.write_text(
            "import os\nimport omp\n\n\n@omp.hookimpl\ndef omp_session_start(ctx):\n"
            f"    if not os.path.exists({str(marker)!r}):\n"
            f"        open({str(marker)!r}, 'w').close()\n"
            "        os._exit(9)\n"
        )
        return str(path)

    def command(self, *args: str) -> list[str]:
        omp = Path(sys.executable).with_name("omp")
        return [str(omp), "batch", *args]

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.command(*args),
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    def results(self, out: str = "out") -> list[dict[str, Any]]:
        path = self.root / out / "results.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def batch(tmp_path: Path) -> Batch:
    return Batch(tmp_path)


@pytest.fixture(scope="session")
def make_batch() -> type[Batch]:
    """For module-scoped fixtures: ``make_batch(folder)``."""
    return Batch


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "ray: starts a local Ray instance (slow; run once in CI)")
