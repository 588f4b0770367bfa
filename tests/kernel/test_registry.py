"""Registration hooks: what plugins contribute is validated, de-duplicated and sorted."""

from __future__ import annotations

import omp
from omp.plugin.contrib import Command, Flag, Renderer, RunMode, Shortcut


def noop(*args):
    return None


class Everything:
    @omp.hookimpl
    def omp_register_flags(self, api):
        return [Flag("zeta", "z"), Flag("alpha", "a", "string")]

    @omp.hookimpl
    def omp_register_modes(self, api):
        return [RunMode("custom-mode", "a mode", run=noop)]

    @omp.hookimpl
    def omp_register_commands(self, api):
        return [Command("hello", "say hello", noop)]

    @omp.hookimpl
    def omp_register_shortcuts(self, api):
        return [Shortcut("ctrl+g", "go", noop)]

    @omp.hookimpl
    def omp_register_renderers(self, api):
        return [Renderer("message", "note", noop), Renderer("tool", "note", noop)]


class Clashing:
    @omp.hookimpl
    def omp_register_flags(self, api):
        return [Flag("alpha", "again"), "not a flag"]

    @omp.hookimpl
    def omp_register_shortcuts(self, api):
        return [Shortcut("ctrl+g", "again", noop)]

    @omp.hookimpl
    def omp_register_renderers(self, api):
        raise RuntimeError("renderer table missing")


def test_each_kind_is_collected_sorted_and_checked(omp_harness):
    runtime = omp_harness.runtime([Everything(), Clashing()], entry_points=False)
    contributions = runtime.contributions
    assert [f.name for f in contributions.of("flags")] == ["alpha", "zeta"]
    assert contributions.of("flags")[0].description == "again"  # registered last, called first
    assert [m.name for m in contributions.of("modes")] == ["custom-mode"]
    assert [c.name for c in contributions.of("commands")] == ["hello"]
    assert [s.description for s in contributions.of("shortcuts")] == ["again"]
    assert [(r.kind, r.name) for r in contributions.of("renderers")] == [
        ("message", "note"),
        ("tool", "note"),
    ]
    problems = "\n".join(contributions.problems)
    assert "flag 'alpha' is registered by both Clashing and Everything" in problems
    assert "returned str from omp_register_flags; expected Flag" in problems
    assert "shortcut 'ctrl+g' is registered by both" in problems
    assert "Clashing failed while registering: RuntimeError: renderer table missing" in problems
    failed = {r.name: r.status for r in runtime.host.records}
    assert failed["Clashing"] == "degraded"  # still registered: its other hooks run


def test_the_kernel_starts_with_every_plugin_blocked(omp_harness):
    runtime = omp_harness.runtime(entry_points=False, discover=False)
    assert runtime.host.records == []
    assert runtime.contributions.of("providers") == []
    from omp.base.errors import OmpError
    from omp.runtime.bootstrap import SessionOptions, open_session

    try:
        open_session(runtime, SessionOptions(no_session=True))
    except OmpError as exc:
        assert "no providers are installed" in str(exc)
    else:
        raise AssertionError("a session without providers must not open")
