"""The user's models file never takes the catalogue down with it (issue 8, item 14):
an unreadable file is ignored with one problem naming file, line and column; an invalid
provider in a readable file disables that provider only."""

from __future__ import annotations

import json

import pytest
from omp_llm.config import load_providers, models_file_problems


def _write(agent_dir, providers) -> None:
    (agent_dir / "models.json").write_text(json.dumps({"providers": providers}))


def _names(agent_dir) -> set[str]:
    return {p.name for p in load_providers(agent_dir)}


def test_without_a_file_there_is_no_problem(tmp_path):
    assert models_file_problems(tmp_path) == []
    assert {"anthropic", "openai"} <= _names(tmp_path)


def test_a_syntax_error_keeps_the_catalogue_and_is_one_problem(tmp_path):
    (tmp_path / "models.json").write_text('{"providers": {"x": {"api": "a",, }}}')
    catalogue = {p.name for p in load_providers(tmp_path / "elsewhere")}

    assert _names(tmp_path) == catalogue
    [problem] = models_file_problems(tmp_path)
    assert f"{tmp_path / 'models.json'}: line 1, column 33" in problem
    assert "ignores this file" in problem


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1, 2]", 'expected an object with a "providers" object'),
        ('{"providers": []}', 'expected an object with a "providers" object'),
        (b"\xff\xfe", "cannot read"),
    ],
)
def test_a_file_of_the_wrong_shape_is_one_problem(tmp_path, text, expected):
    path = tmp_path / "models.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    assert "openai" in _names(tmp_path)
    [problem] = models_file_problems(tmp_path)
    assert str(path) in problem and expected in problem


def test_broken_yaml_names_its_line(tmp_path):
    pytest.importorskip("yaml", reason="models.yml needs PyYAML")
    (tmp_path / "models.yml").write_text("providers:\n  x: [unclosed\n")
    assert "openai" in _names(tmp_path)
    [problem] = models_file_problems(tmp_path)
    assert "models.yml" in problem and "line" in problem


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"baseUrl": "http://x", "api": "openai-completions", "models": [{}]}, "string id"),
        ({"baseUrl": "http://x", "api": "openai-completions", "models": {"id": "m"}}, "a list"),
        ({"baseUrl": "http://x", "api": "openai-completions", "models": ["m"]}, "an object"),
        ({"baseUrl": "http://x", "models": [{"id": "m"}]}, 'needs "api"'),
        ({"api": "openai-completions", "modelOverrides": []}, "an object"),
        ("not an object", "expected an object"),
    ],
)
def test_an_invalid_provider_disables_only_itself(tmp_path, entry, reason):
    _write(tmp_path, {"broken": entry, "mine": {"baseUrl": "http://y", "api": "a", "models": []}})

    names = _names(tmp_path)

    assert "broken" not in names and {"mine", "openai", "anthropic"} <= names
    [problem] = models_file_problems(tmp_path)
    assert problem.startswith("invalid provider 'broken' in ") and reason in problem
    assert "broken is disabled" in problem


@pytest.mark.parametrize(
    ("model", "line"),
    [
        (
            {"id": "m", "maxTokens": "lots"},
            'model mine/m: maxTokens: expected a whole number of at least 1, got "lots" '
            "(using the default 16384)",
        ),
        (
            {"id": "m", "cost": {"input": "cheap"}},
            "model mine/m: cost: expected an object of prices (numbers of at least 0), got "
            '{"input": "cheap"} (ignored)',
        ),
        (
            {"id": "m", "headers": {"X-Team": 7}},
            "model mine/m: headers: expected an object of strings, got an object (ignored)",
        ),
    ],
    ids=["maxTokens", "cost", "headers"],
)
def test_a_bad_model_field_is_left_out_and_the_provider_stays(tmp_path, model, line):
    _write(tmp_path, {"mine": {"baseUrl": "http://y", "api": "a", "models": [model]}})

    [provider] = [p for p in load_providers(tmp_path) if p.name == "mine"]

    assert [m.id for m in provider.models] == ["m"]
    assert (provider.models[0].max_tokens, provider.models[0].cost) == (16384, {})
    assert models_file_problems(tmp_path) == [f"{tmp_path / 'models.json'}: {line}"]


def test_a_bad_provider_field_is_left_out_and_a_key_is_never_quoted(tmp_path):
    entry = {
        "baseUrl": "http://y",
        "api": "a",
        "apiKey": ["sk-pasted-here-123"],
        "authHeader": "no",
        "models": [],
    }
    _write(tmp_path, {"mine": entry})

    [provider] = [p for p in load_providers(tmp_path) if p.name == "mine"]

    assert (provider.api_key, provider.auth_header) == (None, True)
    problems = models_file_problems(tmp_path)
    assert [p.split(": ", 2)[1:] for p in problems] == [
        [
            "provider mine",
            "apiKey: expected a string (a variable's name, the key, or !command), "
            "got a list (ignored)",
        ],
        [
            "provider mine",
            "authHeader: expected true or false, got a string (using the default true)",
        ],
    ]


def test_an_invalid_change_to_a_built_in_provider_disables_that_provider(tmp_path):
    _write(tmp_path, {"openai": {"baseUrl": "http://proxy", "models": [{"id": 3}]}})
    names = _names(tmp_path)
    assert "openai" not in names and "anthropic" in names
    [problem] = models_file_problems(tmp_path)
    assert "'openai'" in problem


def test_a_yaml_error_names_the_place_but_never_quotes_the_file(tmp_path):
    """PyYAML's message quotes the offending line, which may hold a literal key."""
    pytest.importorskip("yaml", reason="models.yml needs PyYAML")
    (tmp_path / "models.yml").write_text("providers:\n  x: {apiKey: sk-secret-123, api: [a}\n")
    [problem] = models_file_problems(tmp_path)
    assert "sk-secret" not in problem
    assert "models.yml: line 2, column 37: expected ',' or ']', but got '}'" in problem
