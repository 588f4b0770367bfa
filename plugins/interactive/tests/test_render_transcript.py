"""The transcript against event streams recorded from scripted sessions: what a user
would read in the scrollback and in the live tail."""

from __future__ import annotations

import re

from omp import CustomMessage, MessageEndEvent, Renderer, ToolExecutionUpdateEvent
from omp_mode_interactive.render import Theme
from omp_mode_interactive.render.tools import result_text
from omp_mode_interactive.render.width import strip_ansi
from render_screen import Screen, answer_events

ANSWER = (
    "# Plan\n\n"
    "First a paragraph that explains what happens next, long enough to wrap.\n\n"
    "- one item\n- another item\n\n"
    "```python\ndef add(a, b):\n    return a + b\n```\n\n"
    "Closing words."
)
PROMPT_MARK = "\u203a "
SGR = re.compile(r"\x1b\[([0-9;]*)m")


def painted(raw: str, text: str) -> set[str]:
    """The SGR parameters that style ``text`` where it appears in ``raw``."""
    return {m.group(1) for m in re.finditer(r"\x1b\[([0-9;]*)m" + re.escape(text), raw)}


def test_a_streamed_answer_reads_as_rendered_markdown(recorded):
    screen = Screen().play(recorded([{"text": ANSWER}], "make a plan").events)
    text = screen.text
    assert PROMPT_MARK + "make a plan" in text
    for visible in ("Plan", "First a paragraph", "• one item", "def add(a, b):", "Closing words."):
        assert visible in text
    assert "# Plan" not in text and "```" not in text
    assert (
        text.index("Plan") < text.index("one item") < text.index("def add") < text.index("Closing")
    )


def test_each_finished_block_is_printed_once_and_before_the_answer_ends(recorded):
    events = recorded([{"text": ANSWER}]).events
    screen = Screen()
    printed_while_streaming = 0
    for event in events:
        screen.transcript.handle(event)
        if event.type == "message_update":
            printed_while_streaming = len(screen.chunks)
    assert printed_while_streaming >= 3  # heading, paragraph, list left before the end
    for visible in ("Plan", "First a paragraph", "one item", "def add", "Closing words."):
        assert sum(strip_ansi(chunk).count(visible) for chunk in screen.chunks) == 1


def test_code_is_highlighted(recorded):
    screen = Screen().play(recorded([{"text": ANSWER}]).events)
    assert painted(screen.raw, "def")  # a keyword has its own colour
    assert painted(screen.raw, "def") != painted(screen.raw, "add")


def test_live_tail_shows_the_open_block_and_stays_bounded_as_the_answer_grows():
    paragraphs = "\n\n".join(f"Paragraph {n} says something about item {n}." for n in range(400))
    listing = "\n".join(f"    line_{n} = {n}" for n in range(300))
    text = f"{paragraphs}\n\n```python\n{listing}\n```\n\nThe end."
    lives = []
    screen = Screen()
    for event in answer_events(text):
        screen.transcript.handle(event)
        lives.append(screen.transcript.live())
    assert max(len(live.split("\n")) for live in lives) <= screen.transcript.max_live_lines
    assert max(len(live) for live in lives) < 4000
    assert any("Paragraph 399" in strip_ansi(live) for live in lives)
    assert screen.transcript.live() == ""  # nothing left open after the end
    assert screen.text.count("line_150 = 150") == 1
    assert screen.text.count("Paragraph 200 says") == 1


def test_tool_call_is_one_line_with_a_compact_result_that_expands(recorded):
    command = "for i in 1 2 3 4 5 6 7 8; do echo row $i; done"
    events = recorded(
        [{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "ok"}]
    ).events
    screen = Screen().play(events)
    lines = screen.text.split("\n")
    call = next(line for line in lines if line.startswith("● bash"))
    assert call == f"● bash $ {command}"
    # bash shows its last lines, where a failure says what went wrong
    assert "row 4" in screen.text and "row 8" in screen.text and "row 3" not in screen.text
    assert screen.text.index("… 3 earlier lines (Ctrl+O to expand)") < screen.text.index("row 4")
    screen.transcript.set_tools_expanded(True)
    assert "row 1" in screen.text
    assert screen.text.count("row 8") == 2


def test_a_failing_command_shows_its_exit_code_under_long_output(recorded):
    command = "for i in $(seq 1 30); do echo step $i; done; exit 3"
    events = recorded(
        [{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "ok"}]
    ).events
    text = Screen().play(events).text
    assert "Exit code: 3" in text
    assert "step 30" in text and "step 1\n" not in text


def test_other_tools_show_their_first_lines(recorded):
    listing = "".join(f"entry {n}\n" for n in range(1, 21))
    events = recorded(
        [{"tool_calls": [{"name": "read", "arguments": {"path": "listing.txt"}}]}, {"text": "ok"}],
        **{"listing.txt": listing},
    ).events
    text = Screen().play(events).text
    assert "entry 1" in text and "entry 20" not in text
    assert "more lines (Ctrl+O to expand)" in text


def test_bash_output_streams_in_the_live_tail(recorded):
    command = "for i in 1 2 3; do echo tick $i; sleep 0.05; done"
    events = recorded(
        [{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "ok"}]
    ).events
    assert any(e.type == "tool_execution_update" for e in events)
    screen = Screen()
    seen = []
    for event in events:
        screen.transcript.handle(event)
        if event.type == "tool_execution_update":
            seen.append(strip_ansi(screen.transcript.live()))
    assert "● bash $ for i in" in seen[-1]
    assert "tick" in seen[-1]
    assert screen.transcript.live() == ""


def test_edit_result_is_a_coloured_diff(recorded):
    edit = {"path": "a.txt", "edits": [{"oldText": "two", "newText": "TWO"}]}
    events = recorded(
        [{"tool_calls": [{"name": "edit", "arguments": edit}]}, {"text": "ok"}],
        **{"a.txt": "one\ntwo\nthree\n"},
    ).events
    theme = Theme.dark()
    screen = Screen(theme=theme).play(events)
    assert "● edit a.txt" in screen.text
    assert "-two" in screen.text and "+TWO" in screen.text and "@@ -1,3 +1,3 @@" in screen.text
    assert theme.styles["diff_del"] in painted(screen.raw, "-two")
    assert theme.styles["diff_add"] in painted(screen.raw, "+TWO")
    assert theme.styles["diff_add"] != theme.styles["diff_del"]


def test_provider_error_is_red_with_its_explanation(recorded):
    events = recorded([{"error": "429 rate limited: retry after 30 s"}]).events
    theme = Theme.dark()
    screen = Screen(theme=theme).play(events)
    line = next(line for line in screen.text.split("\n") if "rate limited" in line)
    assert line.startswith("✗ Error") and "retry after 30 s" in line
    assert theme.styles["error"] in {m.group(1) for m in SGR.finditer(screen.raw)}


def test_thinking_is_dimmed_or_collapsed(recorded):
    steps = [{"thinking": "Consider the options carefully.", "text": "Answer."}]
    events = recorded(steps).events
    shown = Screen().play(events)
    assert "Consider the options carefully." in shown.text
    assert any("2" in params.split(";") for params in painted(shown.raw, "Consider"))
    hidden = Screen(show_thinking=False).play(events)
    assert "Consider the options" not in hidden.text
    assert "thinking hidden (4 words)" in hidden.text
    assert "Answer." in hidden.text


def test_plugin_renderers_draw_their_tools_and_messages(recorded):
    thought = {
        "thought": "look first",
        "thoughtNumber": 1,
        "totalThoughts": 2,
        "nextThoughtNeeded": True,
    }
    recording = recorded(
        [{"tool_calls": [{"name": "sequential_thinking", "arguments": thought}]}, {"text": "ok"}]
    )
    screen = Screen(renderers=recording.renderers).play(recording.events)
    assert "• 1/2 look first" in screen.text
    assert "● sequential_thinking" not in screen.text

    note = Renderer("message", "note", lambda message, options: [f"NOTE: {message.content}"])
    screen = Screen(renderers={("message", "note"): note})
    screen.transcript.handle(
        MessageEndEvent(message=CustomMessage(custom_type="note", content="hi"))
    )
    screen.transcript.handle(
        MessageEndEvent(message=CustomMessage(custom_type="other", content="plain"))
    )
    assert "NOTE: hi" in screen.text
    assert "[other]" in screen.text and "plain" in screen.text


def test_a_failing_renderer_falls_back_to_the_default_view(recorded):
    def broken(event, options):
        raise RuntimeError("boom")

    recording = recorded(
        [{"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]}, {"text": "ok"}]
    )
    screen = Screen(renderers={("tool", "bash"): Renderer("tool", "bash", broken)})
    screen.play(recording.events)
    assert "● bash $ echo hi" in screen.text and "hi" in screen.text


def test_everything_fits_80_columns_and_wide_terminals(recorded):
    long_word = "x" * 150
    steps = [
        {
            "text": f"A very long line {long_word} in the answer.",
            "tool_calls": [{"name": "bash", "arguments": {"command": f"echo {long_word}"}}],
        },
        {"error": "overloaded: " + "the provider said no " * 10},
    ]
    events = recorded(steps, "prompt " + "word " * 40).events
    assert Screen(width=80).play(events).widest() <= 80
    wide = Screen(width=200).play(events)
    assert wide.widest() <= 200
    assert f"echo {long_word}" in wide.text  # room for the whole command


def test_error_lines_wrap_between_words(recorded):
    reason = "overloaded: " + "the provider said no " * 10
    events = recorded([{"error": reason}]).events
    text = Screen(width=40).play(events).text
    lines = [line.strip() for line in text[text.index("✗") :].strip().split("\n")]
    assert len(lines) > 2
    assert " ".join(lines) == "✗ Error: " + reason.strip()


def test_progress_output_shows_what_the_terminal_would(recorded):
    command = "printf 'get 10%%\\rget 50%%\\rget 100%%\\n'"
    events = recorded(
        [{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "ok"}]
    ).events
    text = Screen().play(events).text
    assert "⎿  get 100%\n" in text


def test_no_color_means_no_escape_codes(recorded):
    edit = {"path": "a.txt", "edits": [{"oldText": "two", "newText": "TWO"}]}
    steps = [
        {
            "thinking": "hmm",
            "text": ANSWER + "\n\nSee [the docs](https://example.com).",
            "tool_calls": [{"name": "edit", "arguments": edit}],
        },
        {"error": "bad gateway"},
    ]
    events = recorded(steps, **{"a.txt": "one\ntwo\n"}).events
    theme = Theme.from_environment(env={"NO_COLOR": "1"})
    screen = Screen(theme=theme).play(events)
    assert "\x1b" not in screen.raw
    assert all("\x1b" not in live for live in screen.lives)
    assert "def add(a, b):" in screen.raw and "+TWO" in screen.raw
    assert "the docs (https://example.com)" in screen.raw


def test_light_theme_uses_its_own_colours(recorded):
    edit = {"path": "a.txt", "edits": [{"oldText": "two", "newText": "TWO"}]}
    events = recorded(
        [{"tool_calls": [{"name": "edit", "arguments": edit}]}, {"text": "ok"}],
        **{"a.txt": "one\ntwo\n"},
    ).events
    light, dark = Screen(theme=Theme.light()).play(events), Screen(theme=Theme.dark()).play(events)
    assert light.text == dark.text
    assert Theme.light().styles["diff_add"] in painted(light.raw, "+TWO")
    assert painted(light.raw, "+TWO") != painted(dark.raw, "+TWO")


def test_replay_of_a_resumed_session_shows_the_same_conversation(recorded):
    steps = [
        {
            "text": "Let me look.",
            "tool_calls": [{"name": "bash", "arguments": {"command": "echo found"}}],
        },
        {"text": "It **is** there."},
    ]
    recording = recorded(steps, "where is it?")
    live = Screen().play(recording.events)
    replayed = Screen()
    replayed.transcript.replay(recording.messages)
    for visible in (
        PROMPT_MARK + "where is it?",
        "Let me look.",
        "● bash $ echo found",
        "found",
        "It is there.",
    ):
        assert visible in replayed.text
    shown = "\n".join(
        line for line in live.text.split("\n") if not line.startswith(("•", "✗", "  "))
    )
    again = "\n".join(line for line in replayed.text.split("\n") if not line.startswith("  "))
    assert again.strip() == shown.strip()


def test_resize_and_thinking_toggle_apply_to_what_comes_next(recorded):
    steps = [{"thinking": "first thought\n\nsecond thought", "text": "word " * 60}]
    events = recorded(steps).events
    start = next(i for i, e in enumerate(events) if e.type == "message_update")
    screen = Screen(width=120).play(events[:start])
    screen.transcript.resize(40)
    screen.transcript.set_show_thinking(False)
    screen.play(events[start:])
    assert "first thought" not in screen.text and "thinking hidden (4 words)" in screen.text
    answer = screen.text[screen.text.index("word") :].strip().split("\n")
    assert len(answer) > 5 and max(len(line) for line in answer) <= 40


def test_warm_up_loads_the_renderers_before_the_first_answer():
    screen = Screen()
    screen.transcript.warm_up()
    assert screen.chunks == [] and screen.transcript.live() == ""


def test_a_tool_renderer_draws_the_running_tool_from_its_updates(recorded):
    def progress(event, options):
        if options.get("partial"):
            output = result_text(event.partial_result) if event.type.endswith("update") else ""
            return [f"RUNNING {event.tool_name}: {len(output.splitlines())} lines so far"]
        return [f"DONE {event.tool_name}"]

    recording = recorded(
        [{"tool_calls": [{"name": "bash", "arguments": {"command": "echo a"}}]}, {"text": "ok"}]
    )
    start = next(e for e in recording.events if e.type == "tool_execution_start")
    screen = Screen(renderers={("tool", "bash"): Renderer("tool", "bash", progress)})
    screen.play([start])
    assert "RUNNING bash: 0 lines so far" in strip_ansi(screen.lives[-1])
    partial = {"content": [{"type": "text", "text": "a\nb\nc\n"}]}
    update = ToolExecutionUpdateEvent(
        tool_call_id=start.tool_call_id, tool_name="bash", partial_result=partial
    )
    screen.play([update])
    assert "RUNNING bash: 3 lines so far" in strip_ansi(screen.lives[-1])
    screen.play(recording.events[recording.events.index(start) + 1 :])
    assert "DONE bash" in screen.text and "RUNNING" not in screen.text


def test_a_renderer_for_finished_tools_only_leaves_the_default_running_view(recorded):
    def finished_only(event, options):
        return [f"DONE {event.tool_name} {result_text(event.result).strip()}"]

    recording = recorded(
        [{"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]}, {"text": "ok"}]
    )
    screen = Screen(renderers={("tool", "bash"): Renderer("tool", "bash", finished_only)})
    screen.play(recording.events)
    assert any("● bash $ echo hi" in strip_ansi(live) for live in screen.lives)
    assert "DONE bash hi" in screen.text


def test_a_failing_hook_is_shown_once_per_plugin_and_hook():
    from omp import ExtensionErrorEvent

    def failure(hook: str, times: int) -> ExtensionErrorEvent:
        return ExtensionErrorEvent(
            extension_path="ext:flaky", event=hook, error="RuntimeError: no", occurrence=times
        )

    screen = Screen().play([failure("turn_end", n) for n in (1, 2, 3)] + [failure("input", 1)])
    assert screen.text.count("plugin ext:flaky failed in turn_end") == 1
    assert screen.text.count("plugin ext:flaky failed in input") == 1
