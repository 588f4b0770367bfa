"""An unknown or ambiguous model name suggests what the user can use or configured first
(issue 8, item 17), not the first ten models of the alphabetically first provider."""

from __future__ import annotations

import pytest
from omp.agent.providers import Model, ModelRegistry, Provider
from omp.base.errors import OmpError


class Fake(Provider):
    def __init__(self, name, ids, *, usable=False, configured="", fallback=False, priority=10):
        super().__init__([Model(provider=name, id=i) for i in ids])
        self.name, self.priority, self.fallback = name, priority, fallback
        self.configured_in = configured
        self._usable = usable

    def unavailable_reason(self, settings):
        return None if self._usable else "no API key"


def _registry() -> ModelRegistry:
    return ModelRegistry(
        [
            Fake("aaa", [f"big-{n}" for n in range(12)], priority=1),
            Fake("demo", ["replay"], usable=True, fallback=True),
            Fake("keyed", ["fast-model"], usable=True, priority=5),
            Fake("mine", ["house-model"], usable=True, configured="/home/u/models.json"),
            Fake("theirs", ["gpt-x"], configured="/home/u/models.json"),
        ]
    )


def _suggested(pattern: str) -> list[str]:
    with pytest.raises(OmpError) as caught:
        _registry().resolve(pattern)
    listed = str(caught.value).split(": ", 1)[1].split(" (`omp models`")[0]
    return listed.split(", ")


def test_nothing_close_lists_configured_then_keyed_then_the_rest():
    assert _suggested("zzzzqq")[:5] == [
        "mine/house-model",
        "keyed/fast-model",
        "theirs/gpt-x",
        "demo/replay",
        "aaa/big-0",
    ]


def test_ambiguous_matches_put_the_usable_first():
    registry = ModelRegistry(
        [Fake("aaa", ["shared"], priority=1), Fake("zzz", ["shared"], usable=True)]
    )
    with pytest.raises(OmpError, match=r"ambiguous; closest matches: zzz/shared, aaa/shared"):
        registry.resolve("shared")


def test_a_unique_match_still_resolves():
    assert _registry().resolve("house-model").key == "mine/house-model"
