"""Settings declarations: ``SettingSpec``, the kernel's own keys (``SCHEMA``), and
``Schema``, the union of the kernel's keys and those the loaded plugins declare through
``omp_register_settings``. ``omp config`` and settings loading validate against the
union; a test fails when kernel code reads a key that is not declared here, or plugin
code a key its plugin does not declare.

Keys are dotted paths into the settings object (``retry.maxRetries``). A ``map`` entry
holds free-form names (``tools.approval.bash``), each value of the entry's ``items``
type. A key that only prefixes others (``retry``) is a group, set one member at a time.

Standard library only (``omp config`` and the startup path import it).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

from omp.base.errors import OmpError
from omp.base.thinking import THINKING_LEVELS
from omp.config.trust import SAFE_PROJECT_KEYS, TRUSTED_DIRECTORIES

QUEUE_MODES = ("all", "one-at-a-time")


SettingType = Literal["string", "boolean", "integer", "number", "array", "map"]
"""The kind of value a setting holds."""


@dataclass(frozen=True)
class SettingSpec:
    """One setting's declaration: the kernel's own, and what a plugin returns from
    ``omp_register_settings``.

    ``key`` is dotted (``myplugin.greeting``); ``type`` is string, boolean, integer,
    number, array (of ``items``) or map (names to ``items``); ``default`` (a JSON value)
    is what ``settings.get(key)`` gives when no layer sets it (None: unset). ``choices``
    limits a string; ``nullable`` lets ``null`` through; ``minimum`` bounds a number;
    ``item_choices`` limits a map's values. ``secret`` keeps the value out of everything
    omp prints about settings (``omp config list``, the lines about invalid values).
    """

    key: str
    type: SettingType
    default: Any
    description: str
    choices: tuple[str, ...] = ()
    nullable: bool = False
    minimum: float | None = None
    items: SettingType = "string"
    item_choices: tuple[str, ...] = ()
    secret: bool = False

    @property
    def project_safe(self) -> bool:
        """Whether an untrusted project's value for this key applies."""
        return self.key.split(".")[0] in SAFE_PROJECT_KEYS

    @property
    def user_only(self) -> bool:
        """Never read from a project file."""
        return self.key == TRUSTED_DIRECTORIES

    def type_name(self) -> str:
        """``integer``, ``dark|light``, ``array of string``; ``|null`` added when nullable."""
        if self.choices:
            shown = "|".join(self.choices)
        elif self.type in ("array", "map"):
            shown = f"{self.type} of {self.items}"
        else:
            shown = self.type
        return shown + ("|null" if self.nullable else "")


def _s(key: str, type: SettingType, default: Any, description: str, **more: Any) -> SettingSpec:
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
        "modelRoles",
        "map",
        {},
        "model pattern per role (smol, slow, plan, ...): what @role, pi/role or a bare "
        "role name as a model means; --smol/--slow and PI_SMOL_MODEL/PI_SLOW_MODEL/"
        "PI_PLAN_MODEL set one for a run",
        items="string",
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
    _s("contextFiles.enabled", "boolean", True, "read AGENTS.md / CLAUDE.md into the prompt"),
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
]


class Schema:
    """Settings declarations by dotted key, and the plugin declaring each plugin key:
    ``KERNEL`` holds the kernel's own; a runtime's ``settings.schema`` adds the loaded
    plugins' (``with_plugins``). ``omp config`` and settings loading check against it."""

    def __init__(self, specs: Iterable[SettingSpec], owners: dict[str, str] | None = None) -> None:
        self.specs: dict[str, SettingSpec] = {spec.key: spec for spec in specs}
        self.owners: dict[str, str] = dict(owners or {})

    def find(self, key: str) -> SettingSpec | None:
        """The spec of ``key``, a member of a map (``tools.approval.bash``) included."""
        if key in self.specs:
            return self.specs[key]
        head, _, name = key.rpartition(".")
        parent = self.specs.get(head)
        if parent is not None and parent.type == "map" and name:
            return SettingSpec(
                key,
                parent.items,
                None,
                f"{parent.key} for {name}",
                choices=parent.item_choices,
                secret=parent.secret,
            )
        return None

    def owner(self, key: str) -> str | None:
        """The plugin declaring ``key`` (or the map holding it); None for a kernel key."""
        return self.owners.get(key) or self.owners.get(key.rpartition(".")[0])

    def group_members(self, key: str) -> list[str]:
        """The keys of the group ``key`` (``retry`` -> ``retry.enabled``...), else []."""
        return [k for k in self.specs if k.startswith(key + ".")]

    def resolve(self, key: str) -> SettingSpec:
        """The spec of ``key``; an unknown key or a group is an error naming what to use."""
        spec = self.find(key)
        if spec is not None:
            return spec
        members = self.group_members(key)
        if members:
            raise OmpError(f"{key} is a group of settings: use one of {', '.join(members)}")
        import difflib  # only for the hint

        known = [*self.specs, *{k.split(".")[0] for k in self.specs}]
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]}?" if close else "; `omp config list` shows every setting"
        raise OmpError(f"unknown setting {key!r}{hint}")

    def parse_value(self, key: str, text: str) -> Any:
        """The value of ``key`` written on a command line as ``text``, checked."""
        value = _parse(self.resolve(key), text.strip())
        self.check_value(key, value)
        return value

    def check_value(self, key: str, value: Any) -> None:
        """Raise a one-line ``OmpError`` unless ``value`` is valid for ``key``."""
        problem = value_problem(self.resolve(key), value, typed=False)
        if problem:
            raise OmpError(f"{key} must be {problem}, got {json.dumps(value, default=str)}")

    def with_plugins(self, declared: Iterable[tuple[str, SettingSpec]]) -> tuple[Schema, list[str]]:
        """This schema plus each plugin's declarations ((plugin, spec) pairs), and one
        line per declaration refused (a key taken, a bad type or default)."""
        union = Schema(self.specs.values(), self.owners)
        problems: list[str] = []
        for plugin, spec in declared:
            problem = union._refusal(spec)
            if problem:
                problems.append(f"plugin {plugin} declares setting {spec.key!r}: {problem}")
                continue
            union.specs[spec.key] = spec
            union.owners[spec.key] = plugin
        return union, problems

    def _refusal(self, spec: SettingSpec) -> str | None:
        parts = spec.key.split(".")
        if not all(parts):
            return "its key must be names joined by dots"
        prefixes = [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
        taken = [k for k in prefixes if k in self.specs] + self.group_members(spec.key)
        if taken:
            owner = self.owners.get(taken[0])
            whose = f"plugin {owner}'s" if owner else "the kernel's"
            return f"it clashes with {whose} setting {taken[0]}"
        kinds = get_args(SettingType)
        if spec.type not in kinds or spec.items not in kinds:
            return f"its type must be one of {', '.join(kinds)}"
        if not spec.description:
            return "it has no description"
        if spec.default is not None:
            problem = value_problem(spec, spec.default)
            if problem:
                return f"its default must be {problem}"
        return None

    def plugin_defaults(self) -> dict[str, Any]:
        """The plugin keys' defaults as a settings object (keys without one left out)."""
        nested: dict[str, Any] = {}
        for key in self.owners:
            default = self.specs[key].default
            if default is None:
                continue
            *parents, name = key.split(".")
            node = nested
            for part in parents:
                node = node.setdefault(part, {})
            node[name] = default
        return nested


KERNEL = Schema(_ENTRIES)
"""The kernel's own settings."""

SCHEMA: dict[str, SettingSpec] = KERNEL.specs
"""Every kernel setting by its dotted key."""

find = KERNEL.find
group_members = KERNEL.group_members
resolve = KERNEL.resolve
parse_value = KERNEL.parse_value
check_value = KERNEL.check_value


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
