"""A prompt far larger than the model's window is refused with the usual line, judged on
a bound computed without the tokenizer (issue 24, item 9; bench/huge_prompt.py times it)."""

from __future__ import annotations

import re

REFUSAL = re.compile(
    r"omp: error: the prompt is ([\d,]+) tokens( or more)?, larger than scripted/demo's "
    r"context window of 200,000 tokens; shorten it, or set compaction.oversizedPrompt to "
    r"attach to hand it to the model as a file"
)


def test_a_10_mb_prompt_is_refused_with_the_usual_line(omp_cli):
    script = omp_cli.script([{"text": "never sent"}])
    huge = "def frobnicate(value):\n    return value * 42  # the answer\n" * 170_000
    assert len(huge) > 10_000_000
    proc = omp_cli("-p", "--script", str(script), input=huge)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    (line,) = [x for x in omp_cli.stderr_lines(proc) if "prompt is" in x]
    match = REFUSAL.fullmatch(line)
    assert match, line
    assert int(match[1].replace(",", "")) > 200_000


def test_a_prompt_just_past_the_window_is_counted_exactly(omp_cli):
    script = omp_cli.script([{"text": "never sent"}])
    proc = omp_cli("-p", "--script", str(script), input="word " * 200_000)
    assert proc.returncode == 1, proc.stderr
    (line,) = [x for x in omp_cli.stderr_lines(proc) if "prompt is" in x]
    match = REFUSAL.fullmatch(line)
    assert match and match[2] is None, line
    assert match[1] == "200,001"
