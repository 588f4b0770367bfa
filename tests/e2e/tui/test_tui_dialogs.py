"""Dialogs and colours in a real terminal (tmux): a plugin's select, input and editor
dialogs (and one that times out), /tree and /branch pickers, NO_COLOR, the light theme."""

from __future__ import annotations

import re
import textwrap
import time

from tui_script import answer, bash_call

ASKING_PLUGIN = textwrap.dedent(
    """
    import omp
    from omp import Command


    async def ask(args, ctx):
        kind = args.strip()
        if kind == "select":
            answer = await ctx.ui.select(
                "Pick a fruit",
                [{"label": "apple", "description": "crisp and red"}, "banana", "cherry"],
            )
        elif kind == "input":
            answer = await ctx.ui.input("Your name?", "")
        elif kind == "editor":
            answer = await ctx.ui.editor("Edit the note", "first line")
        else:
            answer = await ctx.ui.select("Hurry up", ["now", "later"], timeout=0.5)
        ctx.ui.notify(f"{kind} answer: {answer!r}")


    @omp.hookimpl
    def omp_register_commands(api):
        return [Command("ask", "Ask through a dialog", ask)]
    """
)
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def start_asking(terminal, omp_cli, **options):
    extension = omp_cli.extension(ASKING_PLUGIN, "asking.py")
    terminal.start("--script", omp_cli.script([answer("unused")]), "-e", extension, **options)
    terminal.ready()


def test_a_select_dialog_filters_moves_and_answers(terminal, omp_cli):
    start_asking(terminal, omp_cli)
    terminal.submit("/ask select")
    screen = terminal.wait_for("Pick a fruit")
    assert "crisp and red" in screen and "cherry" in screen
    terminal.send("Down")
    terminal.wait_for("> banana", whole=False)
    terminal.type("cher")
    terminal.wait_for(lambda s: "banana" not in s and "> cherry" in s, whole=False)
    terminal.send("Enter")
    terminal.wait_for("select answer: 'cherry'")


def test_escape_cancels_a_select_dialog(terminal, omp_cli):
    start_asking(terminal, omp_cli)
    terminal.submit("/ask select")
    terminal.wait_for("Pick a fruit")
    terminal.send("Escape")
    terminal.wait_for("select answer: None")
    terminal.wait_for(lambda s: "Pick a fruit" not in s, whole=False)


def test_an_input_dialog_returns_what_was_typed(terminal, omp_cli):
    start_asking(terminal, omp_cli)
    terminal.submit("/ask input")
    terminal.wait_for("Your name?")
    terminal.submit("Ada Lovelace")
    terminal.wait_for("input answer: 'Ada Lovelace'")


def test_an_editor_dialog_is_multi_line_and_submits_with_alt_enter(terminal, omp_cli):
    start_asking(terminal, omp_cli)
    terminal.submit("/ask editor")
    terminal.wait_for("Edit the note")
    terminal.wait_for("first line", whole=False)
    terminal.send("Enter")
    terminal.type("second line")
    terminal.send("M-Enter")
    terminal.wait_for("editor answer: 'first line\\nsecond line'")


def test_an_unanswered_dialog_times_out_with_its_default(terminal, omp_cli):
    start_asking(terminal, omp_cli)
    terminal.submit("/ask timeout")
    terminal.wait_for("Hurry up")
    terminal.wait_for("timeout answer: None", 5)
    terminal.wait_for(lambda s: "Hurry up" not in s, whole=False)
    terminal.type("still typing")
    terminal.wait_for("> still typing", whole=False)


def test_tree_and_branch_without_an_id_open_pickers(terminal, omp_cli):
    script = omp_cli.script([{"repeat": True, "text": "fine"}])
    terminal.start("--script", script).ready()
    for prompt in ("first question", "second question"):
        terminal.submit(prompt)
        terminal.wait_for(lambda s, p=prompt: p in s and "esc to interrupt" not in s)
    terminal.submit("/branch")
    screen = terminal.wait_for("Continue from before a prompt")
    assert "first question" in screen.split("Continue from before a prompt")[1]
    terminal.submit("first")
    terminal.wait_for("the next prompt continues from there")
    terminal.submit("/tree")
    terminal.wait_for("Move to an entry")
    terminal.send("Escape")
    terminal.wait_for(lambda s: "Move to an entry" not in s, whole=False)


def test_no_color_draws_without_escape_codes(terminal, omp_cli):
    script = omp_cli.script([answer("# Plain\n\nSome **bold** and `code`.\n")])
    terminal.start("--script", script, env={"NO_COLOR": "1"}).ready()
    terminal.submit("show me")
    terminal.wait_for("Some bold and code.")
    terminal.wait_for(lambda s: "esc to interrupt" not in s)
    coloured = [line for line in terminal.colours().splitlines() if ESCAPE.search(line)]
    assert coloured == [], "\n".join(map(repr, coloured))


def test_the_light_theme_setting_paints_dark_text_on_light(terminal, omp_cli):
    assert omp_cli("config", "set", "theme", "light").returncode == 0
    script = omp_cli.script([answer("in the light")])
    terminal.start("--script", script).ready()
    terminal.submit("lights on")
    terminal.wait_for("in the light")
    colours = terminal.colours()
    user_line = next(line for line in colours.splitlines() if "lights on" in line)
    assert "38;5;232" in user_line and "48;5;254" in user_line  # light theme's user message
    assert "48;5;237" not in colours  # the dark theme's


def test_a_tool_approval_shows_the_call_and_a_no_denies_it(terminal, omp_cli):
    assert omp_cli("config", "set", "tools.approval.bash", "prompt").returncode == 0
    script = omp_cli.script(
        [
            bash_call("rm -rf build/cache"),
            {"repeat": True, "text": "understood"},
        ]
    )
    terminal.start("--script", script).ready()
    terminal.submit("clean up")
    screen = terminal.wait_for("Allow bash?")
    assert "rm -rf build/cache" in screen.split("Allow bash?")[1]
    assert "y yes · n no" in screen
    time.sleep(0.5)  # keys within 400 ms of the dialog opening are not its answer
    terminal.send("n")
    screen = terminal.wait_for("understood")
    after = screen.split("clean up")[-1]
    assert "rm -rf build/cache" in after and "the user declined" in " ".join(after.split())
    assert "Allow bash?" not in after.split("understood")[-1]
