"""Flags pi's and omp's users type out of habit (issue 14, "CLI parity"): ``@path``
attachments, ``--session ID``, ``--resume`` without an id, ``--list-models``,
``--provider``, ``--models``, ``--no-builtin-tools``, ``--offline``, and the busy
indicator of print mode."""

from __future__ import annotations

import base64
import json
import os
import subprocess

import pytest

# A 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

PROBE = """
import json
import omp
from omp import RunMode


@omp.hookimpl
def omp_register_modes(api):
    def run(session, request):
        print(json.dumps({
            "model": session.agent.model.key,
            "scoped": [m.key for m in session.scoped_models],
            "tools": session.tools.active_names(),
            "pick_session": request.pick_session,
            "prompts": request.prompts,
            "offline": bool(api.get_flag("offline")),
        }))
        return 0

    return [RunMode("probe", "prints what the command line asked for", run=run, has_ui=True)]
"""

EXTRA_TOOL = """
import omp
from pydantic import BaseModel
from omp import Tool


class Nothing(BaseModel):
    pass


@omp.hookimpl
def omp_register_tools(api):
    return [
        Tool(name="mine", description="an extension's tool", parameters=Nothing,
             execute=lambda *a: "ok")
    ]
"""


def chat_stream(text: str) -> bytes:
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def models_file(omp_cli, providers: dict) -> None:
    (omp_cli.agent_dir / "models.json").write_text(json.dumps({"providers": providers}))


def custom(url: str, *models: dict) -> dict:
    return {"baseUrl": f"{url}/v1", "api": "openai-completions", "apiKey": "k", "models": [*models]}


def probe(omp_cli, *args, **kwargs) -> dict:
    ext = omp_cli.extension(PROBE, "probe.py")
    proc = omp_cli("-e", ext, "--mode", "probe", *args, **kwargs)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def users(omp_cli) -> list[dict]:
    [session] = omp_cli.session_files()
    return omp_cli.messages_of(omp_cli.read_session(session), "user")


def on_a_terminal(omp_cli, *args, stdin_tty: bool = True, stderr_tty: bool = True):
    """Run omp with stdin and/or stderr on a pseudo-terminal; (exit code, stdout, what
    reached the terminal)."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [*omp_cli.command, *map(str, args)],
        cwd=omp_cli.cwd,
        env=omp_cli.env,
        stdin=slave if stdin_tty else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave if stderr_tty else subprocess.PIPE,
    )
    os.close(slave)
    try:
        seen, _ = omp_cli.read_terminal(master, proc)
        out = proc.stdout.read().decode()
        if not stderr_tty:
            seen += proc.stderr.read()
        code = proc.wait(timeout=60)
    finally:
        os.close(master)
        proc.stdout.close()
        if proc.stderr:
            proc.stderr.close()
    return code, out, seen.decode(errors="replace")


# -- @path ---------------------------------------------------------------------------


def test_at_path_attaches_the_file_to_the_prompt_not_as_a_prompt_of_its_own(omp_cli):
    (omp_cli.cwd / "notes.txt").write_text("the secret word is kiwi\n")
    script = omp_cli.script([{"text": "done"}])
    proc = omp_cli("-p", "@notes.txt", "summarise this", "--script", script)
    assert proc.returncode == 0, proc.stderr
    [user] = users(omp_cli)
    text = omp_cli.text_of(user)
    assert "the secret word is kiwi" in text and text.rstrip().endswith("summarise this")
    assert str(omp_cli.cwd / "notes.txt") in text


def test_quoted_at_paths_and_files_alone_make_the_prompt(omp_cli):
    (omp_cli.cwd / "a.txt").write_text("alpha\n")
    (omp_cli.cwd / "b.txt").write_text("beta\n")
    script = omp_cli.script([{"text": "done"}])
    proc = omp_cli("-p", "@a.txt", "@'b.txt'", "--script", script)
    assert proc.returncode == 0, proc.stderr
    [user] = users(omp_cli)
    assert "alpha" in omp_cli.text_of(user) and "beta" in omp_cli.text_of(user)


def test_at_path_works_in_json_mode_too(omp_cli):
    (omp_cli.cwd / "notes.txt").write_text("kiwi\n")
    script = omp_cli.script([{"text": "done"}])
    proc = omp_cli("--mode", "json", "@notes.txt", "go", "--script", script)
    assert proc.returncode == 0, proc.stderr
    [user] = users(omp_cli)
    assert "kiwi" in omp_cli.text_of(user) and "go" in omp_cli.text_of(user)


def test_a_missing_at_path_is_one_line_and_nothing_is_sent(omp_cli):
    script = omp_cli.script([{"text": "done"}])
    proc = omp_cli("-p", "@nope.txt", "go", "--script", script)
    line = omp_cli.assert_one_line_error(proc)
    assert "@nope.txt" in line and "no such file" in line
    assert omp_cli.all_session_files() == []


def test_an_at_image_is_an_image_attachment_for_a_model_that_sees_images(omp_cli, replay_server):
    (omp_cli.cwd / "dot.png").write_bytes(PNG)
    models_file(
        omp_cli, {"vis": custom(replay_server.url, {"id": "eye", "input": ["text", "image"]})}
    )
    replay_server.add(chat_stream("a dot"), headers={"content-type": "text/event-stream"})
    proc = omp_cli("-p", "--model", "vis/eye", "@dot.png", "what is it?")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "a dot\n"
    [message] = [m for m in replay_server.requests[0].json["messages"] if m["role"] == "user"]
    kinds = [part["type"] for part in message["content"]]
    assert kinds.count("image_url") == 1
    assert message["content"][kinds.index("image_url")]["image_url"]["url"].startswith(
        "data:image/png;base64,"
    )


def test_an_at_image_for_a_model_without_images_is_refused(omp_cli):
    (omp_cli.cwd / "dot.png").write_bytes(PNG)
    script = omp_cli.script([{"text": "done"}])
    proc = omp_cli("-p", "@dot.png", "what is it?", "--script", script)
    line = omp_cli.assert_one_line_error(proc)
    assert "dot.png" in line and "images" in line


# -- --session ID, --resume without an id ----------------------------------------------


def _two_sessions(omp_cli) -> list:
    script = omp_cli.script([{"text": "r1"}, {"text": "r2"}])
    for _ in range(2):
        assert omp_cli("-p", "hi", "--script", script).returncode == 0
    return sorted(omp_cli.session_files())


def test_session_takes_an_id_prefix(omp_cli):
    first, _ = _two_sessions(omp_cli)
    header = omp_cli.read_session(first)[0]
    script = omp_cli.script([{"text": "r1"}, {"text": "again"}])
    proc = omp_cli("-p", "more", "--session", header["id"][:8], "--script", script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "again\n"
    assert len(omp_cli.session_files()) == 2
    assert [
        omp_cli.text_of(m) for m in omp_cli.messages_of(omp_cli.read_session(first), "user")
    ] == [
        "hi",
        "more",
    ]


def test_an_ambiguous_session_id_lists_the_candidates(omp_cli):
    files = _two_sessions(omp_cli)
    script = omp_cli.script([{"text": "x"}])
    # Both files live in the same directory: their names share the timestamp's year.
    proc = omp_cli("-p", "x", "--session", files[0].name[:3], "--script", script)
    line = omp_cli.assert_one_line_error(proc)
    assert "ambiguous" in line and files[0].name in line and files[1].name in line


def test_an_unknown_session_id_is_an_error(omp_cli):
    _two_sessions(omp_cli)
    script = omp_cli.script([{"text": "x"}])
    proc = omp_cli("-p", "x", "--session", "zzzz", "--script", script)
    line = omp_cli.assert_one_line_error(proc)
    assert "zzzz" in line and "no session" in line


def test_a_session_path_is_still_created_when_missing(omp_cli):
    script = omp_cli.script([{"text": "x"}])
    proc = omp_cli("-p", "x", "--session", "new.jsonl", "--script", script)
    assert proc.returncode == 0, proc.stderr
    assert (omp_cli.cwd / "new.jsonl").is_file()


def test_resume_without_an_id_and_no_terminal_is_a_usage_error(omp_cli):
    script = omp_cli.script([{"text": "x"}])
    proc = omp_cli("-p", "x", "--script", script, "--resume")
    line = omp_cli.assert_one_line_error(proc)
    assert "--resume" in line and "terminal" in line


def test_resume_without_an_id_on_a_terminal_asks_the_mode_for_its_picker(omp_cli):
    ext = omp_cli.extension(PROBE, "probe.py")
    script = omp_cli.script([{"text": "x"}])
    code, out, seen = on_a_terminal(
        omp_cli, "-e", ext, "--mode", "probe", "--script", script, "--resume"
    )
    assert code == 0, seen
    assert json.loads(out)["pick_session"] is True
    code, out, seen = on_a_terminal(omp_cli, "-e", ext, "--mode", "probe", "--script", script)
    assert json.loads(out)["pick_session"] is False


def test_resume_with_an_id_before_a_prompt_still_works(omp_cli):
    first, _ = _two_sessions(omp_cli)
    header = omp_cli.read_session(first)[0]
    script = omp_cli.script([{"text": "r1"}, {"text": "again"}])
    proc = omp_cli("-r", header["id"], "-p", "more", "--script", script)
    assert proc.returncode == 0, proc.stderr


# -- models ------------------------------------------------------------------------------


def test_list_models_with_and_without_a_search(omp_cli):
    proc = omp_cli("--list-models")
    assert proc.returncode == 0, proc.stderr
    assert "scripted/demo" in proc.stdout
    proc = omp_cli("--list-models", "demo")
    assert proc.returncode == 0 and "scripted/demo" in proc.stdout
    assert "anthropic/" not in proc.stdout
    proc = omp_cli("--list-models", "no-such-model-anywhere")
    assert proc.returncode == 1 and "no models match" in proc.stdout


def test_provider_selects_its_model_and_scopes_model_resolution(omp_cli, replay_server):
    models_file(
        omp_cli,
        {
            "one": custom(replay_server.url, {"id": "coder"}),
            "two": custom(replay_server.url, {"id": "coder"}),
        },
    )
    proc = omp_cli("-p", "hi", "--model", "coder")
    assert proc.returncode != 0 and "ambiguous" in proc.stderr
    assert probe(omp_cli, "--provider", "two", "--model", "coder")["model"] == "two/coder"
    assert probe(omp_cli, "--provider", "one")["model"] == "one/coder"


def test_an_unknown_provider_lists_the_installed_ones(omp_cli):
    script = omp_cli.script([{"text": "x"}])
    proc = omp_cli("-p", "x", "--provider", "nosuch", "--script", script)
    line = omp_cli.assert_one_line_error(proc)
    assert "nosuch" in line and "scripted" in line


def test_models_sets_the_cycle_and_the_first_is_the_starting_model(omp_cli, replay_server):
    models_file(
        omp_cli, {"one": custom(replay_server.url, {"id": "a1"}, {"id": "a2"}, {"id": "b"})}
    )
    seen = probe(omp_cli, "--models", "one/a*,scripted/demo")
    assert seen["scoped"] == ["one/a1", "one/a2", "scripted/demo"]
    assert seen["model"] == "one/a1"
    seen = probe(omp_cli, "--models", "one/a*,scripted/demo", "--model", "scripted/demo")
    assert seen["model"] == "scripted/demo"


def test_models_with_an_unmatched_pattern_is_an_error(omp_cli):
    script = omp_cli.script([{"text": "x"}])
    proc = omp_cli("-p", "x", "--models", "nothing-like-this*", "--script", script)
    line = omp_cli.assert_one_line_error(proc)
    assert "nothing-like-this*" in line


# -- tools -------------------------------------------------------------------------------


def test_no_builtin_tools_keeps_extension_tools(omp_cli):
    ext = omp_cli.extension(EXTRA_TOOL, "mine.py")
    tools = probe(omp_cli, "-e", ext)["tools"]
    assert "read" in tools and "mine" in tools
    assert probe(omp_cli, "-e", ext, "--no-builtin-tools")["tools"] == ["mine"]


def test_offline_drops_network_tools_and_tells_plugins(omp_cli):
    normal = probe(omp_cli)
    assert "fetch" in normal["tools"] and normal["offline"] is False
    offline = probe(omp_cli, "--offline")
    assert "fetch" not in offline["tools"] and "read" in offline["tools"]
    assert offline["offline"] is True
    assert "fetch" not in probe(omp_cli, env={"OMP_OFFLINE": "1"})["tools"]


def test_offline_model_call_of_fetch_is_refused(omp_cli):
    script = omp_cli.script(
        [
            {"tool_calls": [{"name": "fetch", "arguments": {"url": "http://127.0.0.1:9/"}}]},
            {"text": "ok"},
        ]
    )
    proc = omp_cli("-p", "get it", "--offline", "--script", script)
    assert proc.returncode == 0, proc.stderr
    [session] = omp_cli.session_files()
    [result] = omp_cli.messages_of(omp_cli.read_session(session), "toolResult")
    assert result["isError"] is True


# -- busy indicator ----------------------------------------------------------------------


@pytest.mark.parametrize("stderr_tty", [True, False])
def test_print_mode_shows_a_spinner_on_a_terminal_stderr_only(omp_cli, stderr_tty):
    script = omp_cli.script([{"text": "the answer", "delay": 0.6}])
    code, out, seen = on_a_terminal(
        omp_cli, "-p", "hi", "--script", script, stdin_tty=False, stderr_tty=stderr_tty
    )
    assert code == 0, seen
    assert out == "the answer\n"
    if stderr_tty:
        assert "working" in seen
        assert seen.rstrip("\r\n").endswith("\x1b[K"), repr(seen[-80:])
    else:
        assert "working" not in seen and "\x1b" not in seen and "\r" not in seen


def _index_probe(omp_cli, *flags) -> int:
    """Connections made to a package index on loopback by ``omp [flags] plugin add``."""
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    env = {
        "PIP_INDEX_URL": f"http://127.0.0.1:{listener.getsockname()[1]}/simple",
        "PIP_DEFAULT_TIMEOUT": "1",
        "PIP_RETRIES": "0",
    }
    try:
        proc = omp_cli(*flags, "plugin", "add", "omp-no-such-plugin", env=env, timeout=120)
        assert proc.returncode != 0
        connections = 0
        while True:
            try:
                listener.accept()[0].close()
            except BlockingIOError:
                return connections
            connections += 1
    finally:
        listener.close()


def test_offline_plugin_installs_use_no_package_index(omp_cli):
    assert _index_probe(omp_cli, "--offline") == 0
    assert _index_probe(omp_cli) > 0  # the probe sees an index lookup when there is one
