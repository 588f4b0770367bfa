"""The command line of a child Python process that runs a module of omp's environment.

``python -m`` puts the working directory first on ``sys.path``: in a project that is not
trusted, a file named like a module the child imports (``json.py``, ``pluggy.py``) would
run in it. ``-P`` (``safe_path``, Python 3.11+) leaves the working directory out.
"""

from __future__ import annotations

import sys


def python_module_command(module: str, *args: str) -> list[str]:
    """``[python, -P, -m, module, *args]`` for this interpreter."""
    return [sys.executable, "-P", "-m", module, *args]
