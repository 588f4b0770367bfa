"""Fixtures of the interactive mode's rendering tests."""

from __future__ import annotations

import pytest
from render_screen import Recording, record


@pytest.fixture
def recorded(omp_harness):
    """``recorded(steps, prompt, **files)``: the events of a scripted session run."""

    def run(steps, prompt: str = "go", **files: str) -> Recording:
        return record(omp_harness, steps, prompt, **files)

    return run
