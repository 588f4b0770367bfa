"""Tool-calling turns against a local peer: this project beside pi and TypeScript omp.

    .venv/bin/python bench/turns_vs_anchors.py [--turns 0,50,200,1000] [--runs N]
        [--anchors DIR] [--omp PATH] [--only omp-py,pi,omp-ts] [--json]

A local OpenAI-compatible peer (chat completions, SSE, TCP_NODELAY on every accepted
socket, so no client pays a delayed-ACK stall) answers each request with a ``read`` of
a small file until the request carries N tool results, then with a final answer. Each
harness runs ``-p`` in print mode with a session file, in its own scratch HOME whose
models.json (pi's shape) points at the peer. Runs alternate between the harnesses,
after one warm-up run each (with bytecode written: PYTHONDONTWRITEBYTECODE is dropped,
as a user's second run has its caches).

Measured: wall time from spawn to reap, CPU time and peak RSS (``os.wait4``, via
startup_and_turns.run_once) for each N (0 = a one-turn run: one request, a direct
answer); the per-turn wall by turn index (the gap between consecutive requests the peer
receives) and the harness's share of it (the gap minus the peer's own time). Targets
(issue 10): marginal per-turn harness cost < 4 ms and flat (turns 951-1000 within 1.2x
of turns 1-50), 200 turns in at most a third of the faster anchor's wall time, peak RSS
< 120 MiB at 1,000 turns, a one-turn run < 0.3 s. A report: exits 0 unless ``--check``.

The anchors install with ``bash ../shared/bench/install-anchors.sh`` (default DIR
~/.cache/omp-anchors); a missing anchor is named and skipped.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import pairwise
from pathlib import Path

from startup_and_turns import find_omp, run_once, user_env

MODEL = "peer-model"
PROVIDER = "peer"
OURS = "omp-py"
RUN_LIMIT_S = 900


class Peer(ThreadingHTTPServer):
    """The model: a tool call per request until ``turns`` tool results came back."""

    daemon_threads = True

    def __init__(self, small_file: Path) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.small_file = str(small_file)
        self.turns = 0
        self.arrivals: list[float] = []
        self.busy: list[float] = []
        self.lock = threading.Lock()

    def get_request(self) -> tuple[socket.socket, object]:
        conn, addr = super().get_request()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn, addr

    def start_run(self, turns: int) -> None:
        with self.lock:
            self.turns, self.arrivals, self.busy = turns, [], []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Peer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        arrived = time.perf_counter()
        length = int(self.headers.get("content-length") or 0)
        done = tool_results(self.rfile.read(length))
        body = _sse(done, self.server.turns, self.server.small_file)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        with self.server.lock:
            self.server.arrivals.append(arrived)
            self.server.busy.append(time.perf_counter() - arrived)

    def do_GET(self) -> None:
        body = json.dumps({"object": "list", "data": [{"id": MODEL}]}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def tool_results(body: bytes) -> int:
    """The tool results a request carries. Counted in the bytes (every harness sends
    compact JSON), not by parsing them: parsing a 1.5 MB body would make the peer take
    5 ms a request by turn 1,000, not the millisecond the comparison assumes."""
    compact = body.count(b'"role":"tool"')
    if compact or b'"role": "tool"' not in body:
        return compact
    return sum(1 for m in json.loads(body).get("messages", ()) if m.get("role") == "tool")


def _sse(done: int, turns: int, path: str) -> bytes:
    head = {"id": f"peer-{done}", "object": "chat.completion.chunk", "created": 0, "model": MODEL}
    if done < turns:
        call = {
            "index": 0,
            "id": f"call_{done}",
            "type": "function",
            "function": {"name": "read", "arguments": json.dumps({"path": path})},
        }
        delta, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
    else:
        delta, finish = {"role": "assistant", "content": f"done after {done} reads"}, "stop"
    usage = {"prompt_tokens": 100 + done, "completion_tokens": 10, "total_tokens": 110 + done}
    chunks = [
        {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
        {**head, "choices": [], "usage": usage},
    ]
    lines = [f"data: {json.dumps(c, separators=(',', ':'))}\n\n" for c in chunks]
    return ("".join(lines) + "data: [DONE]\n\n").encode()


@dataclass
class Harness:
    name: str
    command: list[str]
    home: Path
    agent: Path
    env: dict[str, str] = field(default_factory=dict)

    def argv(self, session: Path) -> list[str]:
        prompt = "Read the file you are asked to read, then say done."
        # omp 18 has no --session FILE: a fresh session directory per run instead
        where = ["--session-dir", str(session.parent / session.stem)]
        if self.name != "omp-ts":
            where = ["--session", str(session)]
        limit = ["timeout", "-k", "5", str(RUN_LIMIT_S)]
        return [*limit, *self.command, "-p", prompt, "--model", f"{PROVIDER}/{MODEL}", *where]


def models_json(base_url: str) -> str:
    model = {
        "id": MODEL,
        "name": "Local peer",
        "reasoning": False,
        "input": ["text"],
        "contextWindow": 1_000_000,
        "maxTokens": 4096,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
    }
    provider = {
        "baseUrl": base_url,
        "api": "openai-completions",
        "apiKey": "peer-key",
        "models": [model],
    }
    return json.dumps({"providers": {PROVIDER: provider}}, indent=2)


def harnesses(args: argparse.Namespace, scratch: Path, base_url: str) -> list[Harness]:
    anchors = Path(args.anchors).expanduser()
    found: list[Harness] = []
    wanted = set(args.only.split(",")) if args.only else {OURS, "pi", "omp-ts"}
    candidates = [
        (OURS, [str(find_omp(args.omp))], ".omp/agent", "OMP_CODING_AGENT_DIR"),
        ("pi", [str(anchors / "pi/node_modules/.bin/pi")], ".pi/agent", "PI_CODING_AGENT_DIR"),
        ("omp-ts", [str(anchors / "omp/node_modules/.bin/omp")], ".omp/agent", None),
    ]
    base_env = user_env()
    for name, command, agent_rel, agent_var in candidates:
        if name not in wanted:
            continue
        if not Path(command[0]).exists():
            print(
                f"bench: {name} is not installed at {command[0]}: skipped "
                f"(bash ../shared/bench/install-anchors.sh installs it)"
            )
            continue
        home = scratch / name / "home"
        agent = home / agent_rel
        agent.mkdir(parents=True)
        (agent / "models.json").write_text(models_json(base_url), encoding="utf-8")
        env = {**base_env, "HOME": str(home), "NO_COLOR": "1"}
        if name == "omp-ts":
            anchor_bin = Path(command[0]).parent
            env["PATH"] = f"{anchor_bin}:{env.get('PATH', '')}"
        if agent_var:
            env[agent_var] = str(agent)
        found.append(Harness(name, command, home, agent, env))
    return found


@dataclass
class Run:
    wall: float
    rss_mib: float
    cpu: float
    """seconds of CPU the harness used (user + system)"""
    gaps: list[float]
    """seconds between request i-1 and i: the wall of turn i (1-based)"""
    harness_ms: list[float]
    """each gap minus the peer's time on the earlier request, in ms"""
    ok: bool
    note: str


def run(peer: Peer, harness: Harness, turns: int, work: Path) -> Run:
    session = harness.home / f"session-{turns}.jsonl"
    session.unlink(missing_ok=True)
    shutil.rmtree(session.parent / session.stem, ignore_errors=True)
    peer.start_run(turns)
    sample = run_once(harness.argv(session), harness.env, work)
    arrivals, busy = list(peer.arrivals), list(peer.busy)
    gaps = [b - a for a, b in pairwise(arrivals)]
    harness_ms = [(g - busy[i]) * 1000 for i, g in enumerate(gaps)]
    expected = f"done after {turns} reads"
    ok = sample.code == 0 and expected in sample.stdout and len(arrivals) == turns + 1
    note = (
        ""
        if ok
        else (
            f"exit {sample.code}, {len(arrivals)} requests, "
            f"{(sample.stdout + sample.stderr).strip()[-300:]!r}"
        )
    )
    return Run(sample.wall, sample.maxrss / 1024, sample.cpu, gaps, harness_ms, ok, note)


def window(values: list[float], first: int, last: int) -> float | None:
    """Mean of turns first..last (1-based, inclusive), None when the run was shorter."""
    part = values[first - 1 : last]
    return statistics.fmean(part) if len(part) == last - first + 1 else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", default="0,50,200,1000", help="tool-call turns per run")
    parser.add_argument("--runs", type=int, default=3, help="runs of each size below 1,000")
    parser.add_argument("--long-runs", type=int, default=1, help="runs of sizes >= 1,000")
    parser.add_argument("--anchors", default="~/.cache/omp-anchors", help="install-anchors DIR")
    parser.add_argument("--omp", help="this project's omp (default: beside this python)")
    parser.add_argument("--only", help="comma list of harnesses: omp-py,pi,omp-ts")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args(argv)
    try:
        sizes = sorted({int(t) for t in args.turns.split(",")})
    except ValueError:
        parser.error("--turns takes a comma list of integers, like 0,50,200")
    if args.runs < 1 or args.long_runs < 1 or sizes[0] < 0:
        parser.error("--runs and --long-runs must be at least 1, turns at least 0")
    scratch = Path(tempfile.mkdtemp(prefix="omp-bench-anchors-"))
    try:
        return _bench(args, sizes, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _bench(args: argparse.Namespace, sizes: list[int], scratch: Path) -> int:
    work = scratch / "work"
    work.mkdir()
    small = work / "small.txt"
    small.write_text("".join(f"line {i}: a small file\n" for i in range(1, 21)), "utf-8")
    peer = Peer(small)
    threading.Thread(target=peer.serve_forever, daemon=True).start()
    try:
        found = harnesses(args, scratch, peer.base_url)
        if not found:
            sys.exit("bench: no harness to measure")
        for h in found:  # warm-up: bytecode, page cache, first-run files
            warm = run(peer, h, 1, work)
            if not warm.ok:
                print(f"bench: {h.name}: the warm-up run failed: {warm.note}")
        results: dict[str, dict[int, list[Run]]] = {h.name: {} for h in found}
        for turns in sizes:
            for _ in range(args.long_runs if turns >= 1000 else args.runs):
                for h in found:  # alternating
                    r = run(peer, h, turns, work)
                    results[h.name].setdefault(turns, []).append(r)
                    print(
                        f"  {h.name:7} {turns:5} turns: {r.wall:7.3f} s "
                        f"(CPU {r.cpu:6.3f} s) {r.rss_mib:6.1f} MiB"
                        f"{'' if r.ok else '  FAILED ' + r.note}",
                        flush=True,
                    )
    finally:
        peer.shutdown()
    return report(args, sizes, results)


WINDOWS = ((1, 50), (51, 100), (101, 200), (201, 300), (451, 500), (701, 750), (951, 1000))


def _median(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _fmt(value: float | None, unit: str = "", digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}{unit}"


def _table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")


def report(
    args: argparse.Namespace, sizes: list[int], results: dict[str, dict[int, list[Run]]]
) -> int:
    names = list(results)
    good = {n: {t: [r for r in rs if r.ok] for t, rs in by.items()} for n, by in results.items()}

    def wall(name: str, turns: int) -> float | None:
        return _median([r.wall for r in good[name].get(turns, [])])

    def fastest(name: str, turns: int) -> float | None:
        runs = good[name].get(turns, [])
        return min(r.wall for r in runs) if runs else None

    def cpu(name: str, turns: int) -> float | None:
        return _median([r.cpu for r in good[name].get(turns, [])])

    def rss(name: str, turns: int) -> float | None:
        runs = good[name].get(turns, [])
        return max(r.rss_mib for r in runs) if runs else None

    def curve(name: str, first: int, last: int, harness: bool) -> float | None:
        runs = [r for t in sizes for r in good[name].get(t, []) if t >= last]
        longest = [r for r in runs if len(r.gaps) == max(len(x.gaps) for x in runs)]
        values = [
            window(r.harness_ms if harness else [g * 1000 for g in r.gaps], first, last)
            for r in longest
        ]
        return _median([v for v in values if v is not None])

    print()
    label = {0: "one-turn run (a direct answer)"}
    rows = []
    for t in sizes:
        rows.append(
            [
                label.get(t, f"{t} turns"),
                *(
                    f"{_fmt(wall(n, t), ' s', 3)} ({_fmt(fastest(n, t), '', 3)}) / "
                    f"{_fmt(cpu(n, t), ' s', 3)} / {_fmt(rss(n, t), ' MiB', 0)}"
                    for n in names
                ),
            ]
        )
    if 50 in sizes and 200 in sizes:
        rows.append(
            [
                "marginal per turn, 50 to 200",
                *(
                    _fmt(
                        None
                        if wall(n, 200) is None or wall(n, 50) is None
                        else (wall(n, 200) - wall(n, 50)) / 150 * 1000,
                        " ms",
                    )
                    for n in names
                ),
            ]
        )
    _table(["wall median (min) / CPU median / peak RSS", *names], rows)

    print("\nPer-turn curve, ms per turn by turn index (wall / harness = wall minus the peer)")
    rows = []
    for first, last in WINDOWS:
        if last > max(sizes):
            continue
        rows.append(
            [
                f"turns {first}-{last}",
                *(
                    f"{_fmt(curve(n, first, last, False))} / {_fmt(curve(n, first, last, True))}"
                    for n in names
                ),
            ]
        )
    _table(["turns", *names], rows)

    checks = targets(sizes, names, wall, rss, curve)
    print()
    _table(
        ["target (omp-py)", "measured", "result"],
        [[t, m, "-" if ok is None else ("PASS" if ok else "FAIL")] for t, m, ok in checks],
    )
    failed = [
        (n, t, r.note) for n, by in results.items() for t, rs in by.items() for r in rs if not r.ok
    ]
    for n, t, note in failed[:6]:
        print(f"bench: {n} at {t} turns failed: {note}")
    if args.json:
        print(
            json.dumps(
                {
                    n: {t: [r.__dict__ | {"gaps": None} for r in rs] for t, rs in by.items()}
                    for n, by in results.items()
                }
            )
        )
    return 1 if args.check and any(ok is False for _, _, ok in checks) else 0


def targets(sizes, names, wall, rss, curve) -> list[tuple[str, str, bool | None]]:
    out: list[tuple[str, str, bool | None]] = []
    if OURS not in names:
        return out
    if 0 in sizes:
        w = wall(OURS, 0)
        out.append(("one-turn run < 0.3 s", _fmt(w, " s", 3), None if w is None else w < 0.3))
    top = max(sizes)
    last = max((w for w in WINDOWS if w[1] <= top), default=None, key=lambda w: w[1])
    if last is not None:
        flat_first, flat_last = curve(OURS, 1, 50, True), curve(OURS, *last, True)
        worst = max(v for v in (flat_first, flat_last) if v is not None) if flat_last else None
        out.append(
            (
                f"harness cost per turn < 4 ms (turns {last[0]}-{last[1]})",
                _fmt(flat_last, " ms"),
                None if worst is None else flat_last < 4,
            )
        )
        ratio = None if not (flat_first and flat_last) else flat_last / flat_first
        out.append(
            (
                f"flat: turns {last[0]}-{last[1]} within 1.2x of turns 1-50",
                _fmt(ratio, "x"),
                None if ratio is None else ratio <= 1.2,
            )
        )
    if 200 in sizes:
        anchors = [wall(n, 200) for n in names if n != OURS and wall(n, 200) is not None]
        ours = wall(OURS, 200)
        if anchors and ours is not None:
            out.append(
                (
                    "200 turns <= 1/3 of the faster anchor's wall",
                    f"{ours:.3f} s vs {min(anchors) / 3:.3f} s",
                    ours <= min(anchors) / 3,
                )
            )
        else:
            out.append(("200 turns <= 1/3 of the faster anchor's wall", "no anchor measured", None))
    if 1000 in sizes:
        peak = rss(OURS, 1000)
        out.append(
            (
                "peak RSS at 1,000 turns < 120 MiB",
                _fmt(peak, " MiB", 1),
                None if peak is None else peak < 120,
            )
        )
    return out


if __name__ == "__main__":
    sys.exit(main())
