"""``omp plugin enable|disable NAME [--project]``: the settings list disabledPlugins."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from omp import UsageError

from omp_plugin_manager.settings_lists import (
    DISABLED,
    add_to_list,
    effective_disabled,
    remove_from_list,
    settings_file,
)

if TYPE_CHECKING:
    from omp import SubcommandContext

SELF = "plugin_manager"


def _known(ctx: SubcommandContext) -> list[str]:
    names = [r.name for r in ctx.plugins]
    return names + [n.removeprefix("ext:") for n in names if n.startswith("ext:")]


def toggle(ctx: SubcommandContext, name: str, enable: bool, project: bool) -> int:
    known = _known(ctx)
    where = settings_file(ctx, project)
    if name not in known and not (enable and name in effective_disabled(ctx)):
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean {close[0]}?" if close else "; `omp plugin list` shows them"
        raise UsageError(f"no plugin is called {name!r}{hint}")
    if not enable:
        if name == SELF:
            raise UsageError(
                "disabling plugin_manager would remove `omp plugin` itself (and the way to "
                f"enable it again); if you mean it, add it to {DISABLED} in {where} by hand"
            )
        changed = add_to_list(where, DISABLED, name)
        print(f"{name} {'disabled' if changed else 'was already disabled'} ({where})")
        return 0
    changed = remove_from_list(where, DISABLED, name)
    still = name in effective_disabled(ctx)
    if still:
        print(
            f"{name} is still disabled by another settings layer (the other settings file, "
            "or OMP_DISABLED_PLUGINS / OMP_SETTINGS)" + ("" if project else "; try --project")
        )
        return 1
    print(f"{name} {'enabled' if changed else 'was not disabled'} ({where})")
    return 0
