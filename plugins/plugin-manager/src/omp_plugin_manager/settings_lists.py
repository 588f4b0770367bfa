"""The two settings lists the plugin commands keep: ``disabledPlugins`` and the
project's ``plugins`` (SPECs a team shares; ``omp plugin sync`` installs them)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from omp import (
    OmpError,
    load_settings,
    project_settings_path,
    read_settings_file,
    save_setting,
    user_settings_path,
)

if TYPE_CHECKING:
    from omp import SubcommandContext

DISABLED = "disabledPlugins"
PROJECT_PLUGINS = "plugins"


def settings_file(ctx: SubcommandContext, project: bool) -> Path:
    """The settings file a command writes: the user's or the project's."""
    return project_settings_path(ctx.cwd) if project else user_settings_path(ctx.agent_dir)


def read_list(path: Path, key: str) -> list[str]:
    value = (read_settings_file(path) or {}).get(key)
    return [str(v) for v in value] if isinstance(value, list) else []


def add_to_list(path: Path, key: str, item: str) -> bool:
    """Append ``item`` unless present; whether the file changed."""
    current = read_list(path, key)
    if item in current:
        return False
    save_setting(path, key, [*current, item])
    return True


def remove_from_list(path: Path, key: str, item: str) -> bool:
    current = read_list(path, key)
    if item not in current:
        return False
    save_setting(path, key, [v for v in current if v != item])
    return True


def effective_disabled(ctx: SubcommandContext) -> set[str]:
    """disabledPlugins as a normal run in this directory would apply it (the project's
    list only when the directory is trusted)."""
    settings = load_settings(ctx.cwd)
    names = [*(settings.get("disabledPlugins") or []), *(settings.get("disabled_plugins") or [])]
    return {str(n) for n in names}


def project_settings(ctx: SubcommandContext) -> dict[str, Any]:
    """The project's settings file as written (trusted or not), for reports; {} when
    it is missing or unreadable (a normal run reports that)."""
    try:
        return read_settings_file(project_settings_path(ctx.cwd)) or {}
    except OmpError:
        return {}
