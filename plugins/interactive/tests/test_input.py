"""The editor's helpers without a terminal: the fuzzy file ranking (its pure-Python
fallback), ``@file`` attachments and dropped images, and /reload's command line."""

from __future__ import annotations

import base64
import sys

import pytest
from omp_mode_interactive.attachments import attach, dropped_image
from omp_mode_interactive.commands import reexec_argv
from omp_mode_interactive.completion import fuzzy_score, rank_paths

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
PATHS = [
    "README.md",
    "src/app/main.py",
    "src/app/models.py",
    "docs/manual/intro.md",
    "tests/test_main.py",
    "src/mainframe/legacy.py",
]


@pytest.fixture
def without_natives(monkeypatch):
    """The natives module missing: ranking falls back to the Python scorer."""
    monkeypatch.setitem(sys.modules, "omp_natives", None)


def test_the_fallback_ranks_a_file_name_match_above_a_scattered_one(without_natives):
    ranked = rank_paths("main", PATHS, 10)
    assert ranked[0] == "src/app/main.py"
    assert "README.md" not in ranked  # not a subsequence
    assert ranked[1:3] == ["tests/test_main.py", "src/mainframe/legacy.py"]
    assert ranked[3:] == ["docs/manual/intro.md"]  # m-a-i-n scattered over two words


def test_the_fallback_prefers_consecutive_letters_and_word_starts(without_natives):
    assert fuzzy_score("mdl", "src/app/models.py") is not None
    assert fuzzy_score("models", "src/app/models.py") > fuzzy_score("mdl", "src/app/models.py")
    assert fuzzy_score("xyz", "src/app/models.py") is None
    assert rank_paths("intro", PATHS, 10) == ["docs/manual/intro.md"]


def test_the_fallback_honours_the_limit_and_an_empty_query_lists_shallow_paths_first(
    without_natives,
):
    assert len(rank_paths("a", PATHS, 2)) == 2
    assert rank_paths("", PATHS, 2) == ["README.md", "tests/test_main.py"]


def test_a_text_file_goes_along_with_the_prompt(tmp_path):
    (tmp_path / "notes.txt").write_text("remember the milk\n")
    text, images, problems = attach("summarise @notes.txt, please", str(tmp_path), False)
    assert text.startswith("summarise @notes.txt, please")
    assert '<file name="notes.txt">\nremember the milk\n</file>' in text
    assert images == [] and problems == []


def test_an_at_word_that_is_no_file_stays_as_it_is(tmp_path):
    text, images, problems = attach("ping @someone about it", str(tmp_path), True)
    assert text == "ping @someone about it" and images == [] and problems == []


def test_an_image_is_attached_only_where_the_model_accepts_images(tmp_path):
    (tmp_path / "shot.png").write_bytes(PNG)
    text, images, problems = attach("what is in @shot.png", str(tmp_path), True)
    assert images == [
        {"type": "image", "data": base64.b64encode(PNG).decode(), "mime_type": "image/png"}
    ]
    assert "<file" not in text and problems == []
    text, images, problems = attach("what is in @shot.png", str(tmp_path), False)
    assert images == []
    assert problems == ["shot.png: the model does not accept images; not attached"]


def test_a_binary_file_is_refused_with_a_reason(tmp_path):
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02" * 10)
    text, _images, problems = attach("@blob.bin", str(tmp_path), True)
    assert text == "@blob.bin"
    assert problems == ["blob.bin: binary or larger than 512 KiB; not attached"]


def test_a_quoted_path_with_spaces_attaches(tmp_path):
    (tmp_path / "my notes.md").write_text("spaced out\n")
    text, _images, problems = attach('read @"my notes.md"', str(tmp_path), False)
    assert '<file name="my notes.md">\nspaced out\n</file>' in text and problems == []


@pytest.mark.parametrize(
    "pasted",
    [
        "{path}",
        "  {path}  ",
        "'{path}'",
        "file://{path}",
    ],
)
def test_a_pasted_or_dragged_image_path_becomes_an_at_word(tmp_path, pasted):
    image = tmp_path / "screen shot.png"
    image.write_bytes(PNG)
    path = str(image)
    if pasted.startswith("file://"):
        path = path.replace(" ", "%20")
    assert dropped_image(pasted.format(path=path), "/") == f'@"{image}"'


def test_escaped_spaces_and_relative_paths_are_understood(tmp_path):
    (tmp_path / "a b.jpg").write_bytes(PNG)
    assert dropped_image("a\\ b.jpg", str(tmp_path)) == '@"a b.jpg"'
    (tmp_path / "plain.webp").write_bytes(PNG)
    assert dropped_image("plain.webp", str(tmp_path)) == "@plain.webp"


def test_other_pastes_are_not_images(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "one.png").write_bytes(PNG)
    for pasted in ["notes.txt", "missing.png", "one.png one.png", "look at one.png", "a\nb"]:
        assert dropped_image(pasted, str(tmp_path)) is None, pasted


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["omp"], ["omp", "--session", "/s.jsonl"]),
        (
            ["omp", "--model", "x/y", "--continue", "hello"],
            ["omp", "--model", "x/y", "hello", "--session", "/s.jsonl"],
        ),
        (
            ["omp", "--resume", "--thinking", "high"],
            ["omp", "--thinking", "high", "--session", "/s.jsonl"],
        ),
        (["omp", "-r", "abc123", "-e", "ext.py"], ["omp", "-e", "ext.py", "--session", "/s.jsonl"]),
        (["omp", "--session=/old.jsonl", "--no-session"], ["omp", "--session", "/s.jsonl"]),
        (["omp", "--fork", "/old.jsonl", "-c"], ["omp", "--session", "/s.jsonl"]),
    ],
)
def test_reload_starts_again_in_this_session_with_the_other_flags_kept(argv, expected):
    assert reexec_argv(argv, "/s.jsonl") == expected


@pytest.mark.parametrize(
    ("sequence", "keys"),
    [
        ("\x1b[27;2;13~", ("c-j",)),  # Shift+Enter from xterm or tmux: a newline, not send
        ("\x1b[13;2u", ("c-j",)),
        ("\x1b[13;3u", ("escape", "c-m")),  # Alt+Enter
        ("\x1b[27;5;13~", ("c-m",)),  # Ctrl+Enter sends
        ("\x1b[9;5u", ("c-i",)),  # Ctrl+Tab is no Esc followed by text
        ("\x1b[27;5;127~", ("c-h",)),
    ],
)
def test_modified_keys_a_terminal_reports_are_read_whole(sequence, keys):
    from omp_mode_interactive.keys import teach_extended_keys
    from prompt_toolkit.input.vt100_parser import Vt100Parser

    teach_extended_keys()
    pressed = []
    parser = Vt100Parser(pressed.append)
    parser.feed(sequence)
    parser.flush()
    assert tuple(p.key for p in pressed) == keys
