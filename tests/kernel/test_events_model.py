"""model_select and thinking_level_select: what a plugin sees when the model or the
thinking level changes, and where the change came from."""

from __future__ import annotations

import omp


class Watch:
    def __init__(self) -> None:
        self.models: list = []
        self.levels: list = []

    @omp.hookimpl
    def omp_model_select(self, event):
        previous = event.previous_model.key if event.previous_model else None
        self.models.append((event.model.key, previous, event.source))

    @omp.hookimpl
    def omp_thinking_level_select(self, event):
        self.levels.append((event.level, event.previous_level, event.source))


def test_set_model_and_thinking_level_fire_select_events(make_session, omp_harness, monkeypatch):
    monkeypatch.setenv("OMP_SCRIPT", str(omp_harness.script([{"text": "s"}])))
    watch = Watch()

    class Switch:
        @omp.hookimpl
        def omp_session_start(self, api):
            api.set_model("scripted/demo")
            api.set_model("nope/none")  # unusable: no event
            api.set_thinking_level("high")

    session, _ = make_session([], plugins=[watch, Switch()])
    omp_harness.run(session, "go")
    assert watch.models == [("scripted/demo", "test/model", "set")]
    assert watch.levels == [("high", "off", "set")]


def test_a_resumed_session_restores_its_model_and_level_with_source_restore(
    make_session, omp_harness
):
    path = omp_harness.cwd / "s.jsonl"
    first, _ = make_session([{"text": "a"}], session_path=str(path), thinking="low")
    omp_harness.run(first, "one")
    watch = Watch()
    again, _ = make_session([{"text": "b"}], plugins=[watch], session_path=str(path))
    omp_harness.run(again, "two")
    assert watch.models == [("test/model", None, "restore")]
    assert watch.levels == [("low", None, "restore")]


def test_a_fresh_session_fires_no_restore(make_session, omp_harness):
    watch = Watch()
    session, _ = make_session([{"text": "a"}], plugins=[watch])
    omp_harness.run(session, "one")
    assert watch.models == [] and watch.levels == []
