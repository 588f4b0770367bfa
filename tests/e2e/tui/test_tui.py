"""The interactive mode in a real terminal (tmux): what a user sees after each key.

Every test starts ``omp`` with the scripted provider in a private home, types, and
polls the pane with a deadline (no fixed sleeps)."""

from __future__ import annotations

import textwrap

from tui_script import answer, bash_call

ASK_PLUGIN = textwrap.dedent(
    """
    import omp
    from omp import Command


    async def ask(args, ctx):
        answer = await ctx.ui.confirm("Deploy now?", "this cannot be undone", timeout=30)
        ctx.ui.notify(f"the answer was {answer}")


    @omp.hookimpl
    def omp_register_commands(api):
        return [Command("deploy", "Deploy after asking", ask)]
    """
)


def test_a_streamed_answer_appears_under_the_prompt(terminal, omp_cli):
    script = omp_cli.script(
        [answer("# Findings\n\nThe **answer** is forty-two.\n\n- first point\n- second point\n")]
    )
    terminal.start("--script", script).ready()
    terminal.submit("What is the answer?")
    screen = terminal.wait_for(
        lambda s: "second point" in s and s.rstrip().endswith("scripted/demo • off")
    )
    assert "What is the answer?" in screen
    assert "The answer is forty-two." in screen  # Markdown rendered, ** gone
    assert "# Findings" not in screen and "Findings" in screen


def test_a_tool_call_and_its_result_render(terminal, omp_cli):
    script = omp_cli.script(
        [
            bash_call("echo tool-says-hi"),
            answer("The command printed its greeting."),
        ]
    )
    terminal.start("--script", script).ready()
    terminal.submit("run it")
    screen = terminal.wait_for("The command printed its greeting.")
    assert "bash" in screen and "echo tool-says-hi" in screen
    call_line = screen.index("echo tool-says-hi")
    assert "tool-says-hi" in screen[call_line + len("echo tool-says-hi") :]


def test_escape_aborts_a_long_stream(terminal, omp_cli):
    script = omp_cli.script([answer("too late", delay=60)])
    terminal.start("--script", script).ready()
    terminal.submit("take your time")
    terminal.wait_for("esc to interrupt")
    terminal.send("Escape")
    screen = terminal.wait_for("Interrupted", 5)
    assert "too late" not in screen
    terminal.wait_for(lambda s: "esc to interrupt" not in s)


def test_a_queued_follow_up_is_shown_then_delivered_after_the_run(terminal, omp_cli):
    script = omp_cli.script(
        [
            answer("first answer", delay=1.5),
            {"choose": [answer("follow-up answered", when="and then this")]},
        ]
    )
    terminal.start("--script", script).ready()
    terminal.submit("start")
    terminal.wait_for("esc to interrupt")
    terminal.type("and then this")
    terminal.send("M-Enter")
    terminal.wait_for("follow-up: and then this")
    screen = terminal.wait_for("follow-up answered")
    assert screen.index("first answer") < screen.index("follow-up answered")
    terminal.wait_for(lambda s: "follow-up: and then this" not in s)


def test_help_lists_plugin_commands(terminal, omp_cli):
    extension = omp_cli.extension(ASK_PLUGIN, "ask.py")
    script = omp_cli.script([answer("unused")])
    terminal.start("--script", script, "-e", extension).ready()
    terminal.submit("/help")
    screen = terminal.wait_for("plugin commands:")
    screen = terminal.wait_for("Deploy after asking")
    assert "/deploy" in screen and "/seqthink" in screen and "/tree" in screen
    assert "/model" in screen and "/resume" in screen


def test_a_plugin_confirm_dialog_is_answered_with_a_key(terminal, omp_cli):
    extension = omp_cli.extension(ASK_PLUGIN, "ask.py")
    script = omp_cli.script([answer("unused")])
    terminal.start("--script", script, "-e", extension).ready()
    terminal.submit("/deploy")
    terminal.wait_for("Deploy now?")
    terminal.wait_for("this cannot be undone")
    terminal.send("y")
    terminal.wait_for("the answer was True")
    terminal.wait_for(lambda s: "Deploy now?" not in s.split("the answer was True")[-1])


def test_resume_picks_a_session_of_this_directory(terminal, omp_cli):
    earlier = omp_cli.script([answer("the earlier answer")])
    done = omp_cli("-p", "--script", earlier, "remember the pelican")
    assert done.returncode == 0, done.stderr
    script = omp_cli.script([answer("unused")])
    terminal.start("--script", script).ready()
    terminal.submit("/resume")
    terminal.wait_for("Resume a session")
    terminal.wait_for("remember the pelican")
    terminal.send("Enter")
    screen = terminal.wait_for("the earlier answer")
    assert "resumed" in screen


def test_seqthink_blocks_bash_with_the_warning(terminal, omp_cli):
    script = omp_cli.script(
        [
            bash_call("ls"),
            answer("I will think first."),
        ]
    )
    terminal.start("--script", script).ready()
    terminal.submit("/seqthink 5")
    terminal.type("Run ls in terminal.")
    terminal.send("Enter")
    screen = terminal.wait_for("I will think first.")
    assert "bash" in screen
    assert "Sequential thinking is required" in screen
    assert "need at least 5 thoughts" in " ".join(screen.split())


def test_ctrl_d_on_an_empty_editor_exits(terminal, omp_cli):
    script = omp_cli.script([answer("unused")])
    terminal.start("--script", script).ready()
    terminal.send("C-d")
    terminal.wait_for("[exit 0]")


def test_without_a_terminal_on_stdout_it_runs_once_as_before(terminal, omp_cli):
    script = omp_cli.script([answer("printed answer")])
    terminal.start("--script", script, "say it", shell_suffix=" | cat")
    screen = terminal.wait_for("[exit 0]")
    assert "printed answer" in screen
    assert "esc to interrupt" not in screen


def test_ctrl_c_clears_the_editor_then_twice_exits(terminal, omp_cli):
    script = omp_cli.script([answer("unused")])
    terminal.start("--script", script).ready()
    terminal.type("half a thought")
    terminal.wait_for("half a thought")
    terminal.send("C-c")
    terminal.wait_for(lambda s: "half a thought" not in s)
    terminal.send("C-c")
    terminal.wait_for("press ctrl+c again to exit")
    terminal.send("C-c")
    terminal.wait_for("[exit 0]")


def test_a_large_paste_is_a_placeholder_that_sends_the_whole_text(terminal, omp_cli):
    script = omp_cli.script([{"choose": [answer("got all of it", when="line 40 of the paste")]}])
    terminal.start("--script", script).ready()
    pasted = "".join(f"line {n} of the paste\n" for n in range(1, 41))
    terminal.tmux("set-buffer", "-b", "big", pasted)
    terminal.tmux("paste-buffer", "-p", "-b", "big", "-t", "omp")
    screen = terminal.wait_for("[paste #1 +41 lines]")
    assert "line 3 of the paste" not in screen
    terminal.send("Enter")
    terminal.wait_for("got all of it")


def test_an_80x24_terminal_resized_keeps_a_clean_editor_and_footer(terminal, omp_cli):
    long_answer = (
        "A sentence that is long enough to wrap at eighty columns, and then some more. " * 4
    )
    script = omp_cli.script([answer(long_answer)])
    small = terminal.open(80, 24)
    small.start("--script", script).ready()
    small.type("wrap please")
    small.send("Enter")
    small.wait_for("and then some more.")
    small.resize(120, 30)
    small.resize(60, 20)
    small.type("still here")
    screen = small.wait_for(
        lambda s: "> still here" in s and s.rstrip().endswith("scripted/demo • off"), whole=False
    )
    lines = screen.rstrip().splitlines()
    assert sum(line.startswith(">") for line in lines) == 1
    assert all(len(line.rstrip()) <= 60 for line in lines[-4:])


def test_resume_without_an_id_opens_the_picker(terminal, omp_cli):
    earlier = omp_cli.script([answer("the flamingo answer")])
    assert omp_cli("-p", "--script", earlier, "about the flamingo").returncode == 0
    script = omp_cli.script([answer("unused")])
    terminal.start("--script", script, "--resume").ready()
    terminal.wait_for("about the flamingo")
    terminal.send("Enter")
    terminal.wait_for("the flamingo answer")
