"""grep's regex engines (issue 8, item 4): a catastrophic pattern never hangs the harness.

Patterns RE2 can express run there (linear time); the others run on Python's ``re`` in
a worker process that is killed at ``search.regexTimeoutMs`` or on abort. Tests that
could hang if that regressed run in a subprocess with a time limit, or under a
faulthandler watchdog that ends the run instead of hanging it.
"""

from __future__ import annotations

import asyncio
import faulthandler
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from omp import AbortSignal, Settings, ToolResult
from omp_tool_search import backend
from omp_tool_search.tools import GrepParams, GrepTool

CATASTROPHIC_TEXT = "a" * 40 + "!\n"
PYTHON_ONLY = r"(a+)+\1$"
"""Exponential in Python's re on CATASTROPHIC_TEXT, and beyond RE2 (a backreference)."""


@pytest.fixture
def watchdog() -> Iterator[None]:
    """End the test run with a traceback rather than hang it forever."""
    faulthandler.dump_traceback_later(60, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def isolated(code: str, timeout: float = 30) -> dict:
    """Run ``code`` in a fresh interpreter (it prints one JSON object); a hang fails."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {timeout} s: the search hung", pytrace=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


PRELUDE = """
import asyncio, json, os, sys, time
from types import SimpleNamespace
from omp import AbortSignal, Settings
from omp_tool_search.tools import GrepParams, GrepTool

def grep(cwd, settings=None, abort_after=None, **params):
    ctx = SimpleNamespace(cwd=cwd, settings=Settings(settings or {}))
    signal = AbortSignal()

    async def go():
        task = asyncio.ensure_future(
            GrepTool().execute("c", GrepParams(**params), signal, lambda p: None, ctx)
        )
        if abort_after is not None:
            await asyncio.sleep(abort_after)
            signal.abort()
        aborted = time.monotonic()
        return await task, time.monotonic() - aborted

    start = time.monotonic()
    result, after_abort = asyncio.run(go())
    return {
        "error": result.is_error,
        "text": result.content[0].text,
        "seconds": time.monotonic() - start,
        "after_abort": after_abort,
    }
"""


def test_a_catastrophic_pattern_returns_at_once(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(CATASTROPHIC_TEXT)
    (tmp_path / "b.txt").write_text("aaaa\n")
    out = isolated(
        PRELUDE
        + f"print(json.dumps(grep({str(tmp_path)!r}, pattern=r'(a+)+$', outputMode='files')))"
    )
    assert not out["error"]
    assert out["text"] == "b.txt"
    assert out["seconds"] < 2


def test_a_pattern_that_times_out_is_a_tool_error(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(CATASTROPHIC_TEXT)
    settings = {"search": {"regexTimeoutMs": 300}}
    out = isolated(
        PRELUDE
        + f"print(json.dumps(grep({str(tmp_path)!r}, {settings!r}, pattern=r'{PYTHON_ONLY}')))"
    )
    assert out["error"]
    assert out["text"].startswith(f"The regex {PYTHON_ONLY!r} timed out after 0.3 s on a.txt")
    assert "literal=true" in out["text"]
    assert out["seconds"] < 3


def test_abort_stops_a_catastrophic_search_and_its_worker(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(CATASTROPHIC_TEXT)
    settings = {"search": {"regexTimeoutMs": 600_000}}
    out = isolated(
        PRELUDE
        + f"""
out = grep({str(tmp_path)!r}, {settings!r}, abort_after=0.5, pattern=r'{PYTHON_ONLY}')
deadline = time.monotonic() + 2
while True:  # the worker process is killed and reaped
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        out["children"] = False
        break
    if time.monotonic() > deadline:
        out["children"] = True
        break
    time.sleep(0.02)
print(json.dumps(out))
"""
    )
    assert out["error"] and out["text"] == "grep aborted."
    assert out["after_abort"] < 1
    assert out["children"] is False


def call(name: str, **arguments) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_the_timeout_setting_reaches_the_backend_through_the_session(omp_harness, watchdog) -> None:
    (omp_harness.agent_dir / "settings.json").write_text(
        json.dumps({"search": {"regexTimeoutMs": 200}})
    )
    (omp_harness.cwd / "a.txt").write_text(CATASTROPHIC_TEXT)
    script = [call("grep", pattern=PYTHON_ONLY), {"text": "done"}]
    start = time.monotonic()
    events = omp_harness.run(omp_harness.session(script=script), "go")
    (end,) = events.of("tool_execution_end")
    assert end.is_error
    assert "timed out after 0.2 s on a.txt" in end.result["content"][0].text
    assert time.monotonic() - start < 10


def test_aborting_the_run_kills_a_catastrophic_search(omp_harness, watchdog) -> None:
    (omp_harness.cwd / "a.txt").write_text(CATASTROPHIC_TEXT)
    session = omp_harness.session(script=[call("grep", pattern=PYTHON_ONLY), {"text": "x"}])
    aborted: list[float] = []

    async def abort_soon(s):
        await asyncio.sleep(0.5)
        aborted.append(time.monotonic())
        s.context.abort()

    events = omp_harness.run(session, "go", during=abort_soon)
    (end,) = events.of("tool_execution_end")
    assert end.is_error
    assert time.monotonic() - aborted[0] < 3


def run(params: GrepParams, cwd: Path, settings: dict | None = None) -> ToolResult:
    ctx = SimpleNamespace(cwd=str(cwd), settings=Settings(settings or {}))
    return asyncio.run(GrepTool().execute("c", params, AbortSignal(), lambda p: None, ctx))


@pytest.mark.parametrize("value", ["soon", 0, -5, True])
def test_a_bad_timeout_setting_is_a_clear_error(tmp_path: Path, value) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    result = run(GrepParams(pattern="x"), tmp_path, {"search": {"regexTimeoutMs": value}})
    assert result.is_error
    assert result.content[0].text == (
        f"search.regexTimeoutMs must be a positive number of milliseconds, got {value!r}"
    )


# -- the engines agree with Python's re -------------------------------------------------

TEXT = "\n".join(
    [
        "café au lait",
        "CAFÉ",
        "naïve_42 x",
        "\u0131stanbul \u0130zmir",
        "Straße STRASSE",
        "tab\there",
        "nbsp\u00a0here and\u2003em",
        "digits ٣٤٥ and 123",
        "end\r",
        "foo bar foobar barfoo",
        "aaa bbb aaa",
        "x{3} xxx xx",
        "ﬁle \u212a sign",
        "",
        "émile_é éé",
        "\ufffd replaced",
        "last line without newline",
    ]
)
PATTERNS = [
    r"caf\w",
    r"\w+_\d+",
    r"^\W",
    r"[^\w\s]",
    r"[\W\d]",
    r"\d{3}",
    r"\s\S+$",
    r"\bfoo\b",
    r"\Bfoo",
    r"\bé\w*",
    r"é\b",
    r"(?i)café",
    r"(?i)istanbul",
    r"(?i)[h-j]zmir",
    r"(?i)[^a-z]stanbul",
    r"(?i)ﬁle k",
    r"(?i)STRASSE",
    r"(?ai)ﬁle k",
    r"(?a)\w+\b",
    r"x{,3}",
    r"x{3}",
    r"x\{3\}",
    r"a{2,}?",
    r"^$",
    r"end$",
    r"end\r$",
    r"(?s)a.b",
    r"t.b",
    r"(?i:CAF)É",
    r"(?x) a a a  \s b",
    r"foo|^last",
    r"(?-m:^café)",
    r"(?-m:line$)",
    r"\Alast",
    r"newline\Z",
    r"(a)\1",
    r"(?<=foo)bar",
    r"foo(?!bar)",
    r"(?>a+)b",
    r"a++",
    r"\ufffd",
    r"[^a]",
    r"(?i)[^\W\d_]+ké",
    r"x{1001}",
    r"(\w)\w*\1",
]


def python_lines(pattern: str, text: str) -> list[int]:
    """Line numbers where a match lies within the line: the meaning grep keeps."""
    regex = re.compile(pattern, re.MULTILINE)
    lines, start = [], 0
    for number, line in enumerate(text.split("\n"), 1):
        end = start + len(line)
        if regex.search(text, start, end) is not None:
            lines.append(number)
        start = end + 1
    return lines


@pytest.mark.parametrize("pattern", PATTERNS)
def test_grep_matches_the_lines_pythons_re_matches(tmp_path: Path, pattern: str) -> None:
    (tmp_path / "t.txt").write_text(TEXT, encoding="utf-8")
    answer = backend.grep({"pattern": pattern, "limit": 1000}, str(tmp_path))
    assert answer.error is None
    assert [line.line for line in answer.lines] == python_lines(pattern, TEXT)


def test_invalid_utf8_reads_as_replacement_characters(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_bytes(b"ok \xff\xfe end\nplain\n")
    for pattern in (r"ok . . end", r"\ufffd", r"ok \W+ end", r"^\S+$"):
        answer = backend.grep({"pattern": pattern}, str(tmp_path))
        text = "ok \ufffd\ufffd end\nplain\n"
        assert [line.line for line in answer.lines] == python_lines(pattern, text), pattern
    (line,) = backend.grep({"pattern": "ok"}, str(tmp_path)).lines
    assert line.text == "ok \ufffd\ufffd end"


def test_context_lines_and_limits_on_both_engines(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("one\nhit 1\nthree\nhit 2\nfive\nhit 3\n")
    for pattern in (r"^hit", r"^(?=h)hit"):  # RE2, then the worker
        answer = backend.grep({"pattern": pattern, "context": 1, "limit": 2}, str(tmp_path))
        assert [(x.line, x.text, x.match) for x in answer.lines] == [
            (1, "one", False),
            (2, "hit 1", True),
            (3, "three", False),
            (4, "hit 2", True),
            (5, "five", False),
        ], pattern
        assert answer.truncated and answer.matches == 2
        counted = backend.grep({"pattern": pattern, "outputMode": "count"}, str(tmp_path))
        assert counted.counts == [("t.txt", 3)]


def test_the_plugin_module_does_not_import_re2() -> None:
    code = "import sys, omp_tool_search.plugin; sys.exit('re2' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    assert subprocess.run([sys.executable, "-c", code], env=env, check=False).returncode == 0


def test_a_glob_with_many_stars_does_not_hang_find(tmp_path: Path) -> None:
    (tmp_path / ("a" * 120)).write_text("x\n")
    (tmp_path / "abab.b").write_text("x\n")
    code = f"""
import json, time
from omp_tool_search import backend
start = time.monotonic()
answer = backend.find({{"pattern": "*a*a*a*a*a*a*a*a*b"}}, {str(tmp_path)!r})
print(json.dumps({{"paths": answer.paths, "seconds": time.monotonic() - start}}))
"""
    out = isolated(code, timeout=20)
    assert out["paths"] == []
    assert out["seconds"] < 2
    code = code.replace("*a*a*a*a*a*a*a*a*b", "*a*b*.b")
    assert isolated(code, timeout=20)["paths"] == ["abab.b"]


def test_the_timeout_names_the_file_from_the_cwd(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text(CATASTROPHIC_TEXT)
    params = {"pattern": PYTHON_ONLY, "path": "sub"}
    answer = backend.search("grep", params, str(tmp_path), regex_timeout=0.2)
    assert answer.error.startswith(f"The regex {PYTHON_ONLY!r} timed out after 0.2 s on sub/a.txt")
