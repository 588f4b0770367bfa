"""A minimal custom distribution, built and installed offline into a fresh virtual
environment: kernel + scripted provider + read tool + print mode, and nothing else.

It must run with httpx, rich and prompt-toolkit absent. The build uses only this
checkout and the wheels that ``scripts/setup`` puts in ``build/wheelhouse/`` (the
kernel's third-party dependencies and the build backend): pip never reaches an index.
Without the wheelhouse the tests skip, or fail when ``OMP_REQUIRE_WHEELHOUSE=1`` (as
``scripts/test`` sets it).

Slow-ish (a venv and five wheel builds, about 20 s): the distribution is built once
for the module.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
WHEELHOUSE = REPO / "build" / "wheelhouse"
PROJECTS = ["kernel", "plugins/scripted", "plugins/read", "plugins/print-mode"]
ABSENT = ["httpx", "rich", "prompt_toolkit"]
TIMEOUT = 180

MY_OMP_PYPROJECT = """\
[build-system]
requires = ["hatchling>=1.21"]
build-backend = "hatchling.build"

[project]
name = "my-omp"
version = "0.0.1"
description = "A custom omp distribution: scripted provider, read tool, print mode"
requires-python = ">=3.11"
dependencies = ["omp-kernel", "omp-scripted", "omp-tool-read", "omp-mode-print"]

[tool.hatch.build.targets.wheel]
bypass-selection = true
"""


@dataclass
class Distribution:
    venv: Path
    python: Path
    omp: Path
    env: dict[str, str]
    work: Path
    agent_dir: Path

    def run(self, *args: str | Path) -> subprocess.CompletedProcess[str]:
        return _run([str(a) for a in args], self.env, cwd=self.work)


def _run(
    cmd: list[str], env: dict[str, str], cwd: Path, check: bool = False
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        cmd,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    if check and proc.returncode != 0:
        pytest.fail(
            f"{' '.join(cmd)} exited {proc.returncode}\n"
            f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
        )
    return proc


def _wheelhouse_ready() -> bool:
    return WHEELHOUSE.is_dir() and any(WHEELHOUSE.glob("hatchling-*.whl"))


def _offline_env(root: Path, find_links: list[Path]) -> dict[str, str]:
    """The environment of every subprocess: a scratch home, no pip configuration of
    this machine, no index, only the given local wheel directories."""
    keep = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("PIP_", "OMP_", "PI_", "XDG_", "PYTHON", "VIRTUAL_ENV"))
        and name not in {"HOME", "UV_INDEX_URL", "CONDA_PREFIX"}
    }
    home = root / "home"
    agent = root / "agent"
    for d in (home, agent, home / ".cache", home / ".config"):
        d.mkdir(parents=True, exist_ok=True)
    keep.update(
        HOME=str(home),
        OMP_CODING_AGENT_DIR=str(agent),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_CONFIG_HOME=str(home / ".config"),
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=" ".join(str(p) for p in find_links),
        PIP_NO_CACHE_DIR="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_NO_INPUT="1",
        PYTHONDONTWRITEBYTECODE="1",
    )
    return keep


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Distribution:
    if not _wheelhouse_ready():
        message = "offline wheelhouse not prepared: run scripts/setup"
        if os.environ.get("OMP_REQUIRE_WHEELHOUSE") == "1":
            pytest.fail(message)
        pytest.skip(message)

    root = tmp_path_factory.mktemp("custom-dist")
    wheels = root / "wheels"
    wheels.mkdir()
    env = _offline_env(root, [wheels, WHEELHOUSE])

    meta = root / "my-omp"
    meta.mkdir()
    (meta / "pyproject.toml").write_text(MY_OMP_PYPROJECT, encoding="utf-8")

    venv = root / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], env, cwd=root, check=True)
    python = venv / "bin" / "python"
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)

    # Build with isolation: pip installs hatchling into each build environment, offline.
    sources = [str(REPO / p) for p in PROJECTS] + [str(meta)]
    pip = [str(python), "-m", "pip"]
    offline = ["--no-index", "--find-links", str(wheels), "--find-links", str(WHEELHOUSE)]
    _run([*pip, "wheel", "--no-deps", *offline, "-w", str(wheels), *sources], env, root, True)
    _run([*pip, "install", *offline, "my-omp"], env, root, check=True)

    work = root / "work"
    work.mkdir()
    agent_dir = Path(env["OMP_CODING_AGENT_DIR"])
    return Distribution(venv, python, venv / "bin" / "omp", env, work, agent_dir)


def test_installed_from_wheels_not_from_the_checkout(dist: Distribution) -> None:
    code = "import omp, omp_scripted; print(omp.__file__); print(omp_scripted.__file__)"
    proc = dist.run(dist.python, "-c", code)
    assert proc.returncode == 0, proc.stderr
    for line in proc.stdout.splitlines():
        assert Path(line).resolve().is_relative_to(dist.venv.resolve()), line
    freeze = dist.run(dist.python, "-m", "pip", "list", "--format=json")
    assert freeze.returncode == 0, freeze.stderr
    names = {p["name"].lower().replace("_", "-") for p in json.loads(freeze.stdout)}
    assert {"my-omp", "omp-kernel", "omp-scripted", "omp-tool-read", "omp-mode-print"} <= names
    assert not names & {
        "omp",
        "omp-mode-json",
        "omp-llm",
        "omp-compaction",
        "omp-context-sources",
        "omp-user-shell",
    }


def test_heavy_libraries_are_absent(dist: Distribution) -> None:
    code = (
        "import importlib, json, sys\n"
        "failed = {}\n"
        f"for name in {ABSENT!r}:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ImportError:\n"
        "        failed[name] = True\n"
        "    else:\n"
        "        failed[name] = False\n"
        "print(json.dumps(failed))\n"
    )
    proc = dist.run(dist.python, "-c", code)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == dict.fromkeys(ABSENT, True)


def test_plugins_lists_exactly_the_chosen_ones(dist: Distribution) -> None:
    proc = dist.run(dist.omp, "plugins")
    assert proc.returncode == 0, proc.stderr
    names = [line.split()[0] for line in proc.stdout.splitlines() if line[:1].strip()]
    assert sorted(names) == ["print", "read", "scripted"], proc.stdout


def test_print_mode_runs_a_script_with_the_read_tool(dist: Distribution) -> None:
    (dist.work / "notes.txt").write_text("the answer is forty-two\n", encoding="utf-8")
    script = dist.work / "script.jsonl"
    steps = [
        {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
        {
            "choose": [
                {"when": "forty-two", "text": "The notes say forty-two."},
                {"text": "The read tool did not return the file."},
            ]
        },
    ]
    script.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")

    proc = dist.run(dist.omp, "-p", "hi", "--script", script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "The notes say forty-two.", (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    sessions = list((dist.agent_dir / "sessions").rglob("*.jsonl"))
    assert sessions, "the run kept no session file in OMP_CODING_AGENT_DIR"


def test_json_mode_is_not_installed(dist: Distribution) -> None:
    proc = dist.run(dist.omp, "--mode", "json", "x")
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "json" in lines[0] and "not installed" in lines[0], lines[0]
    assert proc.stdout == ""


def test_commands_of_plugins_left_out_say_so_in_one_line(dist: Distribution) -> None:
    """`omp models` (the llm plugin's) and `omp plugin` (the plugin manager's) are not
    installed here: one line each, and neither word reaches the model as a prompt."""
    script = dist.work / "words.jsonl"
    script.write_text(json.dumps({"text": "the model was asked"}) + "\n", encoding="utf-8")
    for args in (["models"], ["--list-models", "demo"], ["plugin", "list"]):
        proc = dist.run(dist.omp, *args, "--script", script)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        [line] = proc.stderr.splitlines()
        assert "is not installed" in line, line
        assert "the model was asked" not in proc.stdout


def test_features_left_out_say_so_instead_of_running(dist: Distribution) -> None:
    """Without the user-shell and compaction plugins, `!cmd` is neither run nor sent to the
    model, and /compact says which plugin is missing."""
    script = dist.work / "quiet.jsonl"
    script.write_text(json.dumps({"text": "the model was asked"}) + "\n", encoding="utf-8")
    marker = dist.work / "ran.txt"

    shell = dist.run(dist.omp, "-p", f"!touch {marker}", "--script", script)
    assert "no user shell plugin is installed" in shell.stderr, shell.stderr
    assert not marker.exists()
    assert "the model was asked" not in shell.stdout
    assert "Traceback" not in shell.stderr

    compact = dist.run(dist.omp, "-p", "/compact", "--script", script)
    assert "no compaction plugin is installed" in compact.stdout + compact.stderr
    assert "Traceback" not in compact.stderr
