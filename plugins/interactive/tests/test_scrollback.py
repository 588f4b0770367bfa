"""What the process prints while the terminal UI runs is handed to the scrollback a
line at a time (tmux tests show it lands above the editor)."""

from __future__ import annotations

import io
import sys

from omp_mode_interactive.scrollback import Scrollback, _Lines


def test_prints_go_out_as_whole_lines_and_a_partial_one_at_the_end():
    out = io.StringIO()
    stream = _Lines(Scrollback(out), sys.__stdout__)
    print("first", "line", file=stream)
    stream.write("half a ")
    assert out.getvalue() == "first line\n"
    stream.write("line\nand a rest")
    assert out.getvalue() == "first line\nhalf a line\n"
    stream.finish()
    assert out.getvalue() == "first line\nhalf a line\nand a rest\n"


def test_the_stream_answers_as_the_terminal_would():
    stream = _Lines(Scrollback(io.StringIO()), sys.__stdout__)
    assert stream.isatty() == sys.__stdout__.isatty()
    assert stream.buffer is sys.__stdout__.buffer
    assert stream.encoding
    stream.flush()
    print("still usable after the application ended", file=stream, flush=True)
