"""The settings schema: every key the kernel reads is declared in it and every key a
built-in plugin reads is declared by the kernel or by that plugin (with a type and a
default), values are checked against it, and unknown keys are refused with the closest
known one."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest
from omp.base.errors import OmpError
from omp.config.schema import SCHEMA, check_value, find, group_members, parse_value
from omp.config.settings import DEFAULTS

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "kernel" / "src", *sorted((ROOT / "plugins").glob("*/src"))]


def _mentions_settings(node: ast.AST) -> bool:
    return any(
        (isinstance(n, ast.Name) and "settings" in n.id.lower())
        or (isinstance(n, ast.Attribute) and "settings" in n.attr.lower())
        for n in ast.walk(node)
    )


def _literal_get(node: ast.AST, constants: dict[str, str]) -> tuple[ast.AST, str] | None:
    """(receiver, key) of ``receiver.get("key", ...)`` or ``receiver.get(CONSTANT)``."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
    ):
        return None
    first = node.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return node.func.value, first.value
    if isinstance(first, ast.Name) and first.id in constants:
        return node.func.value, constants[first.id]
    return None


def read_keys(tree: ast.Module, shared: dict[str, str] | None = None) -> list[str]:
    """The settings keys a module reads: ``settings.get("a.b")``, constants named
    ``*SETTING``, and ``.get("k")`` on a section read from settings (held in a variable
    or returned by a helper function)."""
    keys: list[str] = []
    constants: dict[str, str] = dict(shared or {})
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if isinstance(node.value.value, str):
                constants.update(dict.fromkeys(names, node.value.value))
                if any(n.endswith("SETTING") for n in names):
                    keys.append(node.value.value)
    section_of_function: dict[str, str] = {}
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for _ in range(2):  # helpers may be defined after their callers
        for function in functions:
            sections: dict[str, str] = {}

            def section(expr: ast.AST, sections: dict[str, str] = sections) -> str | None:
                if isinstance(expr, ast.BoolOp):
                    found = [section(v) for v in expr.values]
                    return next((f for f in found if f), None)
                if isinstance(expr, ast.IfExp):
                    return section(expr.body) or section(expr.orelse)
                if isinstance(expr, ast.Name):
                    return sections.get(expr.id)
                if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
                    return section_of_function.get(expr.func.id)
                got = _literal_get(expr, constants)
                if got and _mentions_settings(got[0]):
                    return got[1]
                return None

            for node in ast.walk(function):
                got = _literal_get(node, constants)
                if got:
                    receiver, key = got
                    parent = section(receiver)
                    if parent:
                        keys.append(f"{parent}.{key}")
                    elif _mentions_settings(receiver):
                        keys.append(key)
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target = node.targets[0]
                    found = section(node.value)
                    if isinstance(target, ast.Name) and found:
                        sections[target.id] = found
                if isinstance(node, ast.Return) and node.value is not None:
                    found = section(node.value)
                    if found:
                        section_of_function[function.name] = found
    return sorted(set(keys))


def keys_read_by_code() -> dict[str, list[str]]:
    """Every settings key the code reads, with the files reading it."""
    found: dict[str, list[str]] = {}
    trees = {
        path: ast.parse(path.read_text(encoding="utf-8"))
        for root in SOURCES
        for path in sorted(root.rglob("*.py"))
    }
    shared = {  # upper-case string constants, which other modules import
        target.id: node.value.value
        for tree in trees.values()
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name) and target.id.isupper()
    }
    for path, tree in trees.items():
        for key in read_keys(tree, shared):
            found.setdefault(key, []).append(str(path.relative_to(ROOT)))
    return found


def plugin_of(file: str) -> set[str]:
    """The plugin names (entry points) of the plugin folder holding ``file``; none for
    the kernel's files."""
    parts = Path(file).parts
    if parts[0] != "plugins":
        return set()
    project = tomllib.loads((ROOT / "plugins" / parts[1] / "pyproject.toml").read_text())
    return set(project["project"]["entry-points"]["omp.plugins"])


def test_every_key_the_code_reads_is_declared_by_the_kernel_or_its_plugin(omp_harness) -> None:
    read = keys_read_by_code()
    assert len(read) > 20  # the scanner sees nested reads, constants and sections
    union = omp_harness.runtime().settings.schema
    missing: dict[str, list[str]] = {}
    for key, files in read.items():
        if find(key) is not None or group_members(key):
            continue
        owners = {union.owner(k) for k in [key, *union.group_members(key)]}
        undeclared = [f for f in files if not plugin_of(f) & owners]
        if undeclared:
            missing[key] = undeclared
    assert not missing, (
        f"settings read but declared neither by the kernel nor the plugin: {missing}"
    )


def test_the_scanner_finds_each_way_code_reads_a_setting() -> None:
    source = """
LIMIT_SETTING = "tool.limitBytes"
LISTED = "iota"

def direct(ctx):
    return ctx.settings.get("alpha.beta", 3)

def section(settings):
    retry = settings.get("gamma") or {}
    return retry.get("delta")

def _config(ctx):
    part = ctx.settings.get("epsilon")
    return part if isinstance(part, dict) else {}

def user(ctx):
    config = _config(ctx)
    zeta = config.get("zeta")
    return zeta, _config(ctx).get("eta"), (settings or {}).get("theta"), settings.get(LISTED)
"""
    keys = set(read_keys(ast.parse(source)))
    assert keys >= {
        "tool.limitBytes",
        "alpha.beta",
        "gamma",
        "gamma.delta",
        "epsilon",
        "epsilon.zeta",
        "epsilon.eta",
        "theta",
        "iota",
    }


def test_every_entry_has_a_type_a_description_and_a_valid_default() -> None:
    for key, spec in SCHEMA.items():
        assert spec.key == key
        assert spec.description, key
        if spec.default is not None:
            check_value(key, spec.default)


def test_the_kernel_defaults_agree_with_the_schema() -> None:
    for key, value in DEFAULTS.items():
        if isinstance(value, dict):
            for sub, inner in value.items():
                assert find(f"{key}.{sub}").default == inner, f"{key}.{sub}"
        else:
            assert find(key).default == value, key


def test_unknown_key_names_the_closest_known_one() -> None:
    with pytest.raises(OmpError, match=r"unknown setting 'steringMode'.*steeringMode"):
        check_value("steringMode", "all")
    with pytest.raises(OmpError, match=r"retry\.maxRetries"):
        check_value("retry.maxRetrys", 3)


@pytest.mark.parametrize(
    ("key", "text", "value"),
    [
        ("retry.maxRetries", "4", 4),
        ("retry.enabled", "false", False),
        ("defaultModel", "anthropic/claude", "anthropic/claude"),
        ("defaultModel", "null", None),
        ("disabledPlugins", '["fetch", "bash"]', ["fetch", "bash"]),
        ("disabledPlugins", "fetch,bash", ["fetch", "bash"]),
        ("tools.approval.bash", "prompt", "prompt"),
        ("hookTimeouts.tool_call", "60000", 60000),
    ],
)
def test_values_from_the_command_line_are_typed_by_the_schema(key, text, value) -> None:
    assert parse_value(key, text) == value


@pytest.mark.parametrize(
    ("key", "text", "needle"),
    [
        ("retry.maxRetries", "many", "retry.maxRetries must be a whole number"),
        ("steeringMode", "some", 'one of "all", "one-at-a-time"'),
        ("retry.enabled", "maybe", "true or false"),
        ("tools.approval.bash", "sometimes", '"allow", "deny", "prompt"'),
        ("retry", "{}", "retry is a group of settings"),
        ("retry.maxRetries", "-1", "at least"),
    ],
)
def test_bad_values_are_one_clear_error(key, text, needle) -> None:
    with pytest.raises(OmpError) as caught:
        parse_value(key, text)
    assert needle in str(caught.value)
    assert "\n" not in str(caught.value)
