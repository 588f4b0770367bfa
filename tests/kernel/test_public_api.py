"""The `omp` package is the one public API: every listed name resolves, the names a type
checker sees are the names `omp` serves at run time, and no plugin reaches past it."""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
from pathlib import Path

import omp
import pytest

ROOT = Path(__file__).resolve().parents[2]
INIT = ROOT / "kernel" / "src" / "omp" / "__init__.py"

# Where code that must use only the public API lives: every built-in plugin and its own
# tests (the example a third-party author copies), the natives' Python module and tests,
# and the template `omp plugin new` renders (with its examples).
PLUGIN_SOURCES = [
    *sorted((ROOT / "plugins").glob("*/src")),
    *sorted((ROOT / "plugins").glob("*/tests")),
    ROOT / "natives" / "python",
    ROOT / "natives" / "tests",
    ROOT / "plugin-template",
]
# An import inside a string: a script a test runs in a child process, a plugin it writes.
IMPORT_IN_TEXT = re.compile(r"^\s*(?:from|import)\s+(omp(?:\.\w+)*)", re.MULTILINE)
ALLOWED = {"omp", "omp.testing"}


def test_every_public_name_resolves_and_is_documented():
    undocumented = []
    for name in omp.__all__:
        value = getattr(omp, name)
        if (inspect.isclass(value) or inspect.isroutine(value)) and not value.__doc__:
            undocumented.append(name)
    assert undocumented == []


def test_type_checkers_see_exactly_the_names_served_at_run_time():
    tree = ast.parse(INIT.read_text())
    checked: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module != "pluggy":
                    for alias in statement.names:
                        public = alias.asname or alias.name
                        attribute = "" if alias.name == public else f":{alias.name}"
                        checked[public] = f"{statement.module}{attribute}"
    assert checked == omp._EXPORTS
    assert sorted(omp.__all__) == sorted(["__version__", "hookimpl", *omp._EXPORTS])


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Tol'"):
        omp.Tol  # noqa: B018


def test_importing_omp_stays_cheap():
    """A plugin's entry module imports `omp` for `hookimpl`: that must not pull pydantic."""
    code = (
        "import sys, omp; omp.hookimpl; "
        "print(sorted(m for m in ('pydantic', 'httpx', 'rich', 'prompt_toolkit') "
        "if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def private_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of each import of a private `omp` module in a source file."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        modules: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            modules = [node.args[0].value]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            modules = IMPORT_IN_TEXT.findall(node.value)
        for module in modules:
            if (module == "omp" or module.startswith("omp.")) and module not in ALLOWED:
                found.append((node.lineno, module))
    return sorted(found)


def test_plugins_import_only_the_public_api():
    """Built-in plugins, and their tests, are written as a third-party author writes them:
    `from omp import ...` (and `omp.testing` in tests). A private kernel module imported
    here fails the build, with the file and line to fix."""
    offenders = []
    for source in PLUGIN_SOURCES:
        for path in sorted(source.rglob("*.py")):
            offenders += [
                f"{path.relative_to(ROOT)}:{line}: {module}"
                for line, module in private_imports(path)
            ]
    assert offenders == []


def test_the_boundary_check_sees_every_form_of_private_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import omp\nfrom omp import Tool\nfrom omp.testing import Harness\n"
        "from omp.agent.tools import Tool\nimport omp.session.file\n"
        "def f():\n    from omp.config.settings import agent_dir\n"
        "    importlib.import_module('omp.agent.loop')\n"
    )
    assert private_imports(sample) == [
        (4, "omp.agent.tools"),
        (5, "omp.session.file"),
        (7, "omp.config.settings"),
        (8, "omp.agent.loop"),
    ]


def test_the_boundary_check_sees_imports_in_scripts_a_test_writes(tmp_path):
    """A child process's script or a plugin a test writes is test code too."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        'CHILD = """\nimport os\nfrom omp import AbortSignal\nfrom omp.base.abort import x\n"""\n'
        'PLUGIN = f"""\n    import omp.testing\n    from omp.agent.tools import {name}\n"""\n'
        "TEXT = 'omp.agent is internal: from omp.agent nothing is imported here'\n"
    )
    assert private_imports(sample) == [(1, "omp.base.abort"), (6, "omp.agent.tools")]


def test_docs_api_md_is_current():
    """docs/API.md is generated from the package; a changed public name or docstring
    without a regenerated page fails here."""
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "api_reference.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_deprecated_name_still_works_for_a_while_and_warns_where_it_is_used(monkeypatch):
    """The API rule: a public name goes only in a major version, after warning for one
    minor version."""
    monkeypatch.setitem(omp._DEPRECATED, "OldTool", ("Tool", "0.3.0"))
    with pytest.warns(
        DeprecationWarning, match=r"omp\.OldTool is deprecated and goes in 0\.3\.0: use omp\.Tool"
    ) as caught:
        from omp import OldTool  # type: ignore[attr-defined]
    assert OldTool is omp.Tool
    assert caught[0].filename == __file__
    with pytest.warns(DeprecationWarning):
        assert omp.OldTool is omp.Tool  # type: ignore[attr-defined]
    assert "OldTool" not in vars(omp)
