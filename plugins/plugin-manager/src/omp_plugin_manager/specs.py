"""What ``omp plugin add`` accepts, checked before anything runs.

A SPEC is a package name with optional extras and version (``omp-guard[x]>=1,<2``), a
local project directory (installed editable), a wheel file, or a VCS URL
(``git+https://...``, optionally ``name @ git+...``). Nothing reaches pip that could be
read as an option or that carries shell metacharacters, even though no shell is used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from omp import UsageError

SHELL_METACHARACTERS = set(";&|$`\\\"'(){}\n\r\t ") | {"\x00"}
_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
_VERSION_CLAUSE = r"(?:===|~=|==|!=|<=|>=|<|>)[A-Za-z0-9.*+!_-]+"
_NAME_SPEC = re.compile(
    rf"^(?P<name>{_NAME})(?:\[{_NAME}(?:,{_NAME})*\])?(?:{_VERSION_CLAUSE}(?:,{_VERSION_CLAUSE})*)?$"
)
_VCS = re.compile(r"^(?:(?P<name>" + _NAME + r")@)?(?P<url>(?:git|hg|svn|bzr)\+[a-z]+://\S+)$")
_URL_CHARACTERS = re.compile(r"^[A-Za-z0-9._~:/?#\[\]@!+,=%-]+$")


@dataclass(frozen=True)
class Spec:
    """One validated SPEC: ``kind`` is name, path, wheel or vcs; ``pip_args`` what pip
    is given for it; ``name`` the distribution's name when it can be told in advance."""

    text: str
    kind: str
    pip_args: tuple[str, ...]
    name: str | None = None
    path: Path | None = None


def parse_spec(text: str, cwd: Path) -> Spec:
    """Validate ``text`` (a SPEC as typed) and say how to install it."""
    shown = text if len(text) <= 60 else text[:57] + "..."
    if not text:
        raise UsageError("an empty plugin spec; give a package name, a path or a VCS URL")
    bad = sorted({c for c in text if c in SHELL_METACHARACTERS}, key=text.index)
    if bad:
        listed = " ".join(repr(c) for c in bad)
        raise UsageError(
            f"refusing plugin spec {shown!r}: it contains shell metacharacters ({listed}); "
            "give one package name, path, wheel or VCS URL per argument"
        )
    if text.startswith("-"):
        raise UsageError(
            f"refusing plugin spec {shown!r}: it looks like an option; "
            "give a package name, a path, a wheel or a VCS URL"
        )
    vcs = _VCS.match(text)
    if vcs:
        if not _URL_CHARACTERS.match(vcs["url"]):
            raise UsageError(f"refusing plugin spec {shown!r}: the URL has unusual characters")
        return Spec(text, "vcs", (text,), _normal(vcs["name"]) if vcs["name"] else None)
    if _looks_like_path(text):
        return _path_spec(text, cwd, shown)
    named = _NAME_SPEC.match(text)
    if named:
        return Spec(text, "name", (text,), _normal(named["name"]))
    raise UsageError(
        f"not a plugin spec: {shown!r}; expected a package name with optional extras and "
        "version (omp-guard>=1.0), a local directory (./my-plugin), a wheel or a VCS URL "
        "(git+https://...)"
    )


def _looks_like_path(text: str) -> bool:
    return text.startswith((".", "/", "~")) or text.endswith(".whl") or "/" in text


def _path_spec(text: str, cwd: Path, shown: str) -> Spec:
    path = (cwd / Path(text).expanduser()).resolve()
    if not path.exists():
        raise UsageError(f"no such file or directory: {text}")
    if path.is_file():
        if path.suffix != ".whl":
            raise UsageError(f"{shown} is a file but not a wheel (.whl)")
        return Spec(text, "wheel", (str(path),), _normal(path.name.split("-")[0]), path)
    if not (path / "pyproject.toml").is_file() and not (path / "setup.py").is_file():
        raise UsageError(
            f"{shown} is not a Python project (no pyproject.toml); "
            "`omp plugin new NAME` creates one"
        )
    return Spec(text, "path", ("-e", str(path)), _project_name(path), path)


def _project_name(path: Path) -> str | None:
    import tomllib

    try:
        data = tomllib.loads((path / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    name = data.get("project", {}).get("name")
    return _normal(name) if isinstance(name, str) else None


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def normal_name(name: str) -> str:
    """A distribution name as pip compares them (PEP 503)."""
    return _normal(name)
