"""Retry fallback: when a request to the model fails for good, the next model of its
``retry.fallbackChains`` entry answers instead (retry_fallback_applied, then
retry_fallback_succeeded); the next prompt tries the primary model again."""

from __future__ import annotations

import json

import omp
from doubles import Contribute, ListProvider
from omp.agent.providers import Model


class Backup(ListProvider):
    name = "backup"

    def __init__(self, replies):
        super().__init__(replies)
        self.models = [Model(provider="backup", id="model", api="test")]


class Watch:
    def __init__(self) -> None:
        self.seen: list = []

    @omp.hookimpl
    def omp_retry_fallback_applied(self, event):
        self.seen.append(("applied", event.from_, event.to, event.role))

    @omp.hookimpl
    def omp_retry_fallback_succeeded(self, event):
        self.seen.append(("succeeded", event.model, event.role))


def _settings(omp_harness, **retry) -> None:
    (omp_harness.agent_dir / "settings.json").write_text(json.dumps({"retry": retry}))


def _answers(log) -> list[tuple[str, str]]:
    ends = [e.message for e in log.of("message_end") if e.message.role == "assistant"]
    return [(f"{m.provider}/{m.model}", m.text or m.error_message) for m in ends]


def test_a_failed_request_falls_back_along_the_chain(make_session, omp_harness):
    _settings(omp_harness, fallbackChains={"test/model": ["nope/none", "backup/model"]})
    watch, backup = Watch(), Backup([{"text": "backup answers"}])
    session, _ = make_session(
        [{"error": "overloaded"}, {"text": "primary again"}],
        plugins=[watch, Contribute([backup])],
    )
    log = omp_harness.run(session, "one", "two")
    assert _answers(log) == [
        ("test/model", "overloaded"),
        ("backup/model", "backup answers"),
        ("test/model", "primary again"),
    ]
    assert watch.seen == [
        ("applied", "test/model", "backup/model", "default"),
        ("succeeded", "backup/model", "default"),
    ]
    assert log.of("retry_fallback_applied")  # also an event for the modes
    assert any("backup/model" in e.message for e in log.of("notice"))


def test_when_every_fallback_fails_the_error_stands(make_session, omp_harness):
    _settings(omp_harness, fallbackChains={"default": ["backup/model"]})
    watch, backup = Watch(), Backup([{"error": "also down"}])
    session, _ = make_session([{"error": "down"}], plugins=[watch, Contribute([backup])])
    log = omp_harness.run(session, "one")
    assert [a[1] for a in _answers(log)] == ["down", "also down"]
    assert [s[0] for s in watch.seen] == ["applied"]


def test_model_fallback_off_or_no_chain_means_no_fallback(make_session, omp_harness):
    _settings(omp_harness, modelFallback=False, fallbackChains={"default": ["backup/model"]})
    watch, backup = Watch(), Backup([{"text": "never"}])
    session, _ = make_session([{"error": "down"}], plugins=[watch, Contribute([backup])])
    log = omp_harness.run(session, "one")
    assert _answers(log) == [("test/model", "down")]
    assert watch.seen == [] and backup.requests == []
