"""Normalizing a ~1 MB recorded stream with each provider's parser (issue 4).

For each API, a recorded stream from tests/fixtures is grown to about 1 MB by
repeating its content events (the recorded bytes of each event, unchanged) between its
opening and closing events, then replayed from memory through the plugin's
``parse_recorded`` - the same parser the live provider uses. Reports MB, normalized
events, wall time, events per second and milliseconds per MB (target: under 50).

    .venv/bin/python bench/providers_parse.py [--rounds 5] [--size-mb 1.0]
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time
from pathlib import Path

from omp.agent.providers import Model

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
TARGET_MS_PER_MB = 50.0

# (api, plugin module with parse_recorded, fixture, marker of the events to repeat)
CASES = [
    (
        "anthropic-messages",
        "omp_provider_anthropic.wire",
        "extracted/anthropic__pydantic-ai__test_anthropic_model_thinking_part_stream.0.sse",
        b'"text_delta"',
    ),
    (
        "openai-completions",
        "omp_provider_openai_completions.wire",
        "extracted/openai-chat__pydantic-ai__test_run_stream_sync_streams_real_model.1.sse",
        b'"content":"',
    ),
    (
        "openai-responses",
        "omp_provider_openai_responses.parse",
        "extracted/openai-responses__pydantic-ai__test_openai_responses_streaming_usage.0.sse",
        b"function_call_arguments.delta",
    ),
    (
        "google-generative-ai",
        "omp_provider_google.wire",
        "extracted/gemini__pydantic-ai__test_google_streaming_tool_call_thought_signature.1.sse",
        b'"text"',
    ),
]


def events_of(data: bytes) -> tuple[list[bytes], bytes]:
    separator = b"\r\n\r\n" if b"\r\n\r\n" in data else b"\n\n"
    parts = [p for p in data.split(separator) if p.strip()]
    return parts, separator


def grow(data: bytes, marker: bytes, size: int) -> bytes:
    """The stream with its content events repeated in place until it reaches ``size``."""
    parts, separator = events_of(data)
    content = [i for i, p in enumerate(parts) if marker in p]
    if not content:
        raise SystemExit(f"no event with {marker!r} in the fixture")
    first, last = content[0], content[-1]
    head, middle, tail = parts[:first], parts[first : last + 1], parts[last + 1 :]
    if marker == b'"text"':  # Gemini: the final chunk carries finishReason; keep it last
        middle, tail = parts[first:last], parts[last:]
    block = separator.join(middle) + separator
    repeats = max(1, (size - len(data)) // max(1, len(block)) + 1)
    body = separator.join(head) + separator + block * repeats + separator.join(tail)
    return body + separator


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--size-mb", type=float, default=1.0)
    args = parser.parse_args()
    size = int(args.size_mb * 1024 * 1024)
    print(f"{'api':<22}{'MB':>6}{'events':>9}{'median':>11}{'events/s':>12}{'ms/MB':>9}  result")
    worst = 0.0
    for api, module_name, fixture, marker in CASES:
        module = importlib.import_module(module_name)
        body = grow((FIXTURES / fixture).read_bytes(), marker, size)
        model = Model(provider="bench", id="m", api=api, reasoning=True)
        times, count = [], 0
        for _ in range(args.rounds):
            started = time.perf_counter()
            events = module.parse_recorded(body, model)
            times.append(time.perf_counter() - started)
            count = len(events)
            if events[-1]["type"] != "done":
                raise SystemExit(f"{api}: the replay did not finish: {events[-1]}")
        median = statistics.median(times)
        megabytes = len(body) / 1024 / 1024
        per_mb = median * 1000 / megabytes
        worst = max(worst, per_mb)
        verdict = "PASS" if per_mb < TARGET_MS_PER_MB else "FAIL"
        print(
            f"{api:<22}{megabytes:>6.2f}{count:>9}{median * 1000:>9.1f}ms"
            f"{count / median:>12,.0f}{per_mb:>9.1f}  {verdict}"
        )
    print(f"slowest: {worst:.1f} ms per MB (target < {TARGET_MS_PER_MB:.0f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
