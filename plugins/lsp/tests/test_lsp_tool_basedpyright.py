"""The lsp tool against a real basedpyright on a small multi-file project."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from lsp_helpers import group_alive
from omp import AbortSignal, ToolResult
from omp.testing import settings_with
from omp_lsp.manager import STATE_KEY, LspManager
from omp_lsp.tool import LspParams, LspTool

GREET = '''def greet(name: str) -> str:
    """Say hello."""
    return "hi " + name


class Greeter:
    def run(self) -> str:
        return greet("x")
'''
USE = """from greetings import Greeter, greet

print(greet("bob"))
g = Greeter()
"""
MAIN = """import helpers

print(helpers.VALUE)
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "proj"\nversion = "0"\n')
    (root / "greetings.py").write_text(GREET)
    (root / "use.py").write_text(USE)
    (root / "helpers.py").write_text("VALUE = 1\n")
    (root / "main.py").write_text(MAIN)
    (root / "broken.py").write_text('count: int = "three"\n')
    return root


def run_tool(
    project: Path,
    tmp_path: Path,
    body: Callable[[Callable[..., Awaitable[ToolResult]]], Any],
    starts_server: bool = True,
) -> Any:
    """Run ``body(call)`` with a fresh manager; every server it started must be gone after."""
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir(exist_ok=True)
    pids: set[int] = set()

    async def main() -> Any:
        mgr = LspManager(settings_with({}), project, True, agent_dir)
        ctx = SimpleNamespace(cwd=str(project), state={STATE_KEY: mgr})
        tool = LspTool()

        async def call(**args: Any) -> ToolResult:
            result = await tool.execute("c", LspParams(**args), AbortSignal(), None, ctx)
            pids.update(c.pid for c in mgr.running() if c.pid)
            return result

        try:
            return await body(call)
        finally:
            await mgr.close()

    out = asyncio.run(asyncio.wait_for(main(), 120))
    assert bool(pids) == starts_server
    assert not [p for p in pids if group_alive(p)], "a server outlived the test"
    return out


def text(result: ToolResult) -> str:
    return "".join(block.text for block in result.content)


def test_definition_and_references_across_files(project: Path, tmp_path: Path) -> None:
    async def body(call: Any) -> tuple[ToolResult, ToolResult]:
        definition = await call(action="definition", file="use.py", line=3, symbol="greet")
        references = await call(action="references", file="greetings.py", line=1, symbol="greet")
        return definition, references

    definition, references = run_tool(project, tmp_path, body)
    assert not definition.is_error, text(definition)
    assert text(definition) == (
        "Found 1 definition(s):\n  greetings.py:1:5\n    1: def greet(name: str) -> str:"
    )
    out = text(references)
    assert out.startswith("Found 4 reference(s):"), out
    assert '  greetings.py:8:16\n    8: return greet("x")' in out
    assert '  use.py:3:7\n    3: print(greet("bob"))' in out


def test_references_are_bounded_by_limit(project: Path, tmp_path: Path) -> None:
    async def body(call: Any) -> ToolResult:
        return await call(action="references", file="greetings.py", line=1, symbol="greet", limit=2)

    out = text(run_tool(project, tmp_path, body))
    assert out.startswith("Found 4 reference(s):")
    assert out.endswith("  … 2 more reference(s)")
    assert out.count("\n    ") == 2


def test_hover_and_symbols(project: Path, tmp_path: Path) -> None:
    async def body(call: Any) -> list[ToolResult]:
        return [
            await call(action="hover", file="use.py", line=3, column=7),
            await call(action="symbols", file="greetings.py"),
            await call(action="symbols", file="*", query="Greeter"),
        ]

    hover, file_symbols, workspace = run_tool(project, tmp_path, body)
    assert "def greet(name: str) -> str" in text(hover)
    assert "Say hello." in text(hover)
    assert text(file_symbols) == (
        "Symbols in greetings.py:\n"
        "Function greet @ line 1\n"
        "  Variable name @ line 1\n"
        "Class Greeter @ line 6\n"
        "  Method run @ line 7"
    )
    assert text(workspace).startswith('Found 1 symbol(s) matching "Greeter":\n')
    assert "  Class Greeter @ greetings.py:6:7" in text(workspace)


def test_rename_applies_across_two_files(project: Path, tmp_path: Path) -> None:
    async def body(call: Any) -> tuple[ToolResult, ToolResult]:
        preview = await call(
            action="rename",
            file="greetings.py",
            line=1,
            symbol="greet",
            new_name="welcome",
            apply=False,
        )
        assert "greet(" in (project / "use.py").read_text()
        applied = await call(
            action="rename", file="greetings.py", line=1, symbol="greet", new_name="welcome"
        )
        return preview, applied

    preview, applied = run_tool(project, tmp_path, body)
    assert text(preview).startswith("Rename preview:\n")
    assert "use.py: 2 edits" in text(preview)
    assert not applied.is_error, text(applied)
    assert "Applied 2 edit(s) to use.py" in text(applied)
    assert "Applied 2 edit(s) to greetings.py" in text(applied)
    assert (project / "use.py").read_text() == (
        'from greetings import Greeter, welcome\n\nprint(welcome("bob"))\ng = Greeter()\n'
    )
    assert "def welcome(" in (project / "greetings.py").read_text()
    assert "greet" not in (project / "greetings.py").read_text().replace("Greeter", "")


def test_rename_file_updates_its_importer(project: Path, tmp_path: Path) -> None:
    async def body(call: Any) -> tuple[ToolResult, ToolResult]:
        preview = await call(
            action="rename_file", file="helpers.py", new_name="tools.py", apply=False
        )
        assert (project / "helpers.py").exists()
        applied = await call(action="rename_file", file="helpers.py", new_name="tools.py")
        return preview, applied

    preview, applied = run_tool(project, tmp_path, body)
    assert text(preview).startswith("Rename preview: helpers.py → tools.py\n  main.py: 2 edits")
    assert not applied.is_error, text(applied)
    assert text(applied) == "Renamed helpers.py → tools.py\n  Applied 2 edit(s) to main.py"
    assert (project / "tools.py").read_text() == "VALUE = 1\n"
    assert not (project / "helpers.py").exists()
    assert (project / "main.py").read_text() == "import tools\n\nprint(tools.VALUE)\n"


def test_workspace_diagnostics(project: Path, tmp_path: Path) -> None:
    async def body(call: Any) -> tuple[ToolResult, ToolResult]:
        workspace = await call(action="diagnostics", file="*")
        clean = await call(action="diagnostics", file="greetings.py")
        return workspace, clean

    workspace, clean = run_tool(project, tmp_path, body)
    assert text(workspace) == (
        "1 error(s) in 5 file(s):\n"
        "broken.py:1:14 [error] [basedpyright] Type \"Literal['three']\" is not assignable to "
        'declared type "int" "Literal[\'three\']" is not assignable to "int" '
        "(reportAssignmentType)"
    )
    assert text(clean) == "OK: no issues in greetings.py"


def test_bad_input_is_one_line_error(project: Path, tmp_path: Path) -> None:
    async def body(call: Any) -> list[ToolResult]:
        return [
            await call(action="definition", file="use.py", line=3, symbol="nothere"),
            await call(action="definition", file="missing.py", line=1),
            await call(action="status"),
        ]

    missing_symbol, missing_file, status = run_tool(project, tmp_path, body, starts_server=False)
    assert missing_symbol.is_error
    assert text(missing_symbol) == 'Error: Symbol "nothere" not found on line 3'
    assert text(missing_file) == "Error: File not found: missing.py"
    assert "basedpyright" in text(status)


def test_code_actions_list_then_apply_one(project: Path, tmp_path: Path) -> None:
    (project / "fix.py").write_text('x = greet("a")\n')

    async def body(call: Any) -> tuple[ToolResult, ToolResult]:
        listed = await call(action="code_actions", file="fix.py", line=1, symbol="greet")
        applied = await call(
            action="code_actions",
            file="fix.py",
            line=1,
            symbol="greet",
            apply=True,
            query="from greetings",
        )
        return listed, applied

    listed, applied = run_tool(project, tmp_path, body)
    assert text(listed).startswith("2 code action(s):\n  0: [quickfix] from greetings import greet")
    assert text(applied) == (
        'Applied "from greetings import greet":\n  Workspace edit:\n    Applied 2 edit(s) to fix.py'
    )
    assert (project / "fix.py").read_text() == 'from greetings import greet\n\n\nx = greet("a")\n'


def test_server_actions_type_definition_request_and_reload(project: Path, tmp_path: Path) -> None:
    async def body(call: Any) -> list[ToolResult]:
        return [
            await call(action="type_definition", file="use.py", line=4, symbol="g"),
            await call(
                action="request",
                file="use.py",
                line=3,
                symbol="greet",
                query="textDocument/hover",
            ),
            await call(action="capabilities", file="use.py", limit=2),
            await call(action="status"),
            await call(action="reload"),
            await call(action="request", query="workspace/symbol", payload="{not json"),
        ]

    type_def, raw, caps, status, reload, bad = run_tool(project, tmp_path, body)
    assert text(type_def) == (
        "Found 1 type definition(s):\n  greetings.py:6:7\n    6: class Greeter:"
    )
    assert text(raw).startswith('basedpyright ← textDocument/hover:\n{\n  "contents": {')
    assert "(function) def greet(name: str) -> str" in text(raw)
    assert text(caps).startswith("basedpyright:\n  {\n")
    assert text(caps).endswith(" more line(s)")
    assert "basedpyright [" in text(status) and ": running (pid " in text(status)
    assert text(reload) == "Restarted basedpyright: they start again on the next request"
    assert bad.is_error and text(bad).startswith("Error: invalid JSON in payload:")
