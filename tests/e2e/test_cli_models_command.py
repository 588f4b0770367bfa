"""``omp models`` and pi's ``--list-models`` come from the llm plugin (issue 25: the kernel
lists no models itself). With the plugin installed both list; without it both say so in
one line and never send the words to the model."""

from __future__ import annotations

import pytest

WITHOUT_LLM = {"OMP_DISABLED_PLUGINS": "llm"}


@pytest.mark.parametrize("args", [["models", "demo"], ["--list-models", "demo"]])
def test_the_llm_plugin_lists_the_models(omp_cli, args):
    proc = omp_cli(*args)
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    assert "scripted/demo" in proc.stdout and "anthropic/" not in proc.stdout


@pytest.mark.parametrize(
    "args", [["models"], ["models", "demo"], ["--list-models"], ["--list-models", "demo"]]
)
def test_without_the_llm_plugin_it_is_one_line_and_no_prompt(omp_cli, args):
    script = omp_cli.script([{"text": "I am the model"}])
    proc = omp_cli(*args, "--script", script, env=WITHOUT_LLM)
    line = omp_cli.assert_one_line_error(proc)
    assert proc.returncode == 2
    assert "`omp models` is not installed" in line
    assert "I am the model" not in proc.stdout
    assert omp_cli.all_session_files() == []
