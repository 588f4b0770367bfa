"""What rules and skills add to each model request (issue 13's benchmark).

A project holds 50 rules (10 always applied, 20 described, 20 with globs; in
``.omp/rules``, ``.cursor/rules`` and ``.windsurf/rules``) and 50 skills
(``.omp/skills``, ``.claude/skills``). The same in-process session - the real ``read``
tool, an in-memory session and a provider that answers at once - runs the same prompts
twice: with every context source on, and with ``--no-rules --no-skills``. Each prompt
makes two requests: the first asks to ``read`` a ``.ts`` file (a glob rule matches and
is attached to the result), the second gets the final answer.

Reported: the added cost per request (the difference of the two runs' medians,
divided by the requests made; target under 5 ms), and the one-time cost of
discovering the 50 rules and 50 skills when the session starts.

    .venv/bin/python bench/context_assembly.py [--prompts 50] [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_MS = 5.0
FLAGS_OFF = {"no-rules": True, "no-skills": True}


def make_project(root: Path) -> Path:
    cwd = root / "work"
    for index in range(50):
        folder = (".omp/rules", ".cursor/rules", ".windsurf/rules")[index % 3]
        if index < 10:
            head = "alwaysApply: true"
        elif index < 30:
            head = f"description: Conventions for area {index}"
        else:
            head = f"globs: src/m{index}/**/*.ts,*.r{index}"
        text = f"---\n{head}\n---\n" + f"Rule {index}: keep module {index} tidy.\n" * 8
        write(cwd / folder / f"rule{index}.md", text)
        skills = (".omp/skills", ".claude/skills")[index % 2]
        write(
            cwd / skills / f"skill{index}" / "SKILL.md",
            f"---\nname: skill{index}\ndescription: Does task {index} well\n---\n" + "Step.\n" * 40,
        )
    for index in range(30, 50):
        write(cwd / "src" / f"m{index}" / "a" / "file.ts", "export const x = 1;\n" * 20)
    return cwd


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def make_provider() -> Any:
    from omp.agent.providers import AssistantStream, Model, Provider

    class Instant(Provider):
        name = "bench"
        api = "bench"

        def __init__(self) -> None:
            super().__init__([Model(provider="bench", id="m", api="bench", context_window=10**6)])
            self.requests = 0

        async def stream(self, model, context, options):
            self.requests += 1
            out = AssistantStream(model)
            yield out.start()
            last = context.messages[-1]
            if last.role == "user":
                number = 30 + (self.requests // 2) % 20
                yield out.toolcall_start(f"c{self.requests}", "read")
                yield out.toolcall_delta(json.dumps({"path": f"src/m{number}/a/file.ts"}))
                yield out.toolcall_end()
            else:
                yield out.text_start()
                yield out.text_delta("done")
                yield out.text_end()
            yield out.done()

    return Instant()


def run_once(cwd: Path, prompts: int, flags: dict[str, Any]) -> tuple[float, float, int, int, int]:
    """(seconds to start the session, seconds for the prompts, requests made, system
    prompt characters, rules attached to tool results)."""
    import omp
    from omp.runtime.bootstrap import RUNTIME_KINDS, SessionOptions, load_runtime, open_session

    provider = make_provider()

    class Contribute:
        @omp.hookimpl
        def omp_register_providers(self, api):
            return [provider]

    runtime = load_runtime(cwd=cwd, extra_plugins=[Contribute()], kinds=RUNTIME_KINDS)
    options = SessionOptions(model="bench/m", no_session=True, flags=dict(flags))
    session = open_session(runtime, options)

    async def drive() -> tuple[float, float]:
        began = time.perf_counter()
        await session.start()
        started = time.perf_counter()
        for index in range(prompts):
            await session.prompt(f"look at module {index}")
        finished = time.perf_counter()
        await session.shutdown()
        return started - began, finished - started

    start, work = asyncio.run(drive())
    attached = sum(
        "<rule name=" in getattr(block, "text", "")
        for message in session.agent.messages
        if message.role == "toolResult"
        for block in message.content
    )
    return start, work, provider.requests, len(session.agent.system_prompt), attached


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        os.environ["HOME"] = str(root / "home")
        os.environ["OMP_CODING_AGENT_DIR"] = str(root / "agent")
        cwd = make_project(root)
        run_once(cwd, 2, {})  # warm-up: imports and caches
        on, off = [], []
        for _ in range(args.rounds):
            off.append(run_once(cwd, args.prompts, FLAGS_OFF))
            on.append(run_once(cwd, args.prompts, {}))
    requests, chars_on, attached = on[0][2], on[0][3], on[0][4]
    assert attached == 20, f"expected the 20 glob rules attached once each, got {attached}"
    work_on = statistics.median(r[1] for r in on)
    work_off = statistics.median(r[1] for r in off)
    start_on = statistics.median(r[0] for r in on)
    start_off = statistics.median(r[0] for r in off)
    added = (work_on - work_off) / requests * 1000
    print(f"{args.prompts} prompts, {requests} requests, median of {args.rounds} rounds")
    print(f"system prompt: {off[0][3]:,} chars off, {chars_on:,} on; {attached} rules attached")
    print(f"per request, sources off: {work_off / requests * 1000:.3f} ms")
    print(f"per request, 50 rules + 50 skills: {work_on / requests * 1000:.3f} ms")
    verdict = "meets" if added < TARGET_MS else "misses"
    print(f"added per request: {added:.3f} ms ({verdict} the {TARGET_MS:g} ms target)")
    print(f"discovery at session start: {(start_on - start_off) * 1000:.2f} ms (once)")


if __name__ == "__main__":
    main()
