"""The hook reference (docs/HOOKS.md) is generated from the hook specs and kept current."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from omp.plugin import specs as hookspecs

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "hookdoc.py"
_spec = importlib.util.spec_from_file_location("hookdoc", SCRIPT)
assert _spec is not None and _spec.loader is not None
hookdoc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hookdoc)
render = hookdoc.render
REFERENCE = ROOT / "docs" / "HOOKS.md"
SPECS = [name for name in vars(hookspecs) if name.startswith("omp_")]


def test_docs_hooks_md_is_up_to_date() -> None:
    assert REFERENCE.is_file(), "run: python scripts/hookdoc.py > docs/HOOKS.md"
    assert REFERENCE.read_text(encoding="utf-8") == render(), (
        "docs/HOOKS.md is out of date: run `python scripts/hookdoc.py > docs/HOOKS.md`"
    )


def test_every_hook_spec_has_a_section_with_its_rule() -> None:
    text = render()
    for name in SPECS:
        assert f"\n### `{name}`\n" in text, name
        rule = hookspecs.rule_of(getattr(hookspecs, name))
        if not name.startswith("omp_register_"):
            section = text.split(f"\n### `{name}`\n", 1)[1].split("\n### ", 1)[0]
            assert f"**Combination rule:** `{rule}`" in section, name


def test_event_fields_and_docstring_parts_are_rendered() -> None:
    section = render().split("\n### `omp_tool_call`\n", 1)[1].split("\n### ", 1)[0]
    assert "ToolCallEvent" in section
    assert "| `tool_name` | `str` |" in section
    assert "| `input` | `dict[str, Any]` |" in section
    assert "`first_block`" in section
    for part in ("**When:**", "**Args:**", "**Returns:**", "**Combination:**", "**Raising:**"):
        assert part in section, part
    assert "Family: event" in section or "family: " in section.lower()


def test_the_script_prints_the_reference() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, check=True)
    assert proc.stdout == render()
