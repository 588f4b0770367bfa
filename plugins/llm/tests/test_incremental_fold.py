"""omp_llm.incremental.WireCache with a toy fold: resuming from the longest unchanged
prefix, separate conversations side by side, and a failed conversion never resumed."""

from __future__ import annotations

from typing import Any

import pytest
from omp_llm.incremental import WireCache


class Pairs:
    """Joins messages two by two: ["a", "b", "c"] -> ["a+b"], with "c" still open."""

    def __init__(self, seen: list[str]) -> None:
        self.items: list[str] = []
        self.open: str | None = None
        self.seen = seen

    def add(self, message: str) -> None:
        if message == "boom":
            self.items.append("half")
            raise ValueError("cannot convert")
        self.seen.append(message)
        if self.open is None:
            self.open = message
        else:
            self.items.append(f"{self.open}+{message}")
            self.open = None

    def save(self) -> Any:
        return self.open

    def load(self, saved: Any) -> None:
        self.open = saved

    def end(self) -> tuple[int, list[str]]:
        return len(self.items), [self.open] if self.open is not None else []


def expected(messages: list[str]) -> list[str]:
    out = [f"{a}+{b}" for a, b in zip(messages[::2], messages[1::2], strict=False)]
    return out + ([messages[-1]] if len(messages) % 2 else [])


def test_only_new_messages_are_converted_and_encoded():
    cache, seen = WireCache(), []
    history = [f"m{n}" for n in range(7)]
    first = cache.convert("model", history, lambda: Pairs(seen))
    assert first.items == expected(history)
    assert first.encoded == [b'"m0+m1",', b'"m2+m3",', b'"m4+m5",']
    history += ["m7", "m8"]
    seen.clear()
    assert cache.convert("model", history, lambda: Pairs(seen)).items == expected(history)
    assert seen == ["m7", "m8"]


@pytest.mark.parametrize("cut", [0, 1, 3, 4, 6])
def test_a_changed_message_resumes_from_the_message_before_it(cut):
    cache, seen = WireCache(), []
    history = [f"m{n}" for n in range(7)]
    cache.convert("model", history, lambda: Pairs(seen))
    edited = [*history[:cut], "new", *history[cut + 1 :]]
    seen.clear()
    converted = cache.convert("model", edited, lambda: Pairs(seen))
    assert converted.items == expected(edited)
    assert seen == edited[cut:]
    kept = len(converted.encoded)
    assert converted.encoded == [f'"{item}",'.encode() for item in converted.items[:kept]]


def test_conversations_and_models_side_by_side_keep_their_own_state():
    cache, seen = WireCache(), []
    main, side = [f"m{n}" for n in range(6)], [f"s{n}" for n in range(4)]
    for messages, key in ((main, "a"), (side, "a"), (main, "b")):
        cache.convert(key, messages, lambda: Pairs(seen))
    seen.clear()
    assert cache.convert("a", [*main, "x"], lambda: Pairs(seen)).items == expected([*main, "x"])
    assert cache.convert("a", [*side, "y"], lambda: Pairs(seen)).items == expected([*side, "y"])
    assert cache.convert("b", main, lambda: Pairs(seen)).items == expected(main)
    assert seen == ["x", "y"]


def test_a_failed_conversion_is_not_resumed():
    cache, seen = WireCache(), []
    history = ["m0", "m1", "m2"]
    cache.convert("model", history, lambda: Pairs(seen))
    with pytest.raises(ValueError, match="cannot convert"):
        cache.convert("model", [*history, "boom"], lambda: Pairs(seen))
    seen.clear()
    converted = cache.convert("model", [*history, "m3"], lambda: Pairs(seen))
    assert converted.items == ["m0+m1", "m2+m3"]
    assert seen == [*history, "m3"]  # converted afresh
