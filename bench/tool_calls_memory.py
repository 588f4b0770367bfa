"""Peak memory of one reply with thousands of tool calls (issue 24, item 6).

    .venv/bin/python bench/tool_calls_memory.py [--calls 1000,2500,5000,10000] [--omp PATH]

A local OpenAI-compatible peer (chat completions, SSE) answers the first request with
one assistant message of N ``read`` calls of a small file, and the next with a final
answer. ``omp -p`` runs it in print mode with a session file, in a scratch HOME whose
models.json points at the peer (a context window of 10M tokens) and whose settings turn
compaction off: only the reply is measured. The same reply is then replayed by the
scripted provider (``--script``: no HTTP, no wire cache). Printed: the peak RSS of the omp process
(``os.wait4``) and its wall time for each N. Target: linear growth, 10,000 calls under
300 MiB. A report: exits 0 whatever it measured, unless ``--check`` is given, then 1
when the target is missed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import sys
import tempfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread

from startup_and_turns import find_omp, run_once, user_env

TARGET_MIB = 300
TARGET_CALLS = 10_000


class Peer(ThreadingHTTPServer):
    """The model: ``calls`` tool calls in the first reply, then a final answer."""

    daemon_threads = True

    def __init__(self, small_file: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.small_file = small_file
        self.calls = 0

    def get_request(self) -> tuple[socket.socket, object]:
        conn, addr = super().get_request()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn, addr

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Peer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        answered = b'"role":"tool"' in body
        reply = _sse(0 if answered else self.server.calls, self.server.small_file)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


def _sse(calls: int, path: str) -> bytes:
    if calls:
        tool_calls = [
            {
                "index": n,
                "id": f"call_{n}",
                "type": "function",
                "function": {"name": "read", "arguments": json.dumps({"path": path})},
            }
            for n in range(calls)
        ]
        delta, finish = {"role": "assistant", "tool_calls": tool_calls}, "tool_calls"
    else:
        delta, finish = {"role": "assistant", "content": "done"}, "stop"
    chunks = [
        {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
    ]
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def _script(path: Path, calls: int, small_file: str) -> None:
    reply = {"tool_calls": [{"name": "read", "arguments": {"path": small_file}}] * calls}
    path.write_text(json.dumps(reply) + "\n" + json.dumps({"text": "done"}) + "\n")


def measure(omp: Path, calls: int, peer: Peer, root: Path) -> list[tuple[str, float, float]]:
    """(provider, peak RSS MiB, wall s) for one reply of ``calls`` calls."""
    home, agent, work = root / "home", root / "agent", root / "work"
    for directory in (home, agent, work):
        directory.mkdir(parents=True, exist_ok=True)
    (work / "small.txt").write_text("hello\n")
    provider = {
        "baseUrl": peer.base_url,
        "api": "openai-completions",
        "apiKey": "bench-key",
        "models": [{"id": "m", "contextWindow": 10_000_000, "maxTokens": 1000}],
    }
    (agent / "models.json").write_text(json.dumps({"providers": {"peer": provider}}))
    # the scripted model's window is 200,000 tokens: 10,000 calls do not fit it
    (agent / "settings.json").write_text(json.dumps({"compaction": {"enabled": False}}))
    env = {**user_env(drop_suffixes=("_API_KEY",)), "HOME": str(home)}
    env["OMP_CODING_AGENT_DIR"] = str(agent)
    env["OLLAMA_HOST"] = "127.0.0.1:9"
    script = root / "reply.jsonl"
    _script(script, calls, "small.txt")
    peer.calls = calls
    rows = []
    for name, args in (
        ("peer (openai-completions)", ["--model", "peer/m"]),
        ("scripted", ["--script", str(script)]),
    ):
        sample = run_once([str(omp), *args, "-p", "read them all"], env, work)
        if sample.code != 0 or "done" not in sample.stdout:
            sys.exit(f"bench: {name}, {calls} calls: exit {sample.code}\n{sample.stderr[-2000:]}")
        rows.append((name, sample.maxrss / 1024, sample.wall))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", default="1000,2500,5000,10000")
    parser.add_argument("--omp")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    omp = find_omp(args.omp)
    counts = [int(n) for n in args.calls.split(",")]
    peer = Peer("small.txt")
    Thread(target=peer.serve_forever, daemon=True).start()
    missed = False
    print(f"{'calls':>7}  {'provider':<26} {'peak RSS':>10} {'wall':>8}")
    try:
        for calls in counts:
            root = Path(tempfile.mkdtemp(prefix="omp-bench-calls-"))
            try:
                for name, mib, wall in measure(omp, calls, peer, root):
                    print(f"{calls:>7}  {name:<26} {mib:>6.0f} MiB {wall:>6.1f} s", flush=True)
                    if calls >= TARGET_CALLS and mib >= TARGET_MIB:
                        missed = True
            finally:
                shutil.rmtree(root, ignore_errors=True)
    finally:
        peer.shutdown()
    print(f"target: {TARGET_CALLS:,} calls under {TARGET_MIB} MiB: {'missed' if missed else 'met'}")
    return 1 if missed and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
