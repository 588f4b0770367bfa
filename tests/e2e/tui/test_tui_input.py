"""The editor in a real terminal (tmux): completion menus, history across restarts,
model and thinking cycling, plugin shortcuts, dropped images, ``!cmd`` and /copy."""

from __future__ import annotations

import base64
import textwrap

from tui_models import write_two_thinking_models
from tui_script import answer, bash_call

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
SHORTCUT_PLUGIN = textwrap.dedent(
    """
    import omp
    from omp import Shortcut


    def wave(ctx):
        ctx.ui.notify("the shortcut waved")


    @omp.hookimpl
    def omp_register_shortcuts(api):
        return [Shortcut("ctrl+g", "wave from a plugin", wave)]
    """
)


def menu_line(screen: str, word: str) -> str:
    return next((line for line in screen.splitlines() if word in line), "")


def test_slash_completion_lists_commands_with_their_descriptions(terminal, omp_cli):
    terminal.start("--script", omp_cli.script([answer("unused")])).ready()
    terminal.type("/he")
    screen = terminal.wait_for("list commands and keys", whole=False)
    assert "/help" in menu_line(screen, "list commands and keys")
    terminal.send("Enter")
    terminal.wait_for("plugin commands:")


def test_plugin_commands_complete_too(terminal, omp_cli):
    terminal.start("--script", omp_cli.script([answer("unused")])).ready()
    terminal.type("/seq")
    screen = terminal.wait_for("/seqthink", whole=False)
    assert menu_line(screen, "/seqthink").split("/seqthink", 1)[1].strip()  # described


def test_at_file_completion_offers_fuzzy_matches(terminal, omp_cli):
    (omp_cli.cwd / "docs").mkdir()
    (omp_cli.cwd / "docs" / "alpha-notes.md").write_text("alpha\n")
    (omp_cli.cwd / "beta.txt").write_text("beta\n")
    terminal.start("--script", omp_cli.script([answer("unused")])).ready()
    terminal.type("read @alpnot")
    screen = terminal.wait_for("docs/alpha-notes.md", whole=False)
    assert "beta.txt" not in screen
    terminal.send("Tab")
    terminal.wait_for("> read @docs/alpha-notes.md", whole=False)


def test_model_names_complete_after_slash_model(terminal, omp_cli):
    write_two_thinking_models(omp_cli.agent_dir)
    terminal.start("--script", omp_cli.script([answer("unused")])).ready()
    terminal.type("/model bet")
    screen = terminal.wait_for("mine/beta", whole=False)
    assert "Beta model" in menu_line(screen, "mine/beta")
    assert "mine/alpha" not in screen


def test_history_survives_a_restart(terminal, omp_cli):
    script = omp_cli.script([{"repeat": True, "text": "noted"}])
    terminal.start("--script", script).ready()
    terminal.submit("the first thing I asked")
    terminal.wait_for("noted")
    terminal.send("C-d")
    terminal.wait_for("[exit 0]")
    again = terminal.open()
    again.start("--script", script).ready()
    again.send("Up")
    again.wait_for("> the first thing I asked", whole=False)


def test_ctrl_p_cycles_the_models_given_with_models(terminal, omp_cli):
    write_two_thinking_models(omp_cli.agent_dir)
    terminal.start("--models", "mine/alpha,mine/beta")
    terminal.ready("mine/alpha")
    terminal.send("C-p")
    terminal.wait_for(lambda s: s.rstrip().endswith("mine/beta • off"), whole=False)
    terminal.send("C-p")
    terminal.wait_for(lambda s: s.rstrip().endswith("mine/alpha • off"), whole=False)


def test_shift_tab_cycles_the_thinking_level(terminal, omp_cli):
    write_two_thinking_models(omp_cli.agent_dir)
    terminal.start("--model", "mine/alpha")
    terminal.wait_for(lambda s: s.rstrip().endswith("mine/alpha • off"), whole=False)
    terminal.send("BTab")
    terminal.wait_for(lambda s: s.rstrip().endswith("mine/alpha • minimal"), whole=False)
    terminal.send("BTab")
    terminal.wait_for(lambda s: s.rstrip().endswith("mine/alpha • low"), whole=False)


def test_shift_tab_on_a_model_that_does_not_think_says_so(terminal, omp_cli):
    terminal.start("--script", omp_cli.script([answer("unused")])).ready()
    terminal.send("BTab")
    terminal.wait_for("does not think; thinking stays off", whole=False)


def test_a_plugin_shortcut_runs_its_handler(terminal, omp_cli):
    extension = omp_cli.extension(SHORTCUT_PLUGIN, "wave.py")
    terminal.start("--script", omp_cli.script([answer("unused")]), "-e", extension).ready()
    terminal.send("C-g")
    terminal.wait_for("the shortcut waved")
    terminal.submit("/hotkeys")
    terminal.wait_for("wave from a plugin")


def test_a_dropped_image_path_becomes_an_attachment(terminal, omp_cli):
    image = omp_cli.root / "drop zone" / "screen.png"
    image.parent.mkdir()
    image.write_bytes(PNG)
    script = omp_cli.script([answer("I cannot see images")])
    terminal.start("--script", script).ready()
    terminal.paste(f"'{image}'")
    terminal.wait_for(f'> @"{image}"', whole=False)
    terminal.submit("what is this?")
    screen = terminal.wait_for("I cannot see images")
    assert "the model does not accept images; not attached" in " ".join(screen.split())


def test_bang_runs_a_command_for_the_model_and_double_bang_keeps_it_out(terminal, omp_cli):
    script = omp_cli.script(
        [
            {
                "choose": [
                    answer("I saw the secret", when="kept-out-42"),
                    answer("I saw the greeting", when="shared-out-17"),
                    answer("I saw nothing"),
                ]
            },
            {"choose": [answer("I saw the secret", when="kept-out-42"), answer("still nothing")]},
        ]
    )
    terminal.start("--script", script).ready()
    terminal.submit("!echo shared-out-17")
    terminal.wait_for(lambda s: s.count("shared-out-17") >= 2)  # the command and its output
    terminal.submit("!!echo kept-out-42")
    terminal.wait_for(lambda s: s.count("kept-out-42") >= 2)
    terminal.submit("what did you see?")
    screen = terminal.wait_for("I saw the greeting")
    assert "I saw the secret" not in screen


def test_copy_puts_the_last_answer_on_the_terminal_clipboard(terminal, omp_cli):
    terminal.start("--script", omp_cli.script([answer("copy me, all of me")])).ready()
    terminal.tmux("set-option", "-g", "set-clipboard", "on")
    terminal.submit("say something")
    terminal.wait_for("copy me, all of me")
    terminal.submit("/copy")
    terminal.wait_for("copied the last answer (18 characters, terminal clipboard)")
    assert terminal.tmux("show-buffer") == "copy me, all of me"


def test_enter_while_the_agent_works_steers_and_the_message_shows_until_delivered(
    terminal, omp_cli
):
    script = omp_cli.script(
        [
            bash_call("sleep 1.5"),
            {"choose": [answer("steered answer", when="look at tests"), answer("unsteered")]},
        ]
    )
    terminal.start("--script", script).ready()
    terminal.submit("work on it")
    terminal.wait_for("sleep 1.5")
    terminal.submit("look at tests")
    terminal.wait_for("↳ steer: look at tests", whole=False)
    screen = terminal.wait_for("steered answer")
    assert screen.index("sleep 1.5") < screen.index("look at tests") < screen.index("steered")
    terminal.wait_for(lambda s: "↳ steer" not in s, whole=False)
