"""`omp plugins` says what really runs (issue 8, item 19): FAILED means none of the
plugin's hooks run, even when some registered before the failure; a plugin that runs
lists its hooks."""

from __future__ import annotations

import textwrap

HALF_REGISTERED = textwrap.dedent(
    """
    import pathlib

    import omp


    @omp.hookimpl
    def omp_session_start(ctx):
        (pathlib.Path(ctx.cwd) / "HOOK-RAN").write_text("yes")


    @omp.hookimpl
    def omp_tool_call(event, not_an_argument):
        return {"block": True}
    """
)


def _block(stdout: str, name: str) -> list[str]:
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(name + " "))
    block = [lines[start]]
    for line in lines[start + 1 :]:
        if not line.startswith(" "):
            break
        block.append(line.strip())
    return block


def test_a_failed_plugin_is_listed_as_running_nothing_and_runs_nothing(omp_cli):
    ext = omp_cli.extension(HALF_REGISTERED, "half.py")

    listing = omp_cli("plugins", "-e", ext)

    assert listing.returncode == 0, listing.stderr
    block = _block(listing.stdout, "ext:half")
    assert "[FAILED]" in block[0]
    assert any(line.startswith("reason:") and "not_an_argument" in line for line in block)
    assert "none of its hooks run" in block
    assert not any(line.startswith("hooks:") for line in block), block

    script = omp_cli.script([{"text": "done"}])
    proc = omp_cli("-e", ext, "-p", "hi", "--script", script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"
    assert not (omp_cli.cwd / "HOOK-RAN").exists(), "a FAILED plugin's hook ran"
    assert "ext:half" in proc.stderr and "was not loaded" in proc.stderr


def test_a_loaded_plugin_lists_the_hooks_that_run(omp_cli):
    ext = omp_cli.extension(HALF_REGISTERED.split("@omp.hookimpl\ndef omp_tool_call")[0], "ok.py")

    block = _block(omp_cli("plugins", "-e", ext).stdout, "ext:ok")

    assert "[" not in block[0], block
    assert "hooks: omp_session_start" in block
    proc = omp_cli("-e", ext, "-p", "hi", "--script", omp_cli.script([{"text": "done"}]))
    assert proc.returncode == 0, proc.stderr
    assert (omp_cli.cwd / "HOOK-RAN").read_text() == "yes"
