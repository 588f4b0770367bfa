"""The footer: what it says, and that it always fits the terminal's width."""

from __future__ import annotations

import pytest
from omp_mode_interactive.render import FooterInfo, Theme, render_footer
from omp_mode_interactive.render.width import strip_ansi, text_width

INFO = FooterInfo(
    model="anthropic/claude-sonnet-4-5",
    thinking_level="high",
    context_percent=42.5,
    context_window=200_000,
    tokens_in=12_345,
    tokens_out=678,
    cost=0.0123,
    statuses={"seqthink": "thoughts 2/5", "lint": "clean"},
    working_message="Reading files",
    session_name="修正 the flaky test",
    cwd="/work/project",
)


def test_footer_says_model_thinking_usage_cost_and_statuses():
    lines = strip_ansi(render_footer(INFO, 100, Theme.dark())).split("\n")
    assert lines[0] == "/work/project • 修正 the flaky test"
    assert lines[1].startswith("↑12k ↓678 $0.012 42.5%/200k")
    assert lines[1].endswith("anthropic/claude-sonnet-4-5 • high")
    assert lines[2] == "Reading files · clean · thoughts 2/5"


@pytest.mark.parametrize("width", [20, 40, 80, 200])
def test_every_line_fits_the_width(width):
    for theme in (Theme.dark(), Theme.no_color()):
        for line in strip_ansi(render_footer(INFO, width, theme)).split("\n"):
            assert text_width(line) <= width


def test_a_narrow_terminal_drops_the_model_before_cutting_the_usage():
    line = strip_ansi(render_footer(INFO, 30, Theme.no_color())).split("\n")[1]
    assert line == "↑12k ↓678 $0.012 42.5%/200k"
    place = strip_ansi(render_footer(INFO, 25, Theme.no_color())).split("\n")[0]
    assert place == "/work/project • 修正 the…"  # the wide characters count twice


def test_context_nearly_full_is_coloured():
    theme = Theme.dark()
    full = render_footer(FooterInfo(model="m", context_percent=95.0), 80, theme)
    assert f"\x1b[{theme.styles['ctx_full']}m 95.0%" in full


def test_no_color_footer_has_no_escape_codes():
    assert "\x1b" not in render_footer(INFO, 80, Theme.from_environment(env={"NO_COLOR": "1"}))


def test_theme_from_environment():
    assert Theme.from_environment(env={"NO_COLOR": "1"}, name="light").name == "no-color"
    assert Theme.from_environment(env={"COLORFGBG": "0;15"}).name == "light"
    assert Theme.from_environment(env={}).name == "dark"
    assert Theme.from_environment(env={"COLORTERM": "truecolor"}).color_system == "truecolor"
    with pytest.raises(ValueError, match="unknown theme 'blue'"):
        Theme.from_environment("blue", env={})


@pytest.mark.parametrize("natives", [True, False])
def test_width_counts_terminal_cells_with_or_without_natives(natives, monkeypatch):
    from omp_mode_interactive.render import width

    if not natives:
        monkeypatch.setattr(width, "_natives", lambda: None)
    elif width._natives() is None:
        pytest.skip("the natives extension is not built here (no cargo)")
    assert width.text_width("日本語 ok") == 9
    assert width.truncate("日本語テキスト", 7) == "日本語…"
    assert width.wrap("日本語 テキスト", 8) == ["日本語", "テキスト"]
