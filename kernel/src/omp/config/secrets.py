"""Credential values omp knows, and the one pass that hides them (omp's secret obfuscation).

Every value known to be a credential — provider keys in the environment (and any other
variable named like one: ``*_KEY``, ``*_TOKEN``, ``*_SECRET``, ``*_PASSWORD``), the
user's models.json and auth.json, ``--api-key``, the key a provider resolved with a
``!command``, and what plugins register (MCP server env and headers) — is replaced by
``[REDACTED:<where it came from>]`` in tool results, session files, exports and the
run modes' output. The ``secrets.enabled`` setting (on by default) turns that off.

Children omp starts for the model or the user (the bash tool, ``!cmd``, ``api.exec``)
get the environment without omp's own provider key variables, unless
``bash.passProviderKeys`` is true.

Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import threading
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omp.plugin.contrib import ProviderConfigSource

MIN_LENGTH = 8
"""Shorter values are never hidden: "1" or "true" would garble every text."""

ENV_SECRET_NAME = re.compile(r"(?:KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIALS?)$", re.I)
"""Environment variables whose values are treated as secrets, as omp does."""
CREDENTIAL_NAME = re.compile(r"auth|key|token|secret|cookie|passw(?:or)?d|credential", re.I)
"""Header names (and MCP env names) whose values are credentials."""
_SCHEME = re.compile(r"^(?:bearer|basic|token|bot)\s+(\S+)$", re.I)
_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9_.:/@+-]")


class Secrets:
    """The registry of known secret values (value -> label) and their redaction.

    Values may be added at any time (a provider resolves a ``!command`` key on its first
    request), from any thread; redaction reads a snapshot (a tool's worker thread too).
    """

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.withheld: frozenset[str] = frozenset()
        """Environment variables children do not get (omp's provider keys)."""
        self._labels: dict[str, str] = {}
        self._values: tuple[str, ...] = ()
        self._encoded: tuple[bytes, ...] = ()
        self._starts: dict[str, tuple[int, tuple[str, ...]]] = {}
        """By first character: the longest value's length and the values, sorted (what a
        stream's end may be the beginning of); one object, replaced whole."""
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        """True when redaction is on and there is something to hide."""
        return self.enabled and bool(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def add(self, value: Any, label: str) -> None:
        """Know ``value`` as a secret, shown as ``[REDACTED:label]``; the first label of a
        value stays. Non-strings and values under MIN_LENGTH are ignored."""
        if not isinstance(value, str):
            return
        label = _LABEL_UNSAFE.sub("_", label)[:80] or "secret"
        with self._lock:
            added = False
            for candidate in _variants(value.strip()):
                if len(candidate) >= MIN_LENGTH and candidate not in self._labels:
                    self._labels[candidate] = label
                    added = True
            if added:
                self._values = tuple(sorted(self._labels, key=len, reverse=True))
                self._encoded = tuple(v.encode("utf-8") for v in self._values)
                starts: dict[str, list[str]] = {}
                for known in self._values:
                    starts.setdefault(known[0], []).append(known)
                self._starts = {
                    first: (len(group[0]), tuple(sorted(group))) for first, group in starts.items()
                }

    def add_all(self, values: Iterable[tuple[str, Any]]) -> None:
        """``add`` each (label, value) pair."""
        for label, value in values:
            self.add(value, label)

    def redact(self, text: str) -> str:
        """``text`` with every known value replaced; the same object when none occurs.

        One C substring search per value (``value in text``), longest value first: with
        keys sharing no prefix that is many times faster than a regex alternation, whose
        engine tries every branch at every position (bench/secrets_redaction.py)."""
        values = self._values
        if not self.enabled or not values or not text:
            return text
        labels = self._labels
        for value in [v for v in values if v in text]:
            text = text.replace(value, f"[REDACTED:{labels[value]}]")
        return text

    def safe_cut(self, text: str) -> int:
        """How much of ``text``, the end of a stream so far, may be shown now: it stops
        where the longest tail that could be the beginning of a known value starts, or
        earlier, at the start of a whole value that tail would cut in two.

        Only positions holding a value's first character are tried, each with one
        ``find`` in C, so a delta costs about its length."""
        end = len(text)
        starts = self._starts
        if not self.enabled or not starts or not text:
            return end
        cut = end
        for first, (longest, group) in starts.items():
            position = text.find(first, max(0, end - longest + 1))
            while position != -1 and position < cut:
                if _begins_longer(group, text[position:]):
                    cut = position
                    break
                position = text.find(first, position + 1)
        moved = cut < end
        while moved:  # a whole value that starts before the cut is held whole
            moved = False
            for value in self._values:
                found = text.find(value, max(0, cut - len(value) + 1))
                if found != -1 and found < cut:
                    cut, moved = found, True
        return cut

    def redact_bytes(self, data: bytes) -> bytes:
        """``redact`` for UTF-8 bytes (a session line); the same object when none occurs."""
        encoded = self._encoded
        if not self.enabled or not encoded or not data:
            return data
        labels = self._labels
        for value in [v for v in encoded if v in data]:
            data = data.replace(value, f"[REDACTED:{labels[value.decode()]}]".encode())
        return data

    def redact_value(self, value: Any) -> Any:
        """A JSON-like value with every string in it redacted (dict keys included)."""
        if not self:
            return value
        return _walk(value, self.redact)

    def child_env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """``base`` (default: this process's environment) without the withheld variables."""
        env = os.environ if base is None else base
        withheld = self.withheld
        return {k: v for k, v in env.items() if k not in withheld}


def _begins_longer(ordered: tuple[str, ...], tail: str) -> bool:
    """Whether ``tail`` is the beginning of a longer value of ``ordered`` (sorted)."""
    index = bisect_left(ordered, tail)
    if index < len(ordered) and ordered[index] == tail:
        index += 1
    return index < len(ordered) and ordered[index].startswith(tail)


def _variants(value: str) -> list[str]:
    """The value, its token without an auth scheme (``Bearer x`` -> ``x``), and each as
    JSON escapes it (what a session line or an event line holds)."""
    found = [value]
    scheme = _SCHEME.match(value)
    if scheme:
        found.append(scheme.group(1))
    for text in list(found):
        for ascii_only in (False, True):
            escaped = json.dumps(text, ensure_ascii=ascii_only)[1:-1]
            if escaped not in found:
                found.append(escaped)
    return found


def _walk(value: Any, redact: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(k) if isinstance(k, str) else k: _walk(v, redact) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_walk(v, redact) for v in value]
    return value


# -- what omp knows -----------------------------------------------------------------------


def collect_secrets(
    secrets: Secrets,
    agent_dir: Path,
    env: Mapping[str, str] | None = None,
    *,
    cli_key: str | None = None,
    settings: Any = None,
    sources: Iterable[ProviderConfigSource] = (),
) -> Secrets:
    """Fill ``secrets`` with what omp knows without running anything: the environment,
    ``--api-key`` and what ``sources`` (``omp.runtime.bootstrap.provider_configs``: models.json,
    auth.json) know; a ``!command`` key is added when a provider runs it. ``settings``
    (omp.config.settings.Settings) sets ``secrets.enabled`` and ``bash.passProviderKeys``, and
    adds the values of the settings declared ``secret``."""
    env = os.environ if env is None else env
    sources = list(sources)
    if settings is not None:
        secrets.enabled = bool(settings.get("secrets.enabled", True))
    if cli_key:
        secrets.add(cli_key, "--api-key")
    key_names: frozenset[str] = frozenset()
    for source in sources:
        key_names |= _safely(partial(source.key_names, agent_dir, env), frozenset())
    pass_keys = settings is not None and bool(settings.get("bash.passProviderKeys", False))
    secrets.withheld = frozenset() if pass_keys else key_names
    for name in sorted(env):
        if name in key_names or ENV_SECRET_NAME.search(name):
            secrets.add(env[name], name)
    for source in sources:
        secrets.add_all(_safely(partial(source.secrets, agent_dir, env), []))
    secrets.add_all(_secret_settings(settings))
    return secrets


def _secret_settings(settings: Any) -> list[tuple[str, Any]]:
    """(key, value) of every setting declared ``secret`` (``add`` skips those unset)."""
    schema = getattr(settings, "schema", None)
    if schema is None:
        return []
    return [(key, settings.get(key)) for key, spec in schema.specs.items() if spec.secret]


def _safely(work: Callable[[], Any], fallback: Any) -> Any:
    """A broken models.json or auth.json (or a failing source) is reported where it is
    used, not here."""
    try:
        return work()
    except Exception:
        return fallback


def known_secrets(cwd: Path | None = None, sources: Iterable[ProviderConfigSource] = ()) -> Secrets:
    """What omp knows outside a session (``omp sessions export``): the environment and
    what ``sources`` know (the user's models.json and auth.json), under the user's
    ``secrets.enabled``."""
    from omp.config.settings import agent_dir, load_settings

    settings = _safely(lambda: load_settings(cwd or Path.cwd(), apply_project=False), None)
    return collect_secrets(Secrets(), agent_dir(), settings=settings, sources=sources)
