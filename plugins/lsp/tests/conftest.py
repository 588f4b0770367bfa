"""Fixtures of the lsp plugin's tests; the helpers are in ``lsp_helpers``."""

from __future__ import annotations

import pytest
from lsp_helpers import PidSpy, configure, group_alive, texts

__all__ = ["PidSpy", "configure", "group_alive", "texts"]  # older imports from conftest


@pytest.fixture
def spy() -> PidSpy:
    return PidSpy()
