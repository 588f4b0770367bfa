"""``omp plugin add`` running pip for real, offline, in one throwaway virtual environment
shared by this module: the rendered template, a broken plugin, a misspelt hook, a
package with no entry point, pip failing, and a kernel requirement omp cannot meet.

The environment holds the kernel, the scripted provider and the plugin manager (editable
from this checkout) and nothing else; pip finds build backends and pytest only in
``build/wheelhouse`` (``scripts/setup`` fills it). Without the wheelhouse the tests skip,
or fail when ``OMP_REQUIRE_WHEELHOUSE=1`` (as ``scripts/test`` sets it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
WHEELHOUSE = REPO / "build" / "wheelhouse"
PROJECTS = ["kernel", "plugins/scripted", "plugins/plugin-manager"]
TIMEOUT = 180


@dataclass
class Env:
    python: Path
    omp: Path
    env: dict[str, str]
    work: Path

    def run(self, *args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(a) for a in args],
            env=self.env,
            cwd=cwd or self.work,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )

    def installed(self) -> dict[str, str]:
        proc = self.run(self.python, "-m", "pip", "list", "--format=json")
        assert proc.returncode == 0, proc.stderr
        return {p["name"].lower(): p["version"] for p in json.loads(proc.stdout)}


def _offline_env(root: Path) -> dict[str, str]:
    keep = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PIP_", "OMP_", "PI_", "XDG_", "PYTHON", "VIRTUAL_ENV", "UV_"))
        and k != "HOME"
    }
    for folder in ("home", "agent"):
        (root / folder).mkdir()
    keep.update(
        HOME=str(root / "home"),
        OMP_CODING_AGENT_DIR=str(root / "agent"),
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(WHEELHOUSE),
        PIP_NO_CACHE_DIR="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_NO_INPUT="1",
        PYTHONDONTWRITEBYTECODE="1",
        OLLAMA_HOST="127.0.0.1:9",
    )
    return keep


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Env:
    if not any(WHEELHOUSE.glob("pytest-*.whl")) or not any(WHEELHOUSE.glob("hatchling-*")):
        message = "offline wheelhouse (with pytest) not prepared: run scripts/setup"
        if os.environ.get("OMP_REQUIRE_WHEELHOUSE") == "1":
            pytest.fail(message)
        pytest.skip(message)
    root = tmp_path_factory.mktemp("plugin-add")
    env = _offline_env(root)
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=TIMEOUT)
    python = venv / "bin" / "python"
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    work = root / "work"
    work.mkdir()
    result = Env(python, venv / "bin" / "omp", env, work)
    pip = [python, "-m", "pip", "install", "-q"]
    setup = result.run(*pip, "hatchling", "editables", "pytest")
    assert setup.returncode == 0, setup.stderr
    editable = [arg for p in PROJECTS for arg in ("-e", REPO / p)]
    setup = result.run(*pip, "--no-build-isolation", *editable)
    assert setup.returncode == 0, setup.stderr
    return result


def _project(root: Path, name: str, plugin: str | None, requires: str = "omp-kernel") -> Path:
    """A small local project; ``plugin`` is its module's source (None: no entry point)."""
    package = name.replace("-", "_")
    folder = root / name
    (folder / package).mkdir(parents=True)
    (folder / package / "__init__.py").write_text(plugin or "", encoding="utf-8")
    entry = f'[project.entry-points."omp.plugins"]\n{package} = "{package}"\n' if plugin else ""
    (folder / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""\
            [build-system]
            requires = ["hatchling>=1.21"]
            build-backend = "hatchling.build"

            [project]
            name = "{name}"
            version = "1.0"
            dependencies = ["{requires}"]

            """
        )
        + entry,
        encoding="utf-8",
    )
    return folder


def test_new_then_add_then_the_projects_own_tests_pass(venv: Env) -> None:
    new = venv.run(venv.omp, "plugin", "new", "omp-guard")
    assert new.returncode == 0, new.stderr
    added = venv.run(venv.omp, "plugin", "add", "./omp-guard", "--project")
    assert added.returncode == 0, added.stdout + added.stderr
    assert "added omp-guard 0.1.0: plugin guard (" in added.stdout
    assert "tools guard_hello" in added.stdout and "hooks omp_tool_call" in added.stdout
    settings = json.loads((venv.work / ".omp" / "settings.json").read_text())
    assert settings["plugins"] == ["./omp-guard"]

    listed = {
        p["name"]: p for p in json.loads(venv.run(venv.omp, "plugin", "list", "--json").stdout)
    }
    guard = listed["guard"]
    assert guard["source"] == "editable" and guard["location"] == str(venv.work / "omp-guard")
    assert guard["contributes"]["commands"] == ["guard"]
    assert guard["contributes"]["flags"] == ["guard-greeting"]
    tests = venv.run(venv.python, "-m", "pytest", "-q", cwd=venv.work / "omp-guard")
    assert tests.returncode == 0, tests.stdout + tests.stderr
    written = (venv.work / "omp-guard" / "tests" / "test_plugin.py").read_text()
    count = written.count("\ndef test_")
    assert f"{count} passed" in tests.stdout
    assert venv.run(venv.omp, "plugin", "doctor").returncode == 0

    removed = venv.run(venv.omp, "plugin", "remove", "guard")
    assert removed.returncode == 0, removed.stderr
    assert "omp-guard" not in venv.installed()
    # The project's list brings it back, in a trusted directory only.
    refused = venv.run(venv.omp, "plugin", "sync")
    assert refused.returncode != 0 and "not trusted" in refused.stderr
    (venv.work.parent / "agent" / "settings.json").write_text(
        json.dumps({"trustedDirectories": [str(venv.work)]})
    )
    synced = venv.run(venv.omp, "plugin", "sync")
    assert synced.returncode == 0, synced.stderr
    assert "omp-guard" in venv.installed()


@pytest.mark.parametrize(
    ("name", "source", "says"),
    [
        ("no-entry", None, "exposes no `omp.plugins` entry point"),
        (
            "misspelt",
            "import omp\n\n@omp.hookimpl\ndef omp_tool_cal(event):\n    pass\n",
            "omp_tool_cal (did you mean omp_tool_call?)",
        ),
        ("broken", "import does_not_exist_anywhere\n", "ModuleNotFoundError"),
    ],
)
def test_a_bad_plugin_is_named_with_the_command_that_removes_it(
    venv: Env, tmp_path: Path, name: str, source: str | None, says: str
) -> None:
    folder = _project(tmp_path, name, source)
    proc = venv.run(venv.omp, "plugin", "add", folder)
    assert proc.returncode == 1
    assert says in proc.stderr and "Traceback" not in proc.stderr
    assert f"remove it with: omp plugin remove {name}" in proc.stderr
    assert venv.run(venv.omp, "plugin", "remove", name).returncode == 0
    assert name not in venv.installed()


def test_pip_failing_shows_its_message_and_changes_nothing(venv: Env, tmp_path: Path) -> None:
    before = venv.installed()
    proc = venv.run(venv.omp, "plugin", "add", "omp-no-such-plugin>=1")
    assert proc.returncode == 1
    assert "pip failed; nothing was installed" in proc.stderr
    assert "No matching distribution found for omp-no-such-plugin" in proc.stderr
    folder = _project(tmp_path, "future", "import omp\n", requires="omp-kernel>=5")
    refused = venv.run(venv.omp, "plugin", "add", folder)
    assert refused.returncode == 1
    assert "refused" in refused.stderr and "omp-kernel==0.1.0" in refused.stderr
    assert venv.installed() == before


def _tool_plugin(overrides: str | None = None, answer: str = "x") -> str:
    declared = f", overrides={overrides!r}" if overrides else ""
    return textwrap.dedent(
        f"""\
        import omp
        from pydantic import BaseModel
        from omp import Tool


        class Query(BaseModel):
            q: str = ""


        @omp.hookimpl
        def omp_register_tools(api):
            return [Tool(name="lookup", parameters=Query, execute=lambda *a: {answer!r}{declared})]
        """
    )


def test_add_accepts_a_declared_tool_override_and_refuses_an_undeclared_clash(
    venv: Env, tmp_path: Path
) -> None:
    base = _project(tmp_path, "lookup-base", _tool_plugin())
    guard = _project(tmp_path, "lookup-guard", _tool_plugin(overrides="lookup"))
    clash = _project(tmp_path, "lookup-clash", _tool_plugin())
    try:
        assert venv.run(venv.omp, "plugin", "add", base).returncode == 0
        added = venv.run(venv.omp, "plugin", "add", guard)
        assert added.returncode == 0, added.stderr
        assert "added lookup-guard 1.0: plugin lookup_guard (tools lookup)" in added.stdout
        refused = venv.run(venv.omp, "plugin", "add", clash)
        assert refused.returncode == 1 and "Traceback" not in refused.stderr
        assert (
            "omp: lookup_clash: tool 'lookup' is registered by both lookup_base and "
            "lookup_clash; lookup_clash's is refused (a tool that replaces another declares "
            "overrides='lookup')"
        ) in refused.stderr
        assert "remove it with: omp plugin remove lookup-clash" in refused.stderr
    finally:
        for name in ("lookup-clash", "lookup-guard", "lookup-base"):
            venv.run(venv.omp, "plugin", "remove", name)
