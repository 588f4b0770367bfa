"""A plugin written against the public API type-checks with the project's mypy
configuration (scripts/typecheck), and a typo in an event field, a ``ctx.ui`` method or a
result model's field fails it at its line."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mypy") is None,
    reason="mypy is not installed (requirements-dev.txt installs it with the test extra)",
)

PLUGIN = '''\
"""Keeps the model away from the shell."""

from __future__ import annotations

from omp import HandlerContext, ToolCallDecision, ToolCallEvent, hookimpl


@hookimpl
def omp_tool_call(event: ToolCallEvent, ctx: HandlerContext) -> ToolCallDecision | None:
    if event.tool_name != "bash":
        return None
    ctx.ui.notify(f"blocked {event.tool_name}", "warning")
    return ToolCallDecision(block=True, reason="no shell in this project")
'''


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the module's runs, so only the first analyses omp and pydantic."""
    return tmp_path_factory.mktemp("mypy-cache")


def mypy(path: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(cache),
            "--no-error-summary",
            "--hide-error-context",
            path.name,
        ],
        cwd=path.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_plugin_using_the_public_api_correctly_passes(tmp_path: Path, mypy_cache: Path) -> None:
    plugin = tmp_path / "gate.py"
    plugin.write_text(PLUGIN, encoding="utf-8")
    proc = mypy(plugin, mypy_cache)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


@pytest.mark.parametrize(
    ("right", "wrong", "line", "message", "code"),
    [
        (
            "event.tool_name !=",
            "event.tool_nme !=",
            10,
            '"tool_nme"; maybe "tool_name"?',
            "attr-defined",
        ),
        ("event.tool_name !=", "event.toolName !=", 10, 'no attribute "toolName"', "attr-defined"),
        (
            "{event.tool_name}",
            "{event.tool_nme}",
            12,
            '"tool_nme"; maybe "tool_name"?',
            "attr-defined",
        ),
        ("ctx.ui.notify(", "ctx.ui.notfy(", 12, '"UI" has no attribute "notfy"', "attr-defined"),
        (
            "reason=",
            "reasn=",
            13,
            '"reasn" for "ToolCallDecision"; did you mean "reason"?',
            "call-arg",
        ),
    ],
    ids=["event-field", "event-camel-case", "event-in-f-string", "ui-method", "result-field"],
)
def test_a_typo_fails_at_its_line(
    tmp_path: Path,
    mypy_cache: Path,
    request: pytest.FixtureRequest,
    right: str,
    wrong: str,
    line: int,
    message: str,
    code: str,
) -> None:
    assert PLUGIN.splitlines()[line - 1].count(right) == 1
    # A module name of its own: mypy's cache takes a same-sized file of the same name,
    # written within the same second, for unchanged.
    plugin = tmp_path / f"gate_{request.node.callspec.id.replace('-', '_')}.py"
    plugin.write_text(PLUGIN.replace(right, wrong), encoding="utf-8")
    proc = mypy(plugin, mypy_cache)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    errors = [out for out in proc.stdout.splitlines() if ": error: " in out]
    assert len(errors) == 1, proc.stdout
    assert errors[0].startswith(f"{plugin.name}:{line}: error: "), errors[0]
    assert message in errors[0], errors[0]
    assert errors[0].endswith(f"[{code}]"), errors[0]


def test_the_guides_plugin_code_type_checks(tmp_path: Path, mypy_cache: Path) -> None:
    """PLUGINS.md's plugin and its test are what authors copy: they pass the same check,
    laid out as the guide's project is (omp_my_gate/plugin.py and a test importing it)."""
    import re

    text = (ROOT / "PLUGINS.md").read_text(encoding="utf-8")
    plugin, test = re.findall(r"```python\n(.*?)```", text, re.DOTALL)[:2]
    assert "from omp_my_gate import plugin" in test
    package = tmp_path / "omp_my_gate"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "plugin.py").write_text(plugin, encoding="utf-8")
    for checked in (package / "plugin.py", tmp_path / "test_guide_gate.py"):
        if checked.name.startswith("test_"):
            checked.write_text(test, encoding="utf-8")
        proc = mypy(checked, mypy_cache)
        assert proc.returncode == 0, f"{checked.name}:\n{proc.stdout}"
