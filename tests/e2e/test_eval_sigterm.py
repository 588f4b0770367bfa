"""SIGTERM of omp leaves no eval kernel behind (plugins/eval tracks the kernel's process
group with the kernel), with a real omp process, a real ipykernel and a real signal."""

from __future__ import annotations

import signal

from process_groups import group_gone


def test_sigterm_kills_a_busy_eval_kernel_and_its_children(omp_cli):
    pid_file = omp_cli.root / "kernel.pid"
    code = (  # a child in the kernel's group outlives a kernel that merely exits
        "import os, subprocess, time\n"
        "child = subprocess.Popen(['sleep', '600'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(os.getpgid(0)))\n"
        "while True:\n    time.sleep(1)"
    )
    script = omp_cli.script(
        [
            {
                "tool_calls": [
                    {"name": "eval", "arguments": {"cells": [{"code": code}], "timeout": 600}}
                ]
            },
            {"text": "done"},
        ]
    )
    proc = omp_cli.popen("-p", "run it", "--script", script)
    omp_cli.wait_for(pid_file, proc)
    pgid = int(pid_file.read_text())
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=10)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    assert group_gone(pgid)


def test_a_print_run_leaves_no_kernel_when_it_ends(omp_cli):
    pid_file = omp_cli.root / "kernel.pid"
    code = f"import os\nopen({str(pid_file)!r}, 'w').write(str(os.getpgid(0)))\nprint('ran')"
    script = omp_cli.script(
        [
            {"tool_calls": [{"name": "eval", "arguments": {"cells": [{"code": code}]}}]},
            {"text": "done"},
        ]
    )
    proc = omp_cli.popen("-p", "run it", "--script", script)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.strip() == "done"
    assert group_gone(int(pid_file.read_text()))
