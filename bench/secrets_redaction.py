"""What hiding known secrets costs per tool result and per session line (issue 24, item 8).

    .venv/bin/python bench/secrets_redaction.py [--repeat N]

Times ``coerce_tool_result`` (the one tool-result boundary) on a bash-like output with
no secret known, with a handful known (the usual case: a few provider keys and tokens)
and with 100 known, ``Secrets.redact_bytes`` on a session line, and the stream guard
(omp.agent.stream_guard) on a 50 KiB answer streamed in 4- and 24-character deltas, per
delta, against keys starting "sk-" in prose full of "s" (none known: the loop makes no
guard, the figure is the bare walk over the events). A report: it prints figures and
exits 0. See bench/README.md.
"""

from __future__ import annotations

import argparse
import random
import statistics
import string
import time
from collections.abc import Callable

from omp.agent.providers import AssistantStream, Model
from omp.agent.stream_guard import StreamGuard
from omp.agent.tools import ToolResult, coerce_tool_result
from omp.config.secrets import Secrets


def _secrets(count: int, prefix: str = "") -> Secrets:
    """``count`` keys of 40 random characters (real keys share no long prefix)."""
    rng = random.Random(count)
    alphabet = string.ascii_letters + string.digits + "-_"
    secrets = Secrets()
    for n in range(count):
        secrets.add(prefix + "".join(rng.choice(alphabet) for _ in range(40)), f"KEY_{n}")
    return secrets


def _answer_events(size: int, delta: int) -> list[dict]:
    """A streamed answer of ``size`` characters of prose, ``delta`` characters a delta."""
    prose = "this answer says sk- is a prefix; it lists files, tests and results. "
    text = (prose * (size // len(prose) + 1))[:size]
    out = AssistantStream(Model(id="m", provider="p", api="a"))
    events = [out.start(), out.text_start()]
    events += [out.text_delta(text[i : i + delta]) for i in range(0, size, delta)]
    return [*events, out.text_end()]


def _guarded(events: list[dict], secrets: Secrets) -> None:
    guard = StreamGuard(secrets) if secrets else None
    for event in events:
        for _update in guard.feed(event) if guard else (event,):
            pass
    if guard is not None:
        guard.release()


def _median_us(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args(argv)
    line = "drwxr-xr-x  2 user user  4096 Nov 28 09:00 some-directory-name\n"
    sizes = {"1 KiB": line * 16, "50 KiB": line * 800, "1 MiB": line * 16400}
    session_line = (
        '{"type":"message","message":{"content":"' + line.strip() * 30 + '"}}\n'
    ).encode()
    print(f"{'case':44} {'none known':>12} {'5 known':>12} {'100 known':>12}")
    for label, text in sizes.items():
        raw = ToolResult.text(text, {"exitCode": 0, "command": "ls -la"})
        row = [
            _median_us(lambda s=s, r=raw: coerce_tool_result(r, s), args.repeat)
            for s in (None, _secrets(5), _secrets(100))
        ]
        print(f"{'tool result of ' + label:44} " + " ".join(f"{v:>9.1f} us" for v in row))
    row = [
        _median_us(lambda s=s: s.redact_bytes(session_line), args.repeat * 10)
        for s in (Secrets(), _secrets(5), _secrets(100))
    ]
    print(f"{'session line of 2 KiB':44} " + " ".join(f"{v:>9.1f} us" for v in row))
    for delta in (4, 24):
        events = _answer_events(50 * 1024, delta)
        row = [
            _median_us(lambda s=s, e=events: _guarded(e, s), max(args.repeat // 20, 5))
            / len(events)
            for s in (Secrets(), _secrets(5, "sk-"), _secrets(100, "sk-"))
        ]
        label = f"stream guard, per {delta}-char delta"
        print(f"{label:44} " + " ".join(f"{v:>9.2f} us" for v in row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
