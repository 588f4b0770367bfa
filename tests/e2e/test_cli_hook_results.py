"""A handler's result with a key its result model lacks (a pi-shaped ``{"action":
"handled"}`` from ``input``) is reported naming plugin, hook and key, and ignored."""

from __future__ import annotations

PI_SHAPED_INPUT = """
import omp

@omp.hookimpl
def omp_input(event):
    return {"action": "handled"}
"""


def test_a_pi_shaped_input_result_is_reported_and_the_prompt_goes_on(omp_cli):
    ext = omp_cli.extension(PI_SHAPED_INPUT, "pi_port.py")
    script = str(omp_cli.script([{"text": "answered"}]))
    proc = omp_cli("-p", "hello", "--no-session", "-e", ext, "--script", script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "answered\n"
    reports = [line for line in omp_cli.stderr_lines(proc) if "ext:pi_port" in line]
    assert len(reports) == 1, proc.stderr
    assert reports[0].startswith("omp: plugin ext:pi_port failed in input: ")
    assert "unknown key(s) 'action' in the InputPatch result" in reports[0]


def test_json_mode_names_the_plugin_file(omp_cli):
    ext = omp_cli.extension(PI_SHAPED_INPUT, "pi_port.py")
    script = str(omp_cli.script([{"text": "answered"}]))
    proc = omp_cli("--mode", "json", "--no-session", "-e", ext, "--script", script, "hello")
    assert proc.returncode == 0, proc.stderr
    errors = [e for e in omp_cli.json_lines(proc.stdout) if e["type"] == "extension_error"]
    assert [(e["extensionPath"], e["event"]) for e in errors] == [(str(ext), "input")]
    assert "'action'" in errors[0]["error"]
