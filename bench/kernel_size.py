"""The kernel's size, per sub-package, beside the plugins' (issue 25: at most 10,000 lines).

    .venv/bin/python bench/kernel_size.py [--root DIR] [--json]

Counts every ``*.py`` file under ``kernel/src/omp`` (per sub-package; the package's own
top-level modules under ``omp``) and under ``plugins/`` (per plugin, tests included since
they ship with it) in two measures: physical lines (what ``wc -l`` says) and code lines
(lines holding at least one token that is not a comment, a docstring or a blank line,
found with ``tokenize`` and ``ast``). Standard library only; a report, exits 0.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import sys
import tokenize
from pathlib import Path

SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
SKIPPED.add(tokenize.ENDMARKER)


def docstring_lines(tree: ast.AST) -> set[int]:
    """The line numbers of every module, class and function docstring."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                first = body[0]
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def count(source: str) -> tuple[int, int]:
    """(physical lines, code lines) of one module's source."""
    physical = source.count("\n") + (0 if source.endswith("\n") or not source else 1)
    try:
        docs = docstring_lines(ast.parse(source))
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (SyntaxError, tokenize.TokenError):
        return physical, physical
    code: set[int] = set()
    for tok in tokens:
        if tok.type in SKIPPED or tok.start[0] in docs:
            continue
        code.update(range(tok.start[0], tok.end[0] + 1))
    return physical, len(code)


def tally(files: list[Path], key) -> dict[str, list[int]]:
    """Physical and code lines of ``files``, grouped by ``key(path)``."""
    groups: dict[str, list[int]] = {}
    for path in sorted(files):
        physical, code = count(path.read_text(encoding="utf-8"))
        entry = groups.setdefault(key(path), [0, 0, 0])
        entry[0] += 1
        entry[1] += physical
        entry[2] += code
    return groups


def kernel_groups(root: Path) -> dict[str, list[int]]:
    package = root / "kernel" / "src" / "omp"

    def key(path: Path) -> str:
        parts = path.relative_to(package).parts
        return "omp" if len(parts) == 1 else f"omp.{parts[0]}"

    return tally(list(package.rglob("*.py")), key)


def plugin_groups(root: Path) -> dict[str, list[int]]:
    plugins = root / "plugins"
    files = [
        p
        for p in plugins.rglob("*.py")
        if not {"build", ".venv", "node_modules"} & set(p.relative_to(plugins).parts)
    ]
    return tally(files, lambda p: p.relative_to(plugins).parts[0])


def total(groups: dict[str, list[int]]) -> list[int]:
    return [sum(v[i] for v in groups.values()) for i in range(3)]


def table(title: str, groups: dict[str, list[int]]) -> str:
    rows = [f"{title:<28} {'files':>6} {'lines':>8} {'code':>8}"]
    for name, (files, physical, code) in sorted(groups.items()):
        rows.append(f"  {name:<26} {files:>6} {physical:>8} {code:>8}")
    files, physical, code = total(groups)
    rows.append(f"  {'total':<26} {files:>6} {physical:>8} {code:>8}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    kernel = kernel_groups(args.root)
    plugins = plugin_groups(args.root)
    if args.json:
        keys = ("files", "lines", "code")
        out = {
            "kernel": {n: dict(zip(keys, v, strict=True)) for n, v in kernel.items()},
            "kernel_total": dict(zip(keys, total(kernel), strict=True)),
            "plugins": {n: dict(zip(keys, v, strict=True)) for n, v in plugins.items()},
            "plugins_total": dict(zip(keys, total(plugins), strict=True)),
        }
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    print(table("kernel (kernel/src/omp)", kernel))
    print()
    print(table("plugins (plugins/*)", plugins))
    k_lines, k_code = total(kernel)[1:]
    p_lines = total(plugins)[1]
    share = 100 * k_lines / (k_lines + p_lines) if k_lines + p_lines else 0.0
    print(
        f"\nkernel: {k_lines} lines, {k_code} code lines (target <= 10,000 lines); "
        f"{share:.0f}% of kernel + plugins"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
