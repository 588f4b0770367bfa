"""The fields of a provider and of its models in the user's models.json / models.yml,
checked one by one.

A field of the wrong type is left out, so the model keeps the value it would have had
without it (the default, or the built-in model's for ``modelOverrides``), and one line
names the file, the provider or model, the field, what was expected and what is used
instead; the provider stays usable. A field omp does not know is kept (pi and omp read
more). What makes a provider unusable (no id, no api) is ``omp_llm.config``'s to say.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from omp import shown_setting_value

INPUT_KINDS = ("text", "image")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def _string(value: Any) -> bool:
    return isinstance(value, str)


def _strings(value: Any) -> bool:
    return isinstance(value, Mapping) and all(isinstance(v, str) for v in value.values())


def _input(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(v in INPUT_KINDS for v in value)


Rules = dict[str, tuple[Callable[[Any], bool], str]]

MODEL_FIELDS: Rules = {
    "name": (_string, "a string"),
    "api": (_string, "a string"),
    "baseUrl": (_string, "a string"),
    "contextWindow": (_whole, "a whole number of at least 1"),
    "maxTokens": (_whole, "a whole number of at least 1"),
    "reasoning": (lambda v: isinstance(v, bool), "true or false"),
    "input": (_input, 'a list of "text" and "image"'),
    "cost": (
        lambda v: isinstance(v, Mapping) and all(_number(x) for x in v.values()),
        "an object of prices (numbers of at least 0)",
    ),
    "compat": (lambda v: isinstance(v, Mapping), "an object"),
    "headers": (_strings, "an object of strings"),
    "thinkingLevelMap": (lambda v: isinstance(v, Mapping), "an object"),
}
"""Field of a model -> (test, what a valid value is)."""

PROVIDER_FIELDS: Rules = {
    "api": (_string, "a string"),
    "baseUrl": (_string, "a string"),
    "apiKey": (_string, "a string (a variable's name, the key, or !command)"),
    "authHeader": (lambda v: isinstance(v, bool), "true or false"),
    "headers": (_strings, "an object of strings"),
    "compat": (lambda v: isinstance(v, Mapping), "an object"),
}
"""Field of a provider -> (test, what a valid value is)."""


def checked_fields(
    raw: Mapping[str, Any],
    rules: Rules,
    label: str,
    current: Mapping[str, Any],
    problems: list[str],
    *,
    defaults: bool = False,
) -> dict[str, Any]:
    """``raw`` without its invalid fields; one line per field left out is appended to
    ``problems``; a null field counts as not written. ``label`` names the model
    (``models.json: model local/qwen``); ``current`` holds the values that stay in
    effect instead (``defaults``: they are the defaults)."""
    kept: dict[str, Any] = {}
    for name, value in raw.items():
        rule = rules.get(name)
        if rule is None:
            kept[name] = value
            continue
        test, expected = rule
        if value is None:  # written as null: not set
            continue
        if test(value):
            kept[name] = value
            continue
        instead = "ignored"
        if current.get(name) is not None:
            shown = shown_setting_value("", current[name])
            instead = f"using {'the default ' if defaults else ''}{shown}"
        got = shown_setting_value(name, value)
        problems.append(f"{label}: {name}: expected {expected}, got {got} ({instead})")
    return kept
