"""What the terminal shows around the transcript (tmux): a plugin's statuses, widgets,
working message, title and editor text through ``ctx.ui``; newlines in the editor;
Ctrl+O on a long tool result; thinking shown, toggled with Ctrl+T or hidden with
--hide-thinking; the footer's usage; @file completion that skips ignored files."""

from __future__ import annotations

import subprocess
import textwrap

from tui_script import answer, bash_call

DECORATING_PLUGIN = textwrap.dedent(
    """
    import asyncio

    import omp
    from omp import Command


    async def decorate(args, ctx):
        ctx.ui.set_status("deploy", "deploy: staging")
        ctx.ui.set_widget("todo", ["widget line one", "widget line two"])
        ctx.ui.set_title("Custom title")
        ctx.ui.set_editor_text("prefilled by the plugin")


    async def read_editor(args, ctx):
        ctx.ui.notify(f"editor holds {ctx.ui.get_editor_text()!r}")


    async def undecorate(args, ctx):
        ctx.ui.set_status("deploy", None)
        ctx.ui.set_widget("todo", None)


    async def busy(args, ctx):
        ctx.ui.set_working_message("Polishing the lenses")
        await asyncio.sleep(3)
        ctx.ui.set_working_message(None)


    @omp.hookimpl
    def omp_register_commands(api):
        return [
            Command("decorate", "Decorate the screen", decorate),
            Command("readeditor", "Say what the editor holds", read_editor),
            Command("undecorate", "Take the decorations away", undecorate),
            Command("busy", "Work a while", busy),
        ]
    """
)
PRINTING_PLUGIN = textwrap.dedent(
    """
    import sys
    import threading

    import omp


    @omp.hookimpl
    def omp_agent_start(event, ctx):
        print("PRINTED BY A PLUGIN")
        print("WARNED ON STDERR", file=sys.stderr)
        worker = threading.Thread(target=lambda: print("PRINTED FROM A THREAD"))
        worker.start()
        worker.join()
    """
)


def pane_title(terminal) -> str:
    return terminal.tmux("display-message", "-p", "-t", "omp", "#{pane_title}").strip()


def last_lines(screen: str, count: int) -> str:
    return "\n".join(screen.rstrip().splitlines()[-count:])


def start_decorated(terminal, omp_cli) -> None:
    extension = omp_cli.extension(DECORATING_PLUGIN, "decorating.py")
    terminal.start("--script", omp_cli.script([answer("unused")]), "-e", extension).ready()


def test_status_widget_title_and_editor_text_from_a_plugin(terminal, omp_cli):
    start_decorated(terminal, omp_cli)
    terminal.submit("/decorate")
    screen = terminal.wait_for("> prefilled by the plugin", whole=False)
    assert "widget line one\nwidget line two" in screen
    assert screen.index("widget line two") < screen.index("> prefilled by the plugin")
    terminal.wait_for(lambda s: "deploy: staging" in last_lines(s, 1), whole=False)
    terminal.wait_for(lambda s: pane_title(terminal) == "omp: Custom title", 5)
    terminal.type(" and more")
    terminal.wait_for("> prefilled by the plugin and more", whole=False)


def test_get_editor_text_reads_what_the_user_typed(terminal, omp_cli):
    start_decorated(terminal, omp_cli)
    terminal.submit("/readeditor")
    terminal.wait_for("editor holds ''")


def test_decorations_go_away_when_cleared(terminal, omp_cli):
    start_decorated(terminal, omp_cli)
    terminal.submit("/decorate")
    terminal.wait_for("widget line two", whole=False)
    terminal.send("C-u")
    terminal.submit("/undecorate")
    screen = terminal.wait_for(lambda s: "widget line one" not in s, whole=False)
    assert "deploy: staging" not in screen


def test_the_working_message_replaces_the_spinners_word(terminal, omp_cli):
    start_decorated(terminal, omp_cli)
    terminal.submit("/busy")
    terminal.wait_for("Polishing the lenses", 5, whole=False)


def test_ctrl_j_alt_enter_and_shift_enter_insert_newlines_and_enter_sends_all_lines(
    terminal, omp_cli
):
    script = omp_cli.script([{"choose": [answer("four lines arrived", when="third\nfourth")]}])
    terminal.start("--script", script).ready()
    terminal.type("first")
    terminal.send("C-j")
    terminal.type("second")
    terminal.send("M-Enter")
    terminal.type("third")
    terminal.send("-H", *(f"{byte:02x}" for byte in b"\x1b[13;2u"))  # Shift+Enter (CSI u)
    terminal.type("fourth")
    screen = terminal.wait_for("  fourth", whole=False)
    assert "> first\n  second\n  third\n  fourth" in screen
    terminal.send("Enter")
    terminal.wait_for("four lines arrived")


def test_ctrl_o_expands_a_long_command_output_shown_by_its_last_lines(terminal, omp_cli):
    command = "for i in $(seq 1 40); do echo output-line-$i; done"
    script = omp_cli.script(
        [
            bash_call(command),
            answer("listed them"),
        ]
    )
    terminal.start("--script", script).ready()
    terminal.submit("list")
    screen = terminal.wait_for("listed them")
    assert "… 35 earlier lines (Ctrl+O to expand)\n     output-line-36" in screen
    assert "output-line-40" in screen and "output-line-20" not in screen
    terminal.send("C-o")
    screen = terminal.wait_for("output-line-20")
    assert "output-line-1\n" in screen


def test_thinking_shows_dimmed_and_ctrl_t_hides_it(terminal, omp_cli):
    script = omp_cli.script(
        [
            answer("first reply", thinking="pondering the first question"),
            answer("second reply", thinking="pondering the second question"),
        ]
    )
    terminal.start("--script", script).ready()
    terminal.submit("one")
    terminal.wait_for("first reply")
    assert "pondering the first question" in terminal.screen()
    terminal.send("C-t")
    terminal.wait_for("thinking hidden", whole=False)
    terminal.submit("two")
    screen = terminal.wait_for("second reply")
    assert "pondering the second question" not in screen
    assert "thinking hidden (4 words)" in screen


def test_hide_thinking_starts_with_thinking_hidden(terminal, omp_cli):
    script = omp_cli.script([answer("plain reply", thinking="quiet musings here")])
    terminal.start("--script", script, "--hide-thinking").ready()
    terminal.submit("go")
    screen = terminal.wait_for("plain reply")
    assert "quiet musings here" not in screen
    assert "thinking hidden (3 words)" in screen


def test_the_footer_counts_tokens_and_cost(terminal, omp_cli):
    usage = {"input": 2500, "output": 700}
    terminal.start("--script", omp_cli.script([answer("costed", usage=usage)])).ready()
    terminal.submit("what does it cost")
    terminal.wait_for("costed")
    footer = terminal.wait_for(lambda s: "↑2.5k ↓700" in last_lines(s, 1), whole=False)
    assert "$" in last_lines(footer, 1) and "%" in last_lines(footer, 1)


def test_file_completion_leaves_out_ignored_files(terminal, omp_cli):
    work = omp_cli.cwd
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / ".gitignore").write_text("secret_notes.txt\n")
    (work / "secret_notes.txt").write_text("hidden")
    (work / "shared_notes.txt").write_text("visible")
    terminal.start("--script", omp_cli.script([answer("unused")])).ready()
    terminal.type("look at @notes")
    screen = terminal.wait_for("shared_notes.txt", whole=False)
    assert "secret_notes.txt" not in screen


def test_the_transcript_stays_in_the_normal_screen_and_its_scrollback(terminal, omp_cli):
    lines = "\n\n".join(f"paragraph {n} of a long answer" for n in range(1, 41))
    terminal.start("--script", omp_cli.script([answer(lines)])).ready()
    terminal.submit("long one")
    terminal.wait_for("paragraph 40 of a long answer")
    alternate = terminal.tmux("display-message", "-p", "-t", "omp", "#{alternate_on}")
    assert alternate.strip() == "0"
    history = int(terminal.tmux("display-message", "-p", "-t", "omp", "#{history_size}"))
    assert history > 0
    assert "paragraph 1 of a long answer" not in terminal.visible()
    assert "paragraph 1 of a long answer" in terminal.screen()


def test_ctrl_c_aborts_a_running_answer(terminal, omp_cli):
    terminal.start("--script", omp_cli.script([answer("never shown", delay=60)])).ready()
    terminal.submit("slow")
    terminal.wait_for("esc to interrupt")
    terminal.send("C-c")
    screen = terminal.wait_for("Interrupted", 5)
    assert "never shown" not in screen
    terminal.wait_for(lambda s: "esc to interrupt" not in s, whole=False)
    assert "[exit" not in terminal.screen()


def test_piped_stdin_runs_once_and_exits(terminal, omp_cli):
    script = omp_cli.script([{"choose": [answer("answered the pipe", when="from the pipe")]}])
    (omp_cli.cwd / "question.txt").write_text("a question from the pipe\n")
    terminal.start("--script", script, shell_suffix=" < question.txt")
    screen = terminal.wait_for("[exit 0]")
    assert "answered the pipe" in screen and "esc to interrupt" not in screen


def test_a_failing_command_with_long_output_shows_its_exit_code(terminal, omp_cli):
    command = "for i in $(seq 1 30); do echo build-step-$i; done; exit 4"
    script = omp_cli.script(
        [
            bash_call(command),
            answer("it failed"),
        ]
    )
    terminal.start("--script", script).ready()
    terminal.submit("build")
    screen = terminal.wait_for("it failed")
    assert "Exit code: 4" in screen and "build-step-30" in screen


def test_what_a_plugin_prints_goes_above_the_editor_not_into_it(terminal, omp_cli):
    extension = omp_cli.extension(PRINTING_PLUGIN, "printing.py")
    script = omp_cli.script([answer("the answer", delay=0.5)])
    terminal.start("--script", script, "-e", extension).ready()
    terminal.submit("go")
    terminal.wait_for("the answer")
    terminal.wait_for(lambda s: "esc to interrupt" not in s, whole=False)
    terminal.type("typing on")
    screen = terminal.wait_for("> typing on", whole=False)
    lines = [line.rstrip() for line in screen.splitlines()]
    for printed in ("PRINTED BY A PLUGIN", "WARNED ON STDERR", "PRINTED FROM A THREAD"):
        assert printed in lines
        assert lines.index(printed) < lines.index("the answer")
    assert [line for line in lines if line.startswith(">")] == ["> typing on"]


def test_shift_enter_from_the_terminal_inserts_a_newline(terminal, omp_cli):
    """tmux, like xterm, reports Shift+Enter apart from Enter (CSI 27;2;13~) only to a
    program that asks for it (modifyOtherKeys)."""
    script = omp_cli.script([{"choose": [answer("both lines arrived", when="upper\nlower")]}])
    terminal.start("--script", script)
    terminal.tmux("set-option", "-s", "extended-keys", "on")
    terminal.ready()
    terminal.type("upper")
    terminal.send("S-Enter")
    terminal.type("lower")
    screen = terminal.wait_for("  lower", whole=False)
    assert "> upper\n  lower" in screen
    terminal.send("Enter")
    terminal.wait_for("both lines arrived")


def test_messages_queued_when_a_run_is_aborted_come_back_to_the_editor(terminal, omp_cli):
    terminal.start("--script", omp_cli.script([answer("never finished", delay=60)])).ready()
    terminal.submit("slow work")
    terminal.wait_for("esc to interrupt", whole=False)
    terminal.type("then do this")
    terminal.send("M-Enter")
    terminal.wait_for("↳ follow-up: then do this", whole=False)
    terminal.send("Escape")
    screen = terminal.wait_for("> then do this", whole=False)
    assert "↳ follow-up" not in screen
    terminal.wait_for("queued messages returned to the editor", whole=False)


def test_bash_output_shows_while_the_command_runs(terminal, omp_cli):
    command = "echo first-tick; sleep 1; echo second-tick; sleep 3"
    script = omp_cli.script(
        [
            bash_call(command),
            answer("ticked"),
        ]
    )
    terminal.start("--script", script).ready()
    terminal.submit("tick")
    running = terminal.wait_for(
        lambda s: "second-tick" in s and "esc to interrupt" in s, whole=False
    )
    assert "first-tick" in running and "ticked" not in running
    terminal.wait_for("ticked")


def test_a_provider_error_shows_in_red_with_its_explanation(terminal, omp_cli):
    script = omp_cli.script([{"error": "400 the prompt is too long for this model"}])
    terminal.start("--script", script).ready()
    terminal.submit("too much")
    screen = terminal.wait_for("the prompt is too long for this model")
    line = next(line for line in screen.splitlines() if "too long" in line)
    assert line.startswith("✗ Error")
    coloured = terminal.colours()
    red = next(line for line in coloured.splitlines() if "too long" in line)
    assert "\x1b[38;5;203m" in red
