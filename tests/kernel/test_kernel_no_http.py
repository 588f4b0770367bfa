"""The kernel has no HTTP layer of its own: httpx, httpcore and the provider machinery
(the llm plugin, ``omp_llm``) are plugins' business; the kernel reaches them only through
hooks (``omp_register_providers``, ``omp_register_provider_configs``)."""

from __future__ import annotations

import ast
from pathlib import Path

KERNEL = Path(__file__).resolve().parents[2] / "kernel" / "src"
FORBIDDEN = ("httpx", "httpcore", "omp.llm", "omp_llm")


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found += [(node.lineno, node.module)]
            if node.module == "omp":
                found += [(node.lineno, f"omp.{alias.name}") for alias in node.names]
    return found


def test_the_kernel_imports_no_http_library_nor_the_llm_layer():
    offending = [
        f"{path.relative_to(KERNEL)}:{line}: {module}"
        for path in sorted(KERNEL.rglob("*.py"))
        for line, module in _imports(path)
        if any(module == name or module.startswith(name + ".") for name in FORBIDDEN)
    ]
    assert offending == []
