"""The worked examples under plugin-template/examples run here without being installed:
each example's ``src`` goes on sys.path and its own tests (written for ``omp_harness``)
are collected in this module as ``test_<example>__<test>``. The structure checks keep
every example an installable plugin with a kernel range, not a pin."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from _pytest.fixtures import FixtureFunctionDefinition

EXAMPLES = Path(__file__).resolve().parents[2] / "plugin-template" / "examples"
NAMES = sorted(p.name for p in EXAMPLES.iterdir() if (p / "pyproject.toml").is_file())


def example_tests(name: str) -> dict[str, Any]:
    """The test functions of one example, imported by path under unique module names."""
    root = EXAMPLES / name
    if str(root / "src") not in sys.path:
        sys.path.insert(0, str(root / "src"))
    found: dict[str, Any] = {}
    for path in sorted((root / "tests").glob("test_*.py")):
        module_name = f"omp_example_tests.{name.replace('-', '_')}.{path.stem}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
        for attr, value in vars(module).items():
            if attr.startswith("test_") and callable(value):
                found[f"test_{name.replace('-', '_')}__{attr.removeprefix('test_')}"] = value
            elif isinstance(value, FixtureFunctionDefinition):
                assert attr not in globals(), f"two examples define the fixture {attr}"
                found[attr] = value
    return found


for _name in NAMES:
    globals().update(example_tests(_name))


def test_the_four_worked_examples_are_here() -> None:
    assert NAMES == ["permission-gate", "private-provider", "protected-paths", "tally-tool"]


@pytest.mark.parametrize("name", NAMES)
def test_each_example_is_an_installable_plugin_with_a_kernel_range(name: str) -> None:
    project = tomllib.loads((EXAMPLES / name / "pyproject.toml").read_text(encoding="utf-8"))
    points = project["project"]["entry-points"]["omp.plugins"]
    assert len(points) == 1
    module = next(iter(points.values()))
    package = module.split(".")[0]
    assert (EXAMPLES / name / "src" / package / "plugin.py").is_file()
    kernel = [d for d in project["project"]["dependencies"] if d.startswith("omp-kernel")]
    assert kernel == ["omp-kernel>=0.1,<1"]
    assert (EXAMPLES / name / "README.md").is_file()
    assert any(k.startswith(f"test_{name.replace('-', '_')}__") for k in globals())


def test_a_module_also_installed_by_entry_point_is_registered_once(omp_harness) -> None:
    from omp_tool_read import plugin as read_plugin

    runtime = omp_harness.runtime([read_plugin])
    assert runtime.host.failures() == []
    assert [t.name for t in runtime.contributions.of("tools")].count("read") == 1


def test_plugins_md_links_what_exists_and_its_code_compiles() -> None:
    root = EXAMPLES.parents[1]
    text = (root / "PLUGINS.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\(((?:docs|plugin-template)/[^)#]*)", text):
        assert (root / target).exists(), target
    assert "(docs/HOOKS.md)" in text
    for name in NAMES:
        assert f"plugin-template/examples/{name}/" in text, name
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert len(blocks) >= 2
    for block in blocks:
        compile(block, "PLUGINS.md", "exec")
    for command in ("omp plugin new", "omp plugin add ./", "omp plugin doctor", "omp_harness"):
        assert command in text, command


def test_omp_harness_needs_no_import_in_a_plugin_project(tmp_path: Path) -> None:
    """omp-kernel registers omp.testing through pytest's ``pytest11`` entry point."""
    project = tmp_path / "my-plugin"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_kit.py").write_text(
        "def test_kit(omp_harness):\n"
        "    session = omp_harness.session(script=[{'text': 'hi'}])\n"
        "    assert omp_harness.run(session, 'hello').final_text() == 'hi'\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["HOME"] = str(tmp_path / "home")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout
