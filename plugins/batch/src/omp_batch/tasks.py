"""The tasks file: one JSON object per line, each an independent session to run.

Keys: ``id`` (required; a string or integer usable as a folder name, none that the out
folder itself uses: ``omp_batch.layout``), ``prompt`` or
``prompts`` (required), ``cwd`` or ``repo`` (+ ``ref``, default HEAD: a fresh git
worktree), and optionally ``model``, ``thinking``, ``tools``, ``plugins`` (extension
files or folders to load), ``settings`` (merged over the user's), ``flags`` (plugin
flags, ``{"script": "s.jsonl"}``), ``budget`` (``time`` seconds, ``turns``, ``cost``
dollars, ``tokens``) and ``resources`` (engine resources, ``{"num_cpus": 1}``).
Relative paths are taken from the tasks file's folder. Blank lines and ``#`` lines
are skipped.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from omp import UsageError

from omp_batch.layout import RESERVED, is_attempt_name

KEYS = {
    "id",
    "prompt",
    "prompts",
    "cwd",
    "repo",
    "ref",
    "model",
    "thinking",
    "tools",
    "plugins",
    "settings",
    "flags",
    "budget",
    "resources",
}
BUDGET_KEYS = {"time", "turns", "cost", "tokens"}
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


@dataclass
class Budget:
    time: float | None = None
    turns: int | None = None
    cost: float | None = None
    tokens: int | None = None


@dataclass
class Task:
    id: str
    prompts: list[str]
    cwd: str | None = None
    repo: str | None = None
    ref: str = "HEAD"
    model: str | None = None
    thinking: str | None = None
    tools: list[str] | None = None
    plugins: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    flags: dict[str, Any] = field(default_factory=dict)
    budget: Budget = field(default_factory=Budget)
    resources: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Task:
        return cls(**{**data, "budget": Budget(**data.get("budget", {}))})


class _Bad(Exception):
    pass


def load_tasks(path: Path) -> list[Task]:
    """Every task of the file; UsageError naming the file and line for the first
    problem (unreadable file, bad JSON, a missing id or prompt, a duplicate id)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"tasks file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read tasks file {path}: {exc}") from None
    base = path.resolve().parent
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{where}: not JSON (column {exc.colno}: {exc.msg})") from None
        try:
            task = _task(data, base)
        except _Bad as exc:
            raise UsageError(f"{where}: {exc}") from None
        if task.id in seen:
            raise UsageError(f"{where}: duplicate id {task.id!r} (first on line {seen[task.id]})")
        seen[task.id] = number
        tasks.append(task)
    if not tasks:
        raise UsageError(f"tasks file {path} has no tasks")
    return tasks


def _task(data: Any, base: Path) -> Task:
    if not isinstance(data, dict):
        raise _Bad("a task must be a JSON object")
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise _Bad(f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(KEYS))}")
    task_id = data.get("id")
    if isinstance(task_id, int) and not isinstance(task_id, bool):
        task_id = str(task_id)
    if not isinstance(task_id, str) or not task_id:
        raise _Bad("missing 'id' (a string or integer)")
    _check_id(task_id)
    return Task(
        id=task_id,
        prompts=_prompts(data),
        cwd=_path(data, "cwd", base),
        repo=_repo(data, base),
        ref=_string(data, "ref") or "HEAD",
        model=_string(data, "model"),
        thinking=_string(data, "thinking"),
        tools=_tools(data.get("tools")),
        plugins=[str(base / Path(p).expanduser()) for p in _strings(data, "plugins")],
        settings=_object(data, "settings"),
        flags=_object(data, "flags"),
        budget=_budget(data.get("budget")),
        resources=_resources(data.get("resources")),
    )


def _check_id(task_id: str) -> None:
    """An id names the task's folder in the out folder: never a name the batch itself
    uses there (compared case-blind, for case-insensitive file systems)."""
    if task_id.casefold() in RESERVED or is_attempt_name(task_id):
        raise _Bad(
            f"id {task_id!r} is reserved (the out folder uses {', '.join(sorted(RESERVED))} "
            "and attempt-N folders); choose another id"
        )
    if not _SAFE_ID.fullmatch(task_id):
        raise _Bad(
            f"id {task_id!r} is not usable as a folder name: 1 to 128 letters, digits, "
            "'.', '_' or '-', starting with a letter or digit"
        )


def _prompts(data: dict[str, Any]) -> list[str]:
    if "prompt" in data and "prompts" in data:
        raise _Bad("give 'prompt' or 'prompts', not both")
    if "prompt" in data:
        prompt = data["prompt"]
        if not isinstance(prompt, str) or not prompt.strip():
            raise _Bad("'prompt' must be a non-empty string")
        return [prompt]
    prompts = data.get("prompts")
    if prompts is None:
        raise _Bad("missing 'prompt' (or 'prompts')")
    if (
        not isinstance(prompts, list)
        or not prompts
        or not all(isinstance(p, str) and p.strip() for p in prompts)
    ):
        raise _Bad("'prompts' must be a non-empty list of non-empty strings")
    return list(prompts)


def _string(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise _Bad(f"{key!r} must be a string")
    return value


def _strings(data: dict[str, Any], key: str) -> list[str]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Bad(f"{key!r} must be a list of strings")
    return value


def _path(data: dict[str, Any], key: str, base: Path) -> str | None:
    value = _string(data, key)
    return str(base / Path(value).expanduser()) if value else None


def _repo(data: dict[str, Any], base: Path) -> str | None:
    repo = _string(data, "repo")
    if repo and data.get("cwd"):
        raise _Bad("give 'cwd' or 'repo', not both")
    if "ref" in data and not repo:
        raise _Bad("'ref' needs 'repo'")
    if repo and "://" not in repo and not repo.startswith("git@"):
        return str(base / Path(repo).expanduser())
    return repo


def _object(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise _Bad(f"{key!r} must be an object")
    return value


def _tools(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [t.strip() for t in value.split(",") if t.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise _Bad("'tools' must be a list of tool names (or a comma-separated string)")


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _budget(value: Any) -> Budget:
    if value is None:
        return Budget()
    if not isinstance(value, dict):
        raise _Bad("'budget' must be an object (time, turns, cost, tokens)")
    unknown = sorted(set(value) - BUDGET_KEYS)
    if unknown:
        allowed = ", ".join(sorted(BUDGET_KEYS))
        raise _Bad(f"unknown budget key(s) {', '.join(unknown)}; allowed: {allowed}")
    for key, number in value.items():
        if not _number(number):
            raise _Bad(f"budget {key!r} must be a number > 0")
        if key in ("turns", "tokens") and not isinstance(number, int):
            raise _Bad(f"budget {key!r} must be a whole number")
    return Budget(**value)


def _resources(value: Any) -> dict[str, float]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in value.values()
    ):
        raise _Bad("'resources' must map resource names to numbers >= 0")
    return value
