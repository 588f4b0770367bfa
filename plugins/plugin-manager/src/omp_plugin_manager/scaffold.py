"""``omp plugin new NAME [--dir DIR]``: render plugin-template/ into a ready project.

The template is itself a working plugin named ``omp-plugin-template``; rendering copies
it and replaces that name in every spelling (distribution, package, plugin, flag and
command prefix, title) in file contents and paths.
"""

from __future__ import annotations

import keyword
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from omp import OmpError, UsageError

if TYPE_CHECKING:
    from omp import SubcommandContext

SKIPPED = {"examples", "__pycache__", ".pytest_cache", "build", "dist", ".venv"}
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*$")


def template_dir() -> Path:
    """The template shipped in this package (a wheel), else the checkout's folder (an
    editable install)."""
    here = Path(__file__).resolve().parent
    candidates = [here / "template", *(p / "plugin-template" for p in here.parents)]
    for candidate in candidates:
        if (candidate / "pyproject.toml").is_file():
            return candidate
    raise OmpError("the plugin template is missing from this installation of omp-plugin-manager")


def names_for(name: str) -> dict[str, str]:
    """Template spelling -> this plugin's spelling, longest first."""
    if not _NAME.match(name) or name.lower() in {"omp", "omp-kernel", "test", "tests"}:
        raise UsageError(
            f"not a usable plugin name: {name!r}; use letters, digits and single - or _ "
            "between them, starting with a letter (for example omp-guard)"
        )
    dist = re.sub(r"[-_]+", "-", name).lower()
    package = dist.replace("-", "_")
    plugin = package.removeprefix("omp_") or package
    if keyword.iskeyword(package) or keyword.iskeyword(plugin):
        raise UsageError(f"{name!r} is a Python keyword; choose another name")
    return {
        "omp-plugin-template": dist,
        "omp_plugin_template": package,
        "plugin_template": plugin,
        "plugin-template": plugin.replace("_", "-"),
        "Plugin Template": plugin.replace("_", " ").title(),
    }


def _render(text: str, names: dict[str, str]) -> str:
    pattern = re.compile("|".join(re.escape(k) for k in names))
    return pattern.sub(lambda m: names[m.group(0)], text)


def render(target: Path, names: dict[str, str]) -> list[Path]:
    source = template_dir()
    written: list[Path] = []
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if SKIPPED & set(relative.parts) or path.suffix in (".pyc", ".pyo"):
            continue
        out = target / _render(str(relative), names)
        if path.is_dir():
            out.mkdir(parents=True, exist_ok=True)
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        try:
            out.write_text(_render(path.read_text(encoding="utf-8"), names), encoding="utf-8")
        except UnicodeDecodeError:
            shutil.copyfile(path, out)
        written.append(out)
    return written


def new(ctx: SubcommandContext, name: str, directory: str | None) -> int:
    names = names_for(name)
    parent = Path(directory).expanduser() if directory else Path(".")
    parent = parent if parent.is_absolute() else ctx.cwd / parent
    target = parent / name
    if target.exists() and any(target.iterdir()):
        raise UsageError(f"{target} already exists and is not empty; choose another name or --dir")
    target.mkdir(parents=True, exist_ok=True)
    render(target, names)
    shown = _shown(target, ctx.cwd)
    plugin = names["plugin_template"]
    print(f"created {shown}: plugin {plugin} (distribution {names['omp-plugin-template']})")
    print(
        "  tool, tool_call gate, slash command and flag in "
        + _shown(target / "src" / names["omp_plugin_template"] / "plugin.py", ctx.cwd)
    )
    print("next:")
    print(f"  omp plugin add {shown}          # install it (editable) into omp's environment")
    print(f"  cd {shown} && python -m pytest  # its tests, with omp's testing kit")
    return 0


def _shown(path: Path, cwd: Path) -> str:
    try:
        relative = path.resolve().relative_to(cwd.resolve())
    except ValueError:
        return str(path)
    return f"./{relative}" if str(relative) != "." else "."
