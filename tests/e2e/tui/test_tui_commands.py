"""The mode's slash commands in a real terminal (tmux): /model and /thinking pickers,
/session, /name (and the terminal title), /new, /fork, /compact, /hotkeys, /reload,
/quit - each as a user would see it."""

from __future__ import annotations

import json
import textwrap

from tui_models import write_two_thinking_models
from tui_script import answer

DESCRIBED_PLUGIN = textwrap.dedent(
    """
    import omp
    from omp import Command


    async def hello(args, ctx):
        ctx.ui.notify("hello there")


    @omp.hookimpl
    def omp_register_commands(api):
        return [Command("hello", "DESCRIPTION", hello)]
    """
)


def pane_title(terminal) -> str:
    return terminal.tmux("display-message", "-p", "-t", "omp", "#{pane_title}").strip()


def test_model_without_a_name_opens_a_picker_and_sets_the_footer(terminal, omp_cli):
    write_two_thinking_models(omp_cli.agent_dir)
    terminal.start("--model", "mine/alpha").ready("mine/alpha")
    terminal.run_command("/model")
    terminal.wait_for("Model")
    terminal.wait_for("Beta model")
    terminal.submit("beta")
    terminal.wait_for("model: mine/beta")
    terminal.wait_for(lambda s: "mine/beta" in s.rstrip().splitlines()[-1], whole=False)


def test_thinking_without_a_level_opens_a_picker(terminal, omp_cli):
    write_two_thinking_models(omp_cli.agent_dir)
    terminal.start("--model", "mine/alpha").ready("mine/alpha")
    terminal.run_command("/thinking")
    terminal.wait_for("Thinking level")
    terminal.submit("high")
    terminal.wait_for("thinking: high")
    terminal.wait_for(lambda s: s.rstrip().endswith("high"), whole=False)
    terminal.run_command("/thinking sideways")
    terminal.wait_for("unknown thinking level 'sideways'")


def test_session_shows_file_id_counts_and_cost(terminal, omp_cli):
    usage = {"input": 1200, "output": 340}
    terminal.start("--script", omp_cli.script([answer("counted", usage=usage)])).ready()
    terminal.submit("count this")
    terminal.wait_for("counted")
    terminal.run_command("/session")
    screen = terminal.wait_for("cost:")
    [session_file] = omp_cli.session_files()
    assert f"file:{session_file}" in "".join(screen.split())
    assert "id: " in screen
    assert "1 assistant" in screen and "1 user" in screen
    assert "1200 in, 340 out" in screen


def test_name_sets_the_session_name_and_the_terminal_title(terminal, omp_cli):
    terminal.start("--script", omp_cli.script([answer("unused")])).ready()
    terminal.wait_for(lambda s: pane_title(terminal).startswith("omp: "), 5)
    terminal.run_command("/name Pelican survey")
    terminal.wait_for(lambda s: pane_title(terminal) == "omp: Pelican survey", 5)


def test_new_starts_an_empty_session(terminal, omp_cli):
    script = omp_cli.script(
        [
            {
                "choose": [
                    answer("first session answer", when="in the first"),
                    answer("second session answer", when="in the second"),
                ]
            }
        ]
    )
    terminal.start("--script", script).ready()
    terminal.submit("in the first")
    terminal.wait_for("first session answer")
    terminal.run_command("/new")
    terminal.wait_for("new session")
    terminal.submit("in the second")
    terminal.wait_for("second session answer")
    terminal.run_command("/session")
    screen = terminal.wait_for("cost:")
    assert "messages: 1 assistant, 1 user" in screen.split("second session answer")[-1]
    assert len(omp_cli.session_files()) == 2


def test_fork_here_continues_in_a_new_session_file(terminal, omp_cli):
    script = omp_cli.script([answer("before the fork"), answer("after the fork")])
    terminal.start("--script", script).ready()
    terminal.submit("one")
    terminal.wait_for("before the fork")
    terminal.run_command("/fork")
    terminal.wait_for("Fork from before a prompt")
    terminal.send("Enter")  # the first choice: here, the whole conversation
    terminal.wait_for(lambda s: len(omp_cli.session_files()) == 2)
    terminal.submit("two")
    terminal.wait_for("after the fork")

    def forked_texts() -> list[str]:
        newest = max(omp_cli.session_files(), key=lambda p: p.stat().st_mtime)
        return [omp_cli.text_of(m) for m in omp_cli.messages_of(omp_cli.read_session(newest))]

    # The answer is drawn as it streams; its entry is written when the message ends.
    terminal.wait_for(lambda s: "after the fork" in forked_texts())
    assert "before the fork" in forked_texts()


def test_fork_picks_an_earlier_prompt_and_puts_it_in_the_editor(terminal, omp_cli):
    script = omp_cli.script([{"repeat": True, "text": "fine"}])
    terminal.start("--script", script).ready()
    for prompt in ("the walrus question", "the heron question"):
        terminal.submit(prompt)
        terminal.wait_for(lambda s, p=prompt: p in s and "esc to interrupt" not in s)
    terminal.run_command("/fork")
    screen = terminal.wait_for("Fork from before a prompt")
    picker = screen.split("Fork from before a prompt")[-1]
    assert picker.index("the heron question") < picker.index("the walrus question")
    terminal.submit("heron")
    terminal.wait_for("> the heron question", whole=False)
    assert len(omp_cli.session_files()) == 2
    newest = max(omp_cli.session_files(), key=lambda p: p.stat().st_mtime)
    users = omp_cli.messages_of(omp_cli.read_session(newest), "user")
    assert [omp_cli.text_of(m) for m in users] == ["the walrus question"]


def test_compact_summarises_and_says_so(terminal, omp_cli):
    settings = {"compaction": {"keepRecentTokens": 10}}
    (omp_cli.agent_dir / "settings.json").write_text(json.dumps(settings))
    script = omp_cli.script(
        [
            answer("a long first answer " * 20),
            answer("a long second answer " * 20),
            answer("THE SUMMARY of the talk so far"),
        ]
    )
    terminal.start("--script", script).ready()
    for prompt, reply in (("talk", "a long first answer"), ("more", "a long second answer")):
        terminal.submit(prompt)
        terminal.wait_for(reply)
        terminal.wait_for(lambda s: "esc to interrupt" not in s, whole=False)
    terminal.run_command("/compact")
    terminal.wait_for("compacted the context:", 15)


def test_hotkeys_lists_the_keys(terminal, omp_cli):
    terminal.start("--script", omp_cli.script([answer("unused")])).ready()
    terminal.run_command("/hotkeys")
    screen = terminal.wait_for("ctrl+o")
    for key in ("esc", "ctrl+c", "ctrl+d", "ctrl+p", "shift+tab", "alt+enter"):
        assert key in screen


def test_quit_exits(terminal, omp_cli):
    terminal.start("--script", omp_cli.script([answer("unused")])).ready()
    terminal.run_command("/quit")
    terminal.wait_for("[exit 0]")


def test_reload_reads_plugins_again_and_stays_in_the_session(terminal, omp_cli):
    extension = omp_cli.extension(DESCRIBED_PLUGIN.replace("DESCRIPTION", "old words"), "d.py")
    script = omp_cli.script([answer("kept across the reload")])
    terminal.start("--script", script, "-e", extension).ready()
    terminal.submit("remember")
    terminal.wait_for("kept across the reload")
    extension.write_text(DESCRIBED_PLUGIN.replace("DESCRIPTION", "new words"))
    terminal.run_command("/reload")
    terminal.wait_for(lambda s: s.count("kept across the reload") >= 2, 15)
    terminal.ready()
    terminal.run_command("/help")
    screen = terminal.wait_for("new words")
    assert len(omp_cli.session_files()) == 1
    assert "[exit" not in screen


def test_thinking_on_a_model_that_does_not_think_says_so(terminal, omp_cli):
    terminal.start("--script", omp_cli.script([answer("unused")])).ready()
    terminal.run_command("/thinking high")
    terminal.wait_for("scripted/demo does not think; thinking stays off")
    terminal.run_command("/thinking")
    screen = terminal.wait_for(
        lambda s: s.count("does not think") == 2 and s.rstrip().endswith("scripted/demo • off")
    )
    assert "Thinking level" not in screen
