"""End to end: `omp plugins`, single-file extensions, disabling plugins, hook failures
and the system prompt extensions see."""

from __future__ import annotations

import json
import textwrap

SHOUT_EXTENSION = textwrap.dedent(
    """
    import omp
    from pydantic import BaseModel, Field


    class ShoutParams(BaseModel):
        word: str = Field(description="The word to shout")


    @omp.hookimpl
    def omp_register_tools(api):
        from omp import Tool, ToolResult

        def execute(call_id, params, signal, on_update, ctx):
            return ToolResult.text(f"SHOUTED {params.word.upper()}!")

        return [
            Tool(
                name="shout",
                description="Shout a word back",
                parameters=ShoutParams,
                execute=execute,
            )
        ]
    """
)

CALL_SHOUT = [
    {"tool_calls": [{"name": "shout", "arguments": {"word": "mango"}}]},
    {
        "choose": [
            {"when": "SHOUTED MANGO!", "text": "the tool said: SHOUTED MANGO!"},
            {"when": "not found", "text": "the shout tool is missing"},
            {"text": "something else happened"},
        ]
    },
]

CALL_READ = [
    {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
    {
        "choose": [
            {"when": "Tool 'read' not found", "text": "READ IS MISSING"},
            {"when": "kiwi", "text": "READ WORKED"},
            {"text": "READ DID SOMETHING ELSE"},
        ]
    },
]


def marker_extension(word: str) -> str:
    """An extension that adds a tool named after ``word`` (so behaviour shows it loaded)."""
    return textwrap.dedent(
        f"""
        import omp
        from pydantic import BaseModel


        class NoParams(BaseModel):
            pass


        @omp.hookimpl
        def omp_register_tools(api):
            from omp import Tool

            return [
                Tool(
                    name="{word}",
                    description="marker",
                    parameters=NoParams,
                    execute=lambda *args: "{word} says hi",
                )
            ]
        """
    )


def plugin_blocks(output: str) -> dict[str, str]:
    """`omp plugins` output: plugin name -> its block of lines."""
    blocks: dict[str, list[str]] = {}
    current = None
    for line in output.splitlines():
        if line and not line.startswith(" "):
            current = line.split()[0]
            blocks[current] = [line]
        elif current is not None:
            blocks[current].append(line)
    return {name: "\n".join(lines) for name, lines in blocks.items()}


# -- omp plugins ------------------------------------------------------------------------


def test_plugins_lists_builtins_with_source_and_hooks(omp_cli):
    proc = omp_cli("plugins")

    assert proc.returncode == 0, proc.stderr
    blocks = plugin_blocks(proc.stdout)
    expected = {
        "scripted": ("omp-scripted", "omp_register_providers"),
        "read": ("omp-tool-read", "omp_register_tools"),
        "print": ("omp-mode-print", "omp_register_modes"),
        "json": ("omp-mode-json", "omp_register_modes"),
    }
    for name, (dist, hook) in expected.items():
        assert name in blocks, proc.stdout
        assert f"entry point ({dist})" in blocks[name]
        assert "hooks:" in blocks[name] and hook in blocks[name]
        assert "[" not in blocks[name].splitlines()[0]  # not disabled or failed


def test_plugins_say_which_code_tools_are_offered_here_and_why_not(omp_cli):
    (omp_cli.cwd / "main.go").write_text("package main\n")
    settings = {"lsp": {"servers": {"gopls": []}}}  # as if gopls were not installed
    (omp_cli.agent_dir / "settings.json").write_text(json.dumps(settings))
    proc = omp_cli("plugins")
    assert proc.returncode == 0, proc.stderr
    blocks = plugin_blocks(proc.stdout)
    lsp = blocks["lsp"]
    assert "tools lsp: not offered here: no language server found for this workspace's " in lsp
    assert "install gopls" in lsp
    assert "tools ast_grep, ast_edit: offered here" in blocks["ast"]
    assert "tools debug: offered here" in blocks["debug"]


# -- extensions -------------------------------------------------------------------------


def test_extension_tool_output_reaches_the_answer(omp_cli):
    ext = omp_cli.extension(SHOUT_EXTENSION, "shouter.py")
    script = omp_cli.script(CALL_SHOUT)

    proc = omp_cli("-e", ext, "-p", "shout mango", "--script", script)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "the tool said: SHOUTED MANGO!\n"
    assert "Traceback" not in proc.stderr


def test_extension_tool_is_missing_without_the_extension(omp_cli):
    script = omp_cli.script(CALL_SHOUT)

    proc = omp_cli("-p", "shout mango", "--script", script)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "the shout tool is missing\n"


def test_discovered_extensions_and_no_extensions(omp_cli):
    project = omp_cli.extension(
        marker_extension("projecttool"),
        "project_ext.py",
        omp_cli.cwd / ".omp" / "extensions",
    )
    user = omp_cli.extension(
        marker_extension("usertool"), "user_ext.py", omp_cli.agent_dir / "extensions"
    )
    explicit = omp_cli.extension(marker_extension("explicittool"), "explicit_ext.py")

    # `omp plugins` never runs project code: the project's file is listed, not loaded.
    found = plugin_blocks(omp_cli("plugins").stdout)
    assert f"extension {project}" in found["ext:project_ext"]
    assert "[WITHHELD]" in found["ext:project_ext"]
    assert f"extension {user}" in found["ext:user_ext"]
    assert "omp_register_tools" in found["ext:user_ext"]
    (omp_cli.agent_dir / "settings.json").write_text(
        json.dumps({"trustedDirectories": [str(omp_cli.cwd)]})
    )

    skipped = omp_cli("plugins", "--no-extensions", "-e", explicit)
    assert skipped.returncode == 0, skipped.stderr
    blocks = plugin_blocks(skipped.stdout)
    assert "ext:project_ext" not in blocks
    assert "ext:user_ext" not in blocks
    assert f"extension {explicit}" in blocks["ext:explicit_ext"]

    # By behaviour: the discovered tools are offered, and gone with --no-extensions.
    script = omp_cli.script(
        [
            {"tool_calls": [{"name": "projecttool"}, {"name": "usertool"}]},
            {"choose": [{"when": "not found", "text": "missing"}, {"text": "both ran"}]},
        ]
    )
    with_ext = omp_cli("-p", "go", "--script", script)
    assert with_ext.stdout == "both ran\n", with_ext.stderr
    without = omp_cli("--no-extensions", "-p", "go", "--script", script)
    assert without.stdout == "missing\n", without.stderr


def test_disabled_plugins_setting(omp_cli):
    (omp_cli.cwd / "notes.txt").write_text("kiwi\n", encoding="utf-8")
    (omp_cli.agent_dir / "settings.json").write_text(
        json.dumps({"disabledPlugins": ["read"]}), encoding="utf-8"
    )

    listing = plugin_blocks(omp_cli("plugins").stdout)
    assert "[DISABLED]" in listing["read"]
    assert "hooks:" not in listing["read"]

    script = omp_cli.script(CALL_READ)
    proc = omp_cli("-p", "read my notes", "--script", script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "READ IS MISSING\n"


def test_disabled_plugins_env_var(omp_cli):
    (omp_cli.cwd / "notes.txt").write_text("kiwi\n", encoding="utf-8")
    script = omp_cli.script(CALL_READ)
    env = {"OMP_DISABLED_PLUGINS": "read"}

    listing = plugin_blocks(omp_cli("plugins", env=env).stdout)
    assert "[DISABLED]" in listing["read"]
    proc = omp_cli("-p", "read my notes", "--script", script, env=env)
    assert proc.stdout == "READ IS MISSING\n", proc.stderr

    enabled = omp_cli("-p", "read my notes", "--script", script)
    assert enabled.stdout == "READ WORKED\n", enabled.stderr


def test_extension_failing_on_import_is_reported_and_the_run_goes_on(omp_cli):
    broken = omp_cli.extension("import nonexistent_pkg  # noqa\n", "broken_ext.py")
    script = omp_cli.script([{"text": "still fine"}])

    proc = omp_cli("-e", broken, "-p", "hi", "--script", script)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "still fine\n"
    assert "Traceback" not in proc.stderr
    report = [line for line in omp_cli.stderr_lines(proc) if "broken_ext" in line]
    assert len(report) == 1, proc.stderr
    assert "nonexistent_pkg" in report[0]
    assert "ModuleNotFoundError" in report[0]

    listing = plugin_blocks(omp_cli("plugins", "-e", broken).stdout)
    assert "[FAILED]" in listing["ext:broken_ext"]
    assert "nonexistent_pkg" in listing["ext:broken_ext"]


RAISING_TURN_START = textwrap.dedent(
    """
    import omp


    @omp.hookimpl
    def omp_turn_start(event):
        raise RuntimeError("turn hook went boom")
    """
)


def test_hook_raising_in_turn_start_is_an_extension_error(omp_cli):
    ext = omp_cli.extension(RAISING_TURN_START, "boom_ext.py")
    script = omp_cli.script([{"text": "answered anyway"}])

    proc = omp_cli("-e", ext, "--mode", "json", "--script", script, "hi")

    assert proc.returncode == 0, proc.stderr
    events = omp_cli.json_lines(proc.stdout)
    errors = [e for e in events if e["type"] == "extension_error"]
    assert errors, [e["type"] for e in events]
    assert errors[0]["extensionPath"] == str(ext)  # the plugin's file, as in omp
    assert errors[0]["event"] == "turn_start"
    assert "turn hook went boom" in errors[0]["error"]
    assert events[-1]["type"] == "agent_end"
    final = [
        e["message"]
        for e in events
        if e["type"] == "message_end" and e["message"]["role"] == "assistant"
    ]
    assert final[-1]["content"][0]["text"] == "answered anyway"

    printed = omp_cli("-e", ext, "-p", "hi", "--script", script)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == "answered anyway\n"
    assert "ext:boom_ext" in printed.stderr and "turn_start" in printed.stderr
    assert "Traceback" not in printed.stderr


def test_misspelt_hook_name_is_reported(omp_cli):
    ext = omp_cli.extension(
        textwrap.dedent(
            """
            import omp


            @omp.hookimpl
            def omp_tool_cal(event):
                return {"block": True}
            """
        ),
        "typo_ext.py",
    )
    script = omp_cli.script([{"text": "ok"}])

    proc = omp_cli("-e", ext, "-p", "hi", "--script", script)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "ok\n"
    report = [line for line in omp_cli.stderr_lines(proc) if "typo_ext" in line]
    assert len(report) == 1, proc.stderr
    assert "omp_tool_cal" in report[0]
    listing = plugin_blocks(omp_cli("plugins", "-e", ext).stdout)
    assert "[FAILED]" in listing["ext:typo_ext"]
    assert "omp_tool_cal" in listing["ext:typo_ext"]


def test_no_plugins_means_no_run_modes_and_no_providers(omp_cli):
    line = omp_cli.assert_one_line_error(omp_cli("--no-plugins", "-p", "hi"))
    assert "no providers are installed" in line

    listing = omp_cli("plugins", "--no-plugins")
    assert listing.returncode == 0
    assert "kernel alone" in listing.stdout


def test_without_a_provider_plugin_there_is_no_model(omp_cli):
    every_provider = "scripted,anthropic,openai_completions,openai_responses,google"
    proc = omp_cli("-p", "hi", env={"OMP_DISABLED_PLUGINS": every_provider})

    line = omp_cli.assert_one_line_error(proc)
    assert "no providers" in line


def test_tool_call_hook_blocks_read_with_a_reason(omp_cli):
    (omp_cli.cwd / "notes.txt").write_text("kiwi\n", encoding="utf-8")
    ext = omp_cli.extension(
        textwrap.dedent(
            """
            import omp


            @omp.hookimpl
            def omp_tool_call(event):
                if event.tool_name == "read":
                    return {"block": True, "reason": "reading is forbidden by policy"}
                return None
            """
        ),
        "guard_ext.py",
    )
    script = omp_cli.script(
        [
            {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
            {
                "choose": [
                    {"when": "forbidden by policy", "text": "blocked, as expected"},
                    {"text": "the block did not reach me"},
                ]
            },
        ]
    )

    proc = omp_cli("-e", ext, "--mode", "json", "--script", script, "read my notes")

    assert proc.returncode == 0, proc.stderr
    events = omp_cli.json_lines(proc.stdout)
    end = next(e for e in events if e["type"] == "tool_execution_end")
    assert end["toolName"] == "read"
    assert end["isError"] is True
    text = "".join(block.get("text", "") for block in end["result"]["content"])
    assert "reading is forbidden by policy" in text
    assert "kiwi" not in text
    final = [
        e["message"]
        for e in events
        if e["type"] == "message_end" and e["message"]["role"] == "assistant"
    ]
    assert final[-1]["content"][0]["text"] == "blocked, as expected"


# -- the system prompt ------------------------------------------------------------------

PROMPT_SPY = textwrap.dedent(
    """
    import os

    import omp


    @omp.hookimpl
    def omp_agent_start(ctx):
        with open(os.environ["OMP_E2E_PROMPT_OUT"], "w", encoding="utf-8") as f:
            f.write("\\n\\n".join(ctx.get_system_prompt()))
    """
)


def _system_prompt(omp_cli, *flags):
    spy = omp_cli.extension(PROMPT_SPY, "prompt_spy.py")
    out = omp_cli.root / "system-prompt.txt"
    out.unlink(missing_ok=True)
    script = omp_cli.script([{"text": "ok"}])
    proc = omp_cli(
        "-e", spy, *flags, "-p", "hi", "--script", script, env={"OMP_E2E_PROMPT_OUT": str(out)}
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "ok\n"
    return out.read_text(encoding="utf-8")


def test_system_prompt_has_context_files_from_cwd_and_parents(omp_cli):
    (omp_cli.agent_dir / "AGENTS.md").write_text("GLOBAL RULE: be kind\n", encoding="utf-8")
    (omp_cli.root / "AGENTS.md").write_text("PARENT RULE: be brief\n", encoding="utf-8")
    (omp_cli.cwd / "AGENTS.md").write_text("PROJECT RULE: use tabs\n", encoding="utf-8")

    prompt = _system_prompt(omp_cli)

    assert "You are omp" in prompt  # the harness text
    assert "- read:" in prompt
    assert "GLOBAL RULE: be kind" in prompt
    assert "PARENT RULE: be brief" in prompt
    assert "PROJECT RULE: use tabs" in prompt
    assert prompt.index("GLOBAL RULE") < prompt.index("PARENT RULE") < prompt.index("PROJECT RULE")
    assert f"Current working directory: {omp_cli.cwd.resolve()}" in prompt
    assert "Current date: " in prompt


def test_system_prompt_flag_replaces_only_the_harness_text(omp_cli):
    (omp_cli.cwd / "AGENTS.md").write_text("PROJECT RULE: use tabs\n", encoding="utf-8")

    prompt = _system_prompt(omp_cli, "--system-prompt", "You are a pirate assistant.")

    assert prompt.startswith("You are a pirate assistant.")
    assert "You are omp" not in prompt
    assert "- read:" in prompt
    assert "PROJECT RULE: use tabs" in prompt
    assert f"Current working directory: {omp_cli.cwd.resolve()}" in prompt
    assert "Current date: " in prompt


def test_system_prompt_flag_reads_a_file(omp_cli):
    (omp_cli.cwd / "persona.md").write_text("You are a terse reviewer.\n", encoding="utf-8")

    prompt = _system_prompt(omp_cli, "--system-prompt", "persona.md")

    assert prompt.startswith("You are a terse reviewer.")
    assert "persona.md" not in prompt
    assert "- read:" in prompt


def test_append_system_prompt_reads_a_file(omp_cli):
    (omp_cli.cwd / "extra.txt").write_text("EXTRA RULE: answer in French\n", encoding="utf-8")

    prompt = _system_prompt(omp_cli, "--append-system-prompt", "extra.txt")

    assert "You are omp" in prompt
    assert "EXTRA RULE: answer in French" in prompt
    assert "extra.txt" not in prompt
    assert prompt.index("EXTRA RULE") < prompt.index("Current working directory:")


def test_hook_raising_in_session_start_is_reported(omp_cli):
    ext = omp_cli.extension(
        textwrap.dedent(
            """
            import omp


            @omp.hookimpl
            def omp_session_start():
                raise RuntimeError("session start went boom")
            """
        ),
        "start_boom_ext.py",
    )
    script = omp_cli.script([{"text": "answered anyway"}])

    printed = omp_cli("-e", ext, "-p", "hi", "--script", script)

    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == "answered anyway\n"
    report = [line for line in omp_cli.stderr_lines(printed) if "session start went boom" in line]
    assert len(report) == 1, printed.stderr
    assert "ext:start_boom_ext" in report[0] and "session_start" in report[0]

    as_json = omp_cli("-e", ext, "--mode", "json", "--script", script, "hi")
    assert as_json.returncode == 0, as_json.stderr
    errors = [e for e in omp_cli.json_lines(as_json.stdout) if e["type"] == "extension_error"]
    assert [(e["extensionPath"], e["event"]) for e in errors] == [(str(ext), "session_start")]


def test_print_mode_does_not_reprint_an_earlier_answer(omp_cli):
    """A prompt an input hook consumes gets no reply: nothing may be printed for it."""
    ext = omp_cli.extension(
        textwrap.dedent(
            """
            import omp


            @omp.hookimpl
            def omp_input(event):
                if event.text.startswith("!skip"):
                    return {"handled": True}
                return None
            """
        ),
        "swallow_ext.py",
    )
    script = omp_cli.script([{"text": "the first answer"}, {"text": "a second answer"}])
    first = omp_cli("-e", ext, "-p", "a real question", "--script", script)
    assert first.stdout == "the first answer\n", first.stderr

    again = omp_cli("-e", ext, "--continue", "-p", "!skip this one", "--script", script)

    assert again.returncode == 0, again.stderr
    assert "the first answer" not in again.stdout


def test_an_unexpected_failure_is_one_line_not_a_traceback(omp_cli):
    ext = omp_cli.cwd / "subscriber.py"
    ext.write_text(
        "import omp\n\n"
        "@omp.hookimpl\n"
        "def omp_register_modes(api):\n"
        "    from omp import RunMode\n\n"
        "    def run(session, request):\n"
        "        raise KeyError('lost the plot')\n\n"
        "    return [RunMode('crash', 'always fails', run=run)]\n",
        encoding="utf-8",
    )
    proc = omp_cli("--mode", "crash", "-e", str(ext), "hi")
    assert proc.returncode == 70
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        "omp: internal error: KeyError: 'lost the plot' (run with OMP_DEBUG=1 for the traceback)"
    )


HALF_BROKEN = textwrap.dedent(
    """
    import omp


    @omp.hookimpl
    def omp_register_tools(api):
        raise RuntimeError("tool table went missing")


    @omp.hookimpl
    def omp_tool_call(event):
        return {"block": True, "reason": "half-broken guard says no"}
    """
)


def test_a_plugin_that_failed_registering_is_listed_as_still_running(omp_cli):
    ext = omp_cli.extension(HALF_BROKEN, "half_ext.py")
    listing = plugin_blocks(omp_cli("plugins", "-e", ext).stdout)["ext:half_ext"]
    assert "[FAILED]" not in listing
    assert "[DEGRADED]" in listing
    assert "tool table went missing" in listing and "still run" in listing
    assert "omp_tool_call" in listing

    # What the listing says is what runs: its tool_call hook still guards.
    script = omp_cli.script(
        [{"tool_calls": [{"name": "read", "arguments": {"path": "x"}}]}, {"text": "ok"}]
    )
    proc = omp_cli("-e", ext, "-p", "go", "--script", script)
    assert proc.returncode == 0, proc.stderr
    [session] = omp_cli.session_files()
    results = omp_cli.messages_of(omp_cli.read_session(session), "toolResult")
    assert omp_cli.text_of(results[0]) == "half-broken guard says no"
