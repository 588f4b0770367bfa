"""Each distribution carries its own tests (plugins/<name>/tests, natives/tests), as the
plugin template does, and the suite (``scripts/test``, ``python -m pytest``) collects
every one of them with the shared support (the root conftest.py, tests/replay.py,
tests/isolation.py) in reach."""

from __future__ import annotations

import glob
import tomllib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTEST = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]


def _suite_folders() -> list[Path]:
    """The folders the suite collects with no arguments (pytest globs each testpath)."""
    return [Path(p) for t in PYTEST["testpaths"] for p in glob.glob(str(ROOT / t))]


def _distribution_test_folders() -> list[Path]:
    return [*ROOT.glob("plugins/*/tests"), ROOT / "natives" / "tests"]


def test_every_distributions_own_tests_are_in_the_suite():
    suite = _suite_folders()
    folders = _distribution_test_folders()
    assert ROOT / "plugins" / "bash" / "tests" in folders
    missing = [f.relative_to(ROOT) for f in folders if not any(f.is_relative_to(s) for s in suite)]
    assert not missing, f"test folders the suite does not collect: {missing}"


def test_the_shared_test_support_is_importable_from_every_test_folder():
    assert (ROOT / "conftest.py").is_file()  # fixtures and hook coverage for every folder
    for module in ("replay.py", "isolation.py"):
        assert any((ROOT / p / module).is_file() for p in PYTEST["pythonpath"]), module


def test_test_module_basenames_are_unique_across_the_suite():
    # pytest's default import mode imports a test module (and a helper beside it) by its
    # basename, and refuses a second file of the same name in another folder.
    seen: dict[str, list[str]] = defaultdict(list)
    for folder in _suite_folders():
        files = [folder] if folder.is_file() else folder.rglob("*.py")
        for path in files:
            if path.name != "conftest.py" and "__pycache__" not in path.parts:
                seen[path.name].append(str(path.relative_to(ROOT)))
    twice = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert not twice, f"test modules with the same name: {twice}"
