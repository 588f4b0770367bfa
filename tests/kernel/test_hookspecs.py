"""Meta-tests that keep the hook specs, the architecture page and the tests in step."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from omp import hookspecs
from omp.dispatch import RULES, rule_of

ROOT = Path(__file__).resolve().parents[2]
BEYOND_THE_PAGE = {"search": "issue 5 asks for a search-backend hook (first result wins)"}
"""Hooks an issue added that ARCHITECTURE.md does not list yet (it lives outside this
repository); each names the issue that asked for it."""
SPECS = {
    name: fn for name, fn in vars(hookspecs).items() if name.startswith("omp_") and callable(fn)
}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_hook_spec_documents_when_args_returns_combination_and_raising(name):
    doc = inspect.getdoc(SPECS[name]) or ""
    for part in ("When:", "Returns:", "Combination:", "Raising:"):
        assert part in doc, f"{name}'s docstring lacks {part!r}"
    assert "Args:" in doc or "args" in doc.lower()


def test_the_architecture_page_and_the_specs_name_the_same_event_hooks():
    page = ROOT.parent / "shared" / "ARCHITECTURE.md"
    if not page.exists():
        pytest.skip("shared/ARCHITECTURE.md is not beside this checkout")
    text = page.read_text()
    section = text[text.index("*event hooks*") : text.index("- **Combination rules**")]
    named: set[str] = set()
    for group in re.findall(r"(?:`[a-z_]+`/?)+", section):
        tokens = re.findall(r"`([a-z_]+)`", group)
        prefix = tokens[0].rsplit("_", 1)[0]
        named.update(prefix + t if t.startswith("_") else t for t in tokens)
    named -= {"omp_", "omp_tool_call"}  # the page names the prefix and one example
    spec_events = {n.removeprefix("omp_") for n in SPECS if not n.startswith("omp_register_")}
    assert named == spec_events - set(BEYOND_THE_PAGE)


def test_every_combination_rule_names_a_real_hook():
    assert set(RULES) <= set(SPECS)


def test_every_hook_is_exercised_by_some_test():
    corpus = "".join(p.read_text() for p in (ROOT / "tests").rglob("*.py"))
    corpus += (ROOT / "kernel/src/omp/testing.py").read_text()
    missing = []
    for name in SPECS:
        event = name.removeprefix("omp_")
        covered = rule_of(name) == "observer"  # test_dispatch runs every observer hook
        if not covered and name not in corpus and f'"{event}"' not in corpus:
            missing.append(name)
    assert not missing, f"hooks with no test mentioning them: {missing}"
