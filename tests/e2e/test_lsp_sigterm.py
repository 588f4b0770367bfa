"""SIGTERM of omp leaves no language server behind (plugins/lsp tracks each server's
process group with the kernel), with a real omp process and a real signal."""

from __future__ import annotations

import json
import signal
import sys

from process_groups import group_gone

HANGING_SERVER = """
import os, sys, time
with open(sys.argv[1], "w") as f:
    f.write(str(os.getpid()))
while True:
    time.sleep(1)
"""


def test_sigterm_kills_a_running_language_server(omp_cli):
    server = omp_cli.root / "server.py"
    server.write_text(HANGING_SERVER)
    pid_file = omp_cli.root / "server.pid"
    omp_cli.agent_dir.mkdir(parents=True, exist_ok=True)
    (omp_cli.agent_dir / "lsp.json").write_text(
        json.dumps(
            {
                "servers": {
                    "basedpyright": {"disabled": True},
                    "pyright": {"disabled": True},
                    "standin": {
                        "command": sys.executable,
                        "args": [str(server), str(pid_file)],
                        "fileTypes": [".py"],
                    },
                }
            }
        )
    )
    (omp_cli.agent_dir / "settings.json").write_text(
        json.dumps({"lsp": {"diagnosticsBudgetMs": 120000}})
    )
    script = omp_cli.script(
        [
            {"tool_calls": [{"name": "write", "arguments": {"path": "m.py", "content": "x=1\n"}}]},
            {"text": "done"},
        ]
    )
    proc = omp_cli.popen("-p", "write it", "--script", script)
    omp_cli.wait_for(pid_file, proc)
    pgid = int(pid_file.read_text())
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=10)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    assert group_gone(pgid)
