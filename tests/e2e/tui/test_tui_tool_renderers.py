"""A tool's own ``render_call``/``render_result`` in the terminal (tmux), and a renderer
that raises: reported naming its plugin and tool, the default view shown instead
(issue 25, gap 7)."""

from __future__ import annotations

from rendering_plugin import RENDERING_PLUGIN
from tui_script import answer


def test_a_tools_renderers_draw_its_call_and_result_and_a_failing_one_is_reported(
    terminal, omp_cli
):
    extension = omp_cli.extension(RENDERING_PLUGIN, "rendering.py")
    calls = [
        {"name": "weather", "arguments": {"city": "Paris"}},
        {"name": "flaky", "arguments": {"city": "Oslo"}},
    ]
    script = omp_cli.script([{"tool_calls": calls}, answer("forecast done")])
    terminal.start("--script", script, "-e", extension).ready()
    terminal.submit("weather?")
    screen = terminal.wait_for("forecast done")
    assert "● Weather in Paris\n  ⎿  sunny, 21 C\n     wind: calm" in screen
    assert "raw data for Paris" not in screen and "weather city=Paris" not in screen
    assert "failed in render_result: tool 'flaky': RuntimeError: renderer broke" in screen
    assert "● flaky city=Oslo\n  ⎿  flaky default output" in screen
