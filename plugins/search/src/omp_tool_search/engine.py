"""How one grep matches a file's bytes: RE2 where it can say the pattern (linear time,
so it runs in this process), else Python's ``re`` in a worker process that is killed
when one file takes longer than the time limit or when the search is told to stop.

A pattern that needs Python's engine (a backreference, lookaround...) first goes
through RE2 as a superset (see ``translate``): a file that does not match it is not
sent to the worker. ``re2`` (google-re2) is imported here, never on the startup path;
without it every pattern goes to the worker.
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import re
import select
import subprocess
import sys
import threading
import time
from typing import Any

from omp import track_process_group, untrack_process_group

from omp_tool_search.scan import scan
from omp_tool_search.translate import Translation, translate

WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scan.py")
POLL_SECONDS = 0.05
"""How often a wait for the worker looks at the stop event."""


class RegexTimeout(Exception):
    """Python's engine spent longer than the time limit on one file."""


class WorkerFailed(Exception):
    """The worker process could not start or ended without answering."""


class Stopped(Exception):
    """The search was told to stop while a file was being matched."""


def compile_re2(translation: Translation | None) -> Any | None:
    """The RE2 regex for a translation; None without one or when RE2 refuses it (too
    large a program, say)."""
    if translation is None:
        return None
    try:
        import re2
    except ImportError:
        return None
    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(translation.pattern.encode("utf-8"), options)
    except re2.error:
        return None


def utf8(data: bytes) -> bytes:
    """``data`` as valid UTF-8, invalid bytes read as U+FFFD (as Python decodes them)."""
    if data.isascii():
        return data
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace").encode("utf-8")
    return data


class Matcher:
    """The matching of one grep, file after file; ``close`` ends its worker."""

    def __init__(
        self, regex: re.Pattern[str], timeout: float, stop: threading.Event | None = None
    ) -> None:
        self.regex = regex
        exact = translate(regex.pattern, regex.flags)
        self.exact = compile_re2(exact)
        self.ascii_only = self.exact is not None and exact is not None and exact.ascii_only
        self.superset = None
        if self.exact is None or self.ascii_only:
            self.superset = compile_re2(translate(regex.pattern, regex.flags, exact=False))
        self.worker = RegexWorker(regex, timeout, stop)

    def scan(
        self, data: bytes, mode: str, limit: int
    ) -> tuple[str | bytes, list[tuple[int, int, int]], int, bool]:
        """``scan.scan`` over a file's bytes, as ``(text, hits, count, truncated)``; the
        hits are offsets into ``text`` (bytes from RE2, str from the worker). Raises
        RegexTimeout, WorkerFailed or Stopped."""
        buf = utf8(data)
        if self.exact is not None and not (self.ascii_only and not buf.isascii()):
            return (buf, *scan(self._search_exact, buf, b"\n", mode, limit))
        if self.superset is not None and self.superset.search(buf) is None:
            return buf, [], 0, False
        text = buf.decode("utf-8")
        return (text, *self.worker.scan(text, mode, limit))

    def _search_exact(self, buf: bytes, pos: int, endpos: int) -> tuple[int, int] | None:
        r"""Python's ``search(text, pos, endpos)``: the text ends at ``endpos`` (for
        ``\Z``), its start stays the real one (for ``\A``)."""
        if endpos == 0:  # Python's \B never matches in an empty string; nothing is slow here
            match = self.regex.search("")
        elif endpos < len(buf):
            match = self.exact.search(memoryview(buf)[:endpos], pos, endpos)  # type: ignore[union-attr]
        else:
            match = self.exact.search(buf, pos, endpos)  # type: ignore[union-attr]
        return None if match is None else match.span()

    def close(self) -> None:
        self.worker.close()


class RegexWorker:
    """Python's ``re`` in a child process, started on first use. POSIX only (it waits
    on the pipe with ``select``)."""

    def __init__(
        self, regex: re.Pattern[str], timeout: float, stop: threading.Event | None
    ) -> None:
        self.regex = regex
        self.timeout = timeout
        self.stop = stop
        self.proc: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        if not sys.executable:
            raise WorkerFailed("no Python executable to run the worker")
        try:
            proc = subprocess.Popen(
                [sys.executable, "-I", "-S", WORKER_SCRIPT],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # its own group, killed with omp (omp.base.processes)
            )
        except OSError as exc:
            raise WorkerFailed(str(exc)) from exc
        track_process_group(proc.pid)
        self.proc = proc
        alarm = min(math.ceil(self.timeout), 86_400) + 5
        self._send((self.regex.pattern, self.regex.flags, alarm))
        return proc

    def _send(self, message: Any) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            pickle.dump(message, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.proc.stdin.flush()
        except OSError as exc:
            self.close()
            raise WorkerFailed(str(exc)) from exc

    def scan(
        self, text: str, mode: str, limit: int
    ) -> tuple[list[tuple[int, int, int]], int, bool]:
        proc = self.proc or self._start()
        self._send((text, mode, limit))
        assert proc.stdout is not None
        deadline = time.monotonic() + self.timeout
        while True:
            if self.stop is not None and self.stop.is_set():
                self.close()
                raise Stopped
            left = deadline - time.monotonic()
            if left <= 0:
                self.close()
                raise RegexTimeout
            if select.select([proc.stdout], [], [], min(POLL_SECONDS, left))[0]:
                break
        try:
            return pickle.load(proc.stdout)
        except (EOFError, OSError, pickle.UnpicklingError) as exc:
            self.close()
            raise WorkerFailed("the worker ended without answering") from exc

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        proc.kill()
        proc.wait()
        untrack_process_group(proc.pid)
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
