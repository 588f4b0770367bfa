"""Meta-tests that keep the hook specs and the tests in step (nothing outside the repository
is read: a plain clone must pass)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from omp.plugin import specs as hookspecs
from omp.plugin.dispatch import RULES, rule_of

ROOT = Path(__file__).resolve().parents[2]
SPECS = {
    name: fn for name, fn in vars(hookspecs).items() if name.startswith("omp_") and callable(fn)
}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_hook_spec_documents_when_args_returns_combination_and_raising(name):
    doc = inspect.getdoc(SPECS[name]) or ""
    for part in ("When:", "Returns:", "Combination:", "Raising:"):
        assert part in doc, f"{name}'s docstring lacks {part!r}"
    assert "Args:" in doc or "args" in doc.lower()


def test_every_combination_rule_names_a_real_hook():
    assert set(RULES) <= set(SPECS)


def test_every_hook_is_exercised_by_some_test():
    # The suite: tests/ and each distribution's own tests (plugins/*/tests, natives/tests).
    folders = [ROOT / "tests", *ROOT.glob("plugins/*/tests"), ROOT / "natives" / "tests"]
    corpus = "".join(p.read_text() for f in folders for p in f.rglob("*.py"))
    corpus += (ROOT / "kernel/src/omp/testing.py").read_text()
    missing = []
    for name in SPECS:
        event = name.removeprefix("omp_")
        covered = rule_of(name) == "observer"  # test_dispatch runs every observer hook
        if not covered and name not in corpus and f'"{event}"' not in corpus:
            missing.append(name)
    assert not missing, f"hooks with no test mentioning them: {missing}"


EVENT_SPECS = sorted(n for n in SPECS if not n.startswith("omp_register_"))


@pytest.mark.parametrize("name", EVENT_SPECS)
def test_every_event_hook_declares_its_rule_and_types_its_event(name):
    import typing

    from omp.agent import events

    spec = SPECS[name]
    assert hasattr(spec, "omp_rule"), f"{name} lacks @combine(...)"
    hints = typing.get_type_hints(
        spec, {**vars(events), "HandlerContext": object, "OmpAPI": object}
    )
    assert isinstance(hints["event"], type) and issubclass(hints["event"], events.Event), name


def test_the_docstrings_do_not_repeat_the_rule_names():
    for name in EVENT_SPECS:
        doc = inspect.getdoc(SPECS[name]) or ""
        line = next(line for line in doc.splitlines() if "Combination:" in line)
        for rule in hookspecs.RULES:
            assert f"Combination: {rule}" not in line, f"{name} repeats its rule in prose"
