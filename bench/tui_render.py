"""Rendering a streamed answer in the interactive mode (issue 14's benchmark).

A 10,000-token Markdown answer (headings, paragraphs, lists, Python and shell code
blocks) is streamed as message_update events through the interactive mode's
``Transcript`` into a terminal-like sink: finished blocks are written to the sink (the
scrollback), and the live tail is redrawn at 30 frames a second (cursor up, clear,
tail, footer), as the application does.

Reported:
- paced: the tokens arrive at 1,000 a second; the time beyond the stream's own pace
  (target under 10%) and the longest any token waited behind its schedule (a stall);
- flat: the same stream unpaced, the mean cost per token (its event plus its share of
  the frames) over the first and the last 1,000 tokens (flat: a ratio near 1), against
  rendering the whole answer once (what a renderer redrawing it per frame would pay).

    .venv/bin/python bench/tui_render.py [--tokens 10000] [--rate 1000] [--width 100]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from typing import Any

from omp_mode_interactive.render import FooterInfo, Theme, Transcript, render_footer

FPS = 30
TOKEN = re.compile(r"\s*\S{1,4}|\s+")


def answer(tokens: int) -> str:
    """Markdown of about ``tokens`` tokens (a token: a word piece of up to 4 characters)."""
    rng = random.Random(14)
    words = [
        "the",
        "model",
        "reads",
        "files",
        "edits",
        "code",
        "runs",
        "tests",
        "and",
        "explains",
        "why",
        "each",
        "change",
    ]
    parts: list[str] = []
    count = 0
    section = 0
    while count < tokens:
        section += 1
        chunk = [f"## Step {section}: {' '.join(rng.choices(words, k=4))}"]
        chunk.append(" ".join(rng.choices(words, k=rng.randint(40, 90))) + ".")
        chunk.append(
            "\n".join(f"- `item_{n}` {' '.join(rng.choices(words, k=8))}" for n in range(5))
        )
        body = "\n".join(
            f"    value_{n} = compute({n}, '{rng.choice(words)}')  # {rng.choice(words)}"
            for n in range(rng.randint(8, 20))
        )
        chunk.append(f"```python\ndef step_{section}():\n{body}\n    return value_0\n```")
        chunk.append("1. first **bold** point\n2. second *point* with a [link](https://x.io)")
        chunk.append("```bash\npytest -q tests/ && ruff check .\n```")
        text = "\n\n".join(chunk)
        parts.append(text)
        count += len(TOKEN.findall(text))
    return "\n\n".join(parts)


def token_events(text: str, limit: int) -> list[Any]:
    from omp.agent.events import MessageEndEvent, MessageStartEvent, MessageUpdateEvent
    from omp.agent.providers import AssistantStream, Model

    out = AssistantStream(Model(provider="bench", id="bench"))
    events: list[Any] = [MessageStartEvent(message=out.message)]

    def update(event: dict[str, Any]) -> None:
        events.append(MessageUpdateEvent(message=out.message, assistant_message_event=event))

    update(out.text_start())
    for piece in TOKEN.findall(text)[:limit]:
        update(out.text_delta(piece))
    update(out.text_end())
    out.done("stop")
    events.append(MessageEndEvent(message=out.message))
    return events


class Terminal:
    """A sink like the application's screen: scrollback writes, live-area redraws."""

    def __init__(self, width: int) -> None:
        self.out = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self.width = width
        self.live_lines = 0
        self.footer = FooterInfo(model="scripted/demo", thinking_level="high", context_percent=12.5)
        self.max_live_lines = 0

    def emit(self, text: str) -> None:
        self.out.write(f"\x1b[{self.live_lines}A\x1b[J" if self.live_lines else "")
        self.out.write(text)
        self.live_lines = 0

    def frame(self, transcript: Transcript, theme: Theme) -> None:
        live = transcript.live()
        footer = render_footer(self.footer, self.width, theme)
        screen = f"{live}\n{footer}" if live else footer
        self.out.write(
            (f"\x1b[{self.live_lines}A\x1b[J" if self.live_lines else "") + screen + "\n"
        )
        self.live_lines = screen.count("\n") + 1
        self.max_live_lines = max(self.max_live_lines, live.count("\n") + 1 if live else 0)

    def close(self) -> None:
        self.out.close()


def paced(events: list[Any], rate: float, width: int, theme: Theme) -> dict[str, float]:
    terminal = Terminal(width)
    transcript = Transcript(width, theme, {}, True, terminal.emit)
    interval, frame_every = 1.0 / rate, 1.0 / FPS
    lateness = []
    start = time.perf_counter()
    last_frame = start
    for index, event in enumerate(events):
        due = start + index * interval
        now = time.perf_counter()
        if now < due:
            time.sleep(due - now)
        else:
            lateness.append(now - due)
        transcript.handle(event)
        now = time.perf_counter()
        if now - last_frame >= frame_every:
            terminal.frame(transcript, theme)
            last_frame = now
    terminal.frame(transcript, theme)
    total = time.perf_counter() - start
    pace = (len(events) - 1) * interval
    terminal.close()
    return {
        "total": total,
        "pace": pace,
        "overhead": (total - pace) / pace,
        "stall_ms": max(lateness, default=0.0) * 1000,
        "late_p99_ms": sorted(lateness)[int(len(lateness) * 0.99)] * 1000 if lateness else 0.0,
        "late_share": len(lateness) / len(events),
        "max_live_lines": terminal.max_live_lines,
    }


def unpaced(events: list[Any], rate: float, width: int, theme: Theme) -> list[float]:
    """The cost of each token: its event, and a frame every rate/FPS tokens (as at
    ``rate``), attributed to the token that drew it."""
    terminal = Terminal(width)
    transcript = Transcript(width, theme, {}, True, terminal.emit)
    every = max(1, round(rate / FPS))
    costs = []
    clock = time.process_time  # CPU time: other processes on the machine do not count
    for index, event in enumerate(events):
        begin = clock()
        transcript.handle(event)
        if index % every == 0:
            terminal.frame(transcript, theme)
        costs.append(clock() - begin)
    terminal.close()
    return costs


def whole_answer_ms(text: str, width: int, theme: Theme) -> float:
    from omp_mode_interactive.render.rich_render import RichRenderer

    renderer = RichRenderer(width, theme)
    renderer.markdown(text)
    begin = time.perf_counter()
    renderer.markdown(text)
    return (time.perf_counter() - begin) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=1000.0, help="tokens a second")
    parser.add_argument("--width", type=int, default=100)
    parser.add_argument("--skip-paced", action="store_true")
    args = parser.parse_args(argv)
    theme = Theme.dark("256")
    text = answer(args.tokens)
    events = token_events(text, args.tokens)
    begin = time.perf_counter()
    unpaced(token_events(answer(300), 300), args.rate, args.width, theme)
    first_ms = (time.perf_counter() - begin) * 1000
    print(f"first answer (imports rich, pygments, lexers): {first_ms:.0f} ms")
    tokens = len(events) - 4
    print(f"answer: {tokens} tokens, {len(text):,} characters, width {args.width}")

    costs = unpaced(events, args.rate, args.width, theme)[2:-2]
    window = min(1000, len(costs) // 4)
    first = sum(costs[:window]) / window * 1e6
    last = sum(costs[-window:]) / window * 1e6
    print(
        f"flat: {first:.0f} us per token over the first {window} tokens, {last:.0f} us over "
        f"the last {window} (ratio {last / first:.2f}); all {len(costs)}: "
        f"{sum(costs) * 1000:.0f} ms of CPU, {sum(costs) / (len(costs) / args.rate) * 100:.1f}% "
        f"of the stream's {len(costs) / args.rate:.0f} s"
    )
    print(
        f"      rendering the whole answer once instead: "
        f"{whole_answer_ms(text, args.width, theme):.0f} ms (per frame, for a full redraw)"
    )
    if not args.skip_paced:
        result = paced(events, args.rate, args.width, theme)
        verdict = "ok" if result["overhead"] < 0.10 else "OVER the 10% target"
        print(
            f"paced at {args.rate:g} tokens/s: {result['total']:.2f} s for a "
            f"{result['pace']:.2f} s stream, overhead {result['overhead'] * 100:.1f}% ({verdict}); "
            f"{result['late_share'] * 100:.1f}% of tokens drawn late (99th percentile "
            f"{result['late_p99_ms']:.1f} ms, longest {result['stall_ms']:.1f} ms); "
            f"live tail at most {result['max_live_lines']} lines"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
