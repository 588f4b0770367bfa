"""The ``project`` fixture: ast_project.FILES written into the harness's working directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ast_project import FILES


@pytest.fixture
def project(omp_harness: Any) -> Path:
    for name, text in FILES.items():
        path = omp_harness.cwd / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return omp_harness.cwd
