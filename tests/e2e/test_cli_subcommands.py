"""Command families: a reserved word is a command, never a prompt (issue 9, item 9)."""

from __future__ import annotations

import textwrap

import pytest

STATS = textwrap.dedent(
    """
    import omp
    from omp import Subcommand


    def run(args, runtime):
        print("stats for", " ".join(args), "in", runtime.cwd.name)
        return 3


    @omp.hookimpl
    def omp_register_subcommands(api):
        return [Subcommand("sessions", "list sessions", run)]
    """
)


@pytest.mark.parametrize("word", ["mcp", "batch"])  # `sessions` is built in now
def test_a_family_without_its_plugin_is_not_installed_not_a_prompt(omp_cli, word):
    script = omp_cli.script([{"text": "I am the model"}])
    without = {"OMP_DISABLED_PLUGINS": word}  # both plugins are installed here
    proc = omp_cli(word, "add", "foo", "--script", script, env=without)
    line = omp_cli.assert_one_line_error(proc)
    assert f"`omp {word}` is not installed" in line
    assert omp_cli.all_session_files() == []


def test_a_plugin_provides_a_family_with_its_own_arguments(omp_cli):
    ext = omp_cli.extension(STATS, "stats_ext.py")
    proc = omp_cli("-e", ext, "sessions", "--all", "x")
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout == f"stats for --all x in {omp_cli.cwd.name}\n"
    listed = omp_cli("-e", ext, "--help")
    assert "sessions" in listed.stdout and "list sessions" in listed.stdout


def test_any_other_first_word_is_still_a_prompt(omp_cli):
    script = omp_cli.script([{"text": "answered"}])
    proc = omp_cli("-p", "--script", script, "pluginish words")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith("answered\n")


GREET = textwrap.dedent(
    """
    import omp
    from omp import Flag, Subcommand


    async def run(args, ctx):
        parsed = ctx.parse_flags(args)
        print("context:", type(ctx).__name__, isinstance(ctx, omp.SubcommandContext))
        print("loaded:", "ext:greet_ext" in [p.name for p in ctx.plugins])
        print("greeting:", parsed["greeting"])
        async with omp.create_session(
            cwd=ctx.cwd, session="memory", cli_flags=parsed.values
        ) as session:
            answer = await session.prompt(" ".join(parsed.messages))
        print("model:", answer.text if answer else None)
        return 0


    @omp.hookimpl
    def omp_register_flags(api):
        return [Flag("greeting", "what to say first", type="string")]


    @omp.hookimpl
    def omp_register_subcommands(api):
        return [Subcommand("greet", "greet the model", run)]
    """
)


def test_a_third_party_subcommand_runs_a_session_from_its_context(omp_cli):
    """A plugin's own command family: its flags read as omp reads them, the loaded
    plugins, and a session opened with omp.create_session, all through the public API."""
    ext = omp_cli.extension(GREET, "greet_ext.py")
    script = omp_cli.script([{"text": "hello to you"}])
    proc = omp_cli("-e", ext, "greet", "--greeting", "hi", "--script", script, "hello", "there")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "context: SubcommandContext True",
        "loaded: True",
        "greeting: hi",
        "model: hello to you",
    ]
    assert omp_cli.all_session_files() == []
