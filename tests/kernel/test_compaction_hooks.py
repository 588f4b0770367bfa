"""The kernel's compaction mechanism without the omp-compaction plugin: the loop asks
plugins through omp_before_request and omp_context_overflow, ctx.compact() and /compact
go to the omp_compaction_service's service, and with no plugin at all compaction is a
one-line error and an overflow is simply the provider's error."""

from __future__ import annotations

import omp
from doubles import Contribute
from omp.agent.messages import content_text
from test_compaction import GOAL, Worker

OVERFLOW = "prompt is too long: 210000 tokens > 200000 maximum"


def _bare(harness, provider, *plugins):
    """A session without omp-compaction (only the plugins given)."""
    return harness.session([Contribute([provider]), *plugins], model="test/model", builtins=[])


def test_without_a_compaction_plugin_compact_says_none_is_installed(omp_harness):
    results: list[str] = []

    class Cmd:
        @omp.hookimpl
        def omp_register_commands(self, api):
            async def run(args, ctx):
                try:
                    await ctx.compact()
                except omp.OmpError as exc:
                    results.append(str(exc))

            return [omp.Command("squeeze", "compact", run)]

    provider = Worker([{"text": "one"}, {"text": "two"}])
    session = _bare(omp_harness, provider, Cmd())
    log = omp_harness.run(session, GOAL, "second", "/compact", "/squeeze")
    errors = [n.message for n in log.of("notice") if n.level == "error"]
    assert errors == [
        "compaction failed: no compaction plugin is installed (install omp-compaction)"
    ]
    assert results == ["no compaction plugin is installed (install omp-compaction)"]
    assert provider.summary_requests == []


def test_without_a_compaction_plugin_an_overflow_is_the_providers_error(omp_harness):
    provider = Worker([{"error": OVERFLOW}, {"text": "never sent"}])
    session = _bare(omp_harness, provider)
    log = omp_harness.run(session, GOAL)
    assert len(provider.requests) == 1
    assert not log.of("auto_compaction_start")
    failed = [e.message for e in log.of("message_end") if e.message.role == "assistant"]
    assert failed[-1].stop_reason == "error" and OVERFLOW in failed[-1].error_message


def test_a_plugin_answers_the_loops_compaction_hooks(omp_harness):
    """A policy of one's own: omp_before_request replaces the conversation the request is
    built from, omp_context_overflow sends the request again with a shorter one,
    omp_compaction_service answers ctx.compact() (/compact) and checks the prompt."""
    seen: list[str] = []

    class Policy:
        @omp.hookimpl
        def omp_before_request(self, event: omp.BeforeRequestEvent):
            seen.append(f"request {len(event.messages)}")
            note = omp.UserMessage(content="(policy note)")
            return omp.RequestDecision(messages=[*event.messages, note])

        @omp.hookimpl
        def omp_context_overflow(self, event: omp.ContextOverflowEvent):
            seen.append(f"overflow {event.message.error_message}")
            return {"retry": True, "messages": [omp.UserMessage(content="shorter")]}

        @omp.hookimpl
        def omp_compaction_service(self, event: omp.CompactionServiceEvent):
            class Service:
                async def compact(self, messages, instructions=None, *, signal=None):
                    seen.append(f"compact {instructions}")
                    result = {"summary": "s", "tokens_before": 9, "tokens_after": 1}
                    return omp.CompactionOutcome(result=result, messages=[], upto=None)

                async def summarize_branch(self, entries, instructions, signal):
                    return None

                async def check_prompt(self, text):
                    return text.upper()

            return {"service": Service()}

    provider = Worker([{"error": OVERFLOW}, {"text": "fine"}])
    session = _bare(omp_harness, provider, Policy())
    log = omp_harness.run(session, "hello", "/compact now")
    assert seen == ["request 1", f"overflow {OVERFLOW}", "compact now"]
    first, retried = provider.requests
    assert [content_text(m.content) for m in first.messages] == ["HELLO", "(policy note)"]
    assert [content_text(m.content) for m in retried.messages] == ["shorter"]
    assert log.final_text() == "fine"
    notices = [n.message for n in log.of("notice")]
    assert "compacted the context: 9 -> 1 tokens" in notices


def test_the_loops_compaction_hooks_have_no_time_limit(omp_harness):
    """A compaction asks a model: omp_before_request is not cut at hookTimeoutMs (here
    1 ms)."""
    import asyncio
    import json

    (omp_harness.agent_dir / "settings.json").write_text(json.dumps({"hookTimeoutMs": 1}))

    class Slow:
        @omp.hookimpl
        async def omp_before_request(self, event):
            await asyncio.sleep(0.05)  # longer than the hooks' time limit
            return {"messages": [omp.UserMessage(content="after a slow summary")]}

    provider = Worker([{"text": "fine"}])
    session = _bare(omp_harness, provider, Slow())
    log = omp_harness.run(session, "hello")
    assert not log.of("extension_error")
    assert [content_text(m.content) for m in provider.requests[0].messages] == [
        "after a slow summary"
    ]
