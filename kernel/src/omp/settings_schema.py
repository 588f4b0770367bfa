"""The settings schema: every key the kernel and the built-in plugins read, its type,
default and meaning. ``omp config`` validates against it; a test fails when code reads
a key that is not declared here.

Keys are dotted paths into the settings object (``retry.maxRetries``). A ``map`` entry
holds free-form names (``tools.approval.bash``), each value of the entry's ``items``
type. A key that only prefixes others (``retry``) is a group, set one member at a time.

Standard library only (``omp config`` and the startup path import it).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, replace
from typing import Any

from omp.errors import OmpError
from omp.thinking import THINKING_LEVELS
from omp.trust import SAFE_PROJECT_KEYS, TRUSTED_DIRECTORIES

QUEUE_MODES = ("all", "one-at-a-time")


@dataclass(frozen=True)
class SettingSpec:
    """One setting: ``type`` is string, boolean, integer, number, array (of ``items``)
    or map (names to ``items``)."""

    key: str
    type: str
    default: Any
    description: str
    choices: tuple[str, ...] = ()
    nullable: bool = False
    minimum: float | None = None
    items: str = "string"
    item_choices: tuple[str, ...] = ()

    @property
    def project_safe(self) -> bool:
        """Whether an untrusted project's value for this key applies."""
        return self.key.split(".")[0] in SAFE_PROJECT_KEYS

    @property
    def user_only(self) -> bool:
        """Never read from a project file."""
        return self.key == TRUSTED_DIRECTORIES

    def type_name(self) -> str:
        if self.choices:
            shown = "|".join(self.choices)
        elif self.type in ("array", "map"):
            shown = f"{self.type} of {self.items}"
        else:
            shown = self.type
        return shown + ("|null" if self.nullable else "")


def _s(key: str, type: str, default: Any, description: str, **more: Any) -> SettingSpec:
    return SettingSpec(key, type, default, description, **more)


_ENTRIES = [
    _s(
        "defaultModel",
        "string",
        None,
        "model used without --model (provider/id, id or a pattern)",
        nullable=True,
    ),
    _s(
        "enabledModels",
        "array",
        None,
        "models Ctrl+P cycles through (patterns or globs, as --models)",
        nullable=True,
        items="string",
    ),
    _s(
        "defaultThinkingLevel",
        "string",
        "off",
        "thinking level used without --thinking",
        choices=THINKING_LEVELS,
    ),
    _s(
        "theme",
        "string",
        None,
        "terminal UI colours (unset: from the terminal's background; NO_COLOR wins)",
        choices=("dark", "light"),
        nullable=True,
    ),
    _s(
        "steeringMode",
        "string",
        "one-at-a-time",
        "how queued steering messages are delivered",
        choices=QUEUE_MODES,
    ),
    _s(
        "followUpMode",
        "string",
        "one-at-a-time",
        "how queued follow-up messages are delivered",
        choices=QUEUE_MODES,
    ),
    _s(
        "interruptMode",
        "string",
        "immediate",
        "when steering interrupts a running tool batch",
        choices=("immediate", "wait"),
    ),
    _s("disabledPlugins", "array", [], "plugins (entry-point names) not to load"),
    _s("disabled_plugins", "array", [], "the same as disabledPlugins (snake_case spelling)"),
    _s("extensions", "array", [], "single-file extensions to load (paths)"),
    _s(
        "plugins",
        "array",
        [],
        "plugin specs a project shares (omp plugin add --project); omp plugin sync installs them",
    ),
    _s("sessionDir", "string", None, "where session files are written", nullable=True),
    _s(
        TRUSTED_DIRECTORIES,
        "array",
        [],
        "project directories (and their subfolders) you trust; user settings only",
    ),
    _s("retry.enabled", "boolean", True, "retry failed provider requests"),
    _s("retry.maxRetries", "integer", 10, "retries per request", minimum=0),
    _s("retry.baseDelayMs", "integer", 500, "first backoff delay; doubles per retry", minimum=0),
    _s("retry.maxDelayMs", "integer", 300_000, "longest Retry-After honoured", minimum=0),
    _s(
        "retry.maxTotalMs",
        "integer",
        120_000,
        "give up this long after the first failure",
        minimum=0,
    ),
    _s(
        "retry.modelFallback",
        "boolean",
        True,
        "move to the next model of a fallback chain when a request fails for good",
    ),
    _s(
        "retry.fallbackChains",
        "map",
        {},
        "model (provider/id, or 'default') to the models tried after it",
        items="array",
    ),
    _s("compaction.enabled", "boolean", True, "compact the context on its own when it fills up"),
    _s(
        "compaction.reserveTokens",
        "integer",
        None,
        "compact when the context passes the window less this (default max(16384, 15%))",
        nullable=True,
        minimum=0,
    ),
    _s(
        "compaction.keepRecentTokens",
        "integer",
        20_000,
        "recent tokens kept verbatim by a compaction",
        minimum=0,
    ),
    _s(
        "compaction.autoContinue",
        "boolean",
        True,
        "after compacting a context that overflowed, send the failed request again",
    ),
    _s(
        "compaction.pruneToolOutputs",
        "boolean",
        True,
        "when the context fills, replace old tool outputs with a placeholder (requests only)",
    ),
    _s(
        "compaction.pruneProtectTokens",
        "integer",
        40_000,
        "tokens of the newest tool outputs never pruned",
        minimum=0,
    ),
    _s(
        "compaction.pruneMinimumTokens",
        "integer",
        20_000,
        "prune only when it saves at least this many tokens",
        minimum=0,
    ),
    _s(
        "compaction.model",
        "string",
        None,
        "model (provider/id) that writes summaries; default: the session's",
        nullable=True,
    ),
    _s(
        "compaction.oversizedPrompt",
        "string",
        "refuse",
        "a prompt larger than the context window: refuse it, or attach it as a file",
        choices=("refuse", "attach"),
    ),
    _s(
        "branchSummary.reserveTokens",
        "integer",
        None,
        "a /tree --summarize summary reads the branch up to the window less this "
        "(default 16384, a quarter of a smaller window)",
        nullable=True,
        minimum=0,
    ),
    _s(
        "stream.firstEventTimeoutMs",
        "integer",
        90_000,
        "wait this long for a response's first event",
        minimum=1,
    ),
    _s("stream.idleTimeoutMs", "integer", 180_000, "wait this long between events", minimum=1),
    _s(
        "hookTimeoutMs",
        "integer",
        30_000,
        "timeout of one hook handler (0 or null: none)",
        nullable=True,
        minimum=0,
    ),
    _s(
        "hookTimeouts",
        "map",
        {},
        "hook name (tool_call) to its handlers' timeout in ms",
        items="integer",
    ),
    _s(
        "tools.approvalMode",
        "string",
        "write",
        "which tool calls ask first",
        choices=("always-ask", "write", "yolo"),
    ),
    _s(
        "tools.approval",
        "map",
        {},
        "tool name to allow, deny or prompt",
        item_choices=("allow", "deny", "prompt"),
    ),
    *(
        _s(
            f"thinkingBudgets.{level}",
            "integer",
            budget,
            f"token budget of thinking level {level}",
            minimum=0,
        )
        for level, budget in (
            ("minimal", 1024),
            ("low", 2048),
            ("medium", 8192),
            ("high", 16384),
            ("xhigh", 32768),
        )
    ),
    _s(
        "scripted.script",
        "string",
        None,
        "script file the scripted provider replays",
        nullable=True,
    ),
    _s("search.regexTimeoutMs", "number", 5000, "time limit of one grep regex", minimum=1),
    _s(
        "search.backend",
        "string",
        "auto",
        "grep/find backend: auto (natives when installed) or python",
        choices=("auto", "python"),
    ),
    _s(
        "includeWorkspaceTree",
        "boolean",
        False,
        "the workspace tree (depth 3, ignore rules applied) in the system prompt, "
        "taken once per session",
    ),
    _s(
        "sequentialThinking.forcedThoughts",
        "integer",
        0,
        "thoughts required before anything else (0: off)",
        minimum=0,
    ),
    _s("sequentialThinking.maxNudges", "integer", 3, "reminders before the run stops", minimum=0),
    _s("sequentialThinking.maxHistory", "integer", 64, "thoughts kept per session", minimum=1),
    _s("rules.enabled", "boolean", True, "load rules (.omp/rules, .cursor/rules, ...)"),
    _s("skills.enabled", "boolean", True, "load skills (SKILL.md folders)"),
    _s("promptTemplates.enabled", "boolean", True, "load prompt templates as slash commands"),
    _s("contextFiles.enabled", "boolean", True, "read AGENTS.md / CLAUDE.md into the prompt"),
    _s(
        "bash.artifactMaxBytes",
        "integer",
        50 * 1024 * 1024,
        "bash output kept in the artifact",
        minimum=4096,
    ),
    _s(
        "bash.outputHardLimitBytes",
        "integer",
        200 * 1024 * 1024,
        "bash output that ends the command",
        minimum=4096,
    ),
    _s(
        "bash.passProviderKeys",
        "boolean",
        False,
        "give the bash tool, !commands and api.exec omp's provider API keys "
        "(off: those variables are removed from their environment)",
    ),
    _s(
        "secrets.enabled",
        "boolean",
        True,
        "hide every credential omp knows (provider keys, models.json, auth.json, "
        "--api-key, MCP env and headers) as [REDACTED:NAME] in tool results, events, "
        "session files and exports",
    ),
    _s(
        "batch.requestsPerMinute",
        "map",
        {},
        "omp batch: provider name (or *) to requests per minute, shared by every worker",
        items="integer",
    ),
    _s(
        "batch.tokensPerMinute",
        "map",
        {},
        "omp batch: provider name (or *) to tokens per minute, shared by every worker",
        items="integer",
    ),
    _s(
        "interactive.dialogGuardMs",
        "integer",
        400,
        "keys typed this soon after a dialog pops up go to the editor, not the dialog",
        minimum=0,
    ),
    _s(
        "mcp.toolMode",
        "string",
        "auto",
        "MCP tools offered at once (eager), behind one search tool (deferred), or "
        "deferred above mcp.deferThreshold (auto)",
        choices=("auto", "eager", "deferred"),
    ),
    _s("mcp.deferThreshold", "integer", 40, "MCP tools above which auto defers", minimum=0),
    _s(
        "mcp.startupGateMs",
        "integer",
        250,
        "how long the first prompt waits for MCP servers; slower ones join when ready",
        minimum=0,
    ),
    _s("mcp.timeoutMs", "integer", 60000, "MCP request timeout (a server's wins)", minimum=1),
    _s(
        "mcp.resultMaxBytes",
        "integer",
        50 * 1024,
        "MCP tool result shown to the model; the whole result is kept as an artifact",
        minimum=1024,
    ),
    _s(
        "mcp.importOtherAgents",
        "boolean",
        True,
        "also start the MCP servers of Claude Code, Cursor, Windsurf, Codex, Gemini CLI, opencode",
    ),
]

SCHEMA: dict[str, SettingSpec] = {spec.key: spec for spec in _ENTRIES}
"""Every known setting by its dotted key."""


def find(key: str) -> SettingSpec | None:
    """The spec of ``key``, a member of a map (``tools.approval.bash``) included."""
    if key in SCHEMA:
        return SCHEMA[key]
    head, _, name = key.rpartition(".")
    parent = SCHEMA.get(head)
    if parent is not None and parent.type == "map" and name:
        return SettingSpec(
            key, parent.items, None, f"{parent.key} for {name}", choices=parent.item_choices
        )
    return None


def group_members(key: str) -> list[str]:
    """The keys of the group ``key`` (``retry`` -> ``retry.enabled``...), else []."""
    return [k for k in SCHEMA if k.startswith(key + ".")]


def resolve(key: str) -> SettingSpec:
    """The spec of ``key``; an unknown key or a group is an error naming what to use."""
    spec = find(key)
    if spec is not None:
        return spec
    members = group_members(key)
    if members:
        raise OmpError(f"{key} is a group of settings: use one of {', '.join(members)}")
    known = [*SCHEMA, *{k.split(".")[0] for k in SCHEMA}]
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]}?" if close else "; `omp config list` shows every setting"
    raise OmpError(f"unknown setting {key!r}{hint}")


def parse_value(key: str, text: str) -> Any:
    """The value of ``key`` written on a command line as ``text``, checked."""
    spec = resolve(key)
    value = _parse(spec, text.strip())
    check_value(key, value)
    return value


def check_value(key: str, value: Any) -> None:
    """Raise a one-line ``OmpError`` unless ``value`` is valid for ``key``."""
    spec = resolve(key)
    problem = value_problem(spec, value, typed=False)
    if problem:
        raise OmpError(f"{key} must be {problem}, got {json.dumps(value, default=str)}")


def value_problem(spec: SettingSpec, value: Any, *, typed: bool = True) -> str | None:
    """What a valid value of ``spec`` is (``"a whole number"``), or None when ``value``
    is one. ``typed``: the value comes from JSON (a file, ``OMP_SETTINGS``), where a
    list is never written comma-separated."""
    if value is None and (spec.nullable or spec.default is None):
        return None
    return _problem(spec, value, typed)


def _parse(spec: SettingSpec, text: str) -> Any:
    if text == "null" and (spec.nullable or spec.default is None):
        return None
    kind = spec.type
    if kind == "boolean":
        lowered = text.lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        return text
    if kind in ("integer", "number"):
        try:
            return int(text)
        except ValueError:
            pass
        try:
            return float(text) if kind == "number" else text
        except ValueError:
            return text
    if kind == "array":
        if text.startswith("["):
            return _json(spec, text)
        return [part.strip() for part in text.split(",") if part.strip()]
    if kind == "map":
        return _json(spec, text)
    return text


def _json(spec: SettingSpec, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise OmpError(f"{spec.key} must be {_expected(spec)}: {e.msg} in {text!r}") from e


def _problem(spec: SettingSpec, value: Any, typed: bool = False) -> str | None:
    """What ``value`` should have been, or None when it is fine."""
    kind = spec.type
    if kind == "boolean":
        return None if isinstance(value, bool) else "true or false"
    if kind in ("integer", "number"):
        whole = isinstance(value, int) and not isinstance(value, bool)
        ok = whole or (kind == "number" and isinstance(value, float))
        if not ok:
            return _expected(spec, typed)
        if spec.minimum is not None and value < spec.minimum:
            return f"at least {spec.minimum:g}"
        return None
    if kind == "string":
        if not isinstance(value, str):
            return _expected(spec, typed)
        if spec.choices and value not in spec.choices:
            return _expected(spec, typed)
        return None
    if kind == "array":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return _expected(spec, typed)
        return None
    if not isinstance(value, dict):
        return _expected(spec, typed)
    item = replace(spec, type=spec.items, choices=spec.item_choices, minimum=None)
    for inner in value.values():
        if inner is None and spec.items == "integer":
            continue
        if _problem(item, inner, typed):
            return _expected(spec, typed)
    return None


def _expected(spec: SettingSpec, typed: bool = False) -> str:
    articles = _TYPED_ARTICLE if typed else _ARTICLE
    if spec.choices:
        return "one of " + ", ".join(json.dumps(c) for c in spec.choices)
    if spec.type == "map":
        inner = (
            "one of " + ", ".join(json.dumps(c) for c in spec.item_choices)
            if spec.item_choices
            else articles[spec.items]
        )
        return f"a JSON object of names to {inner}"
    return articles[spec.type]


_ARTICLE = {
    "string": "a string",
    "boolean": "true or false",
    "integer": "a whole number",
    "number": "a number",
    "array": "a list of strings (JSON array or comma-separated)",
}
_TYPED_ARTICLE = {**_ARTICLE, "array": "a list of strings"}
