"""Fixtures of the kernel tests."""

from __future__ import annotations

import pytest
from doubles import Contribute, ListProvider


@pytest.fixture
def make_session(omp_harness):
    def build(replies, tools=(), plugins=(), **options):
        provider = ListProvider(replies)
        session = omp_harness.session(
            plugins=[Contribute([provider], tools), *plugins], model="test/model", **options
        )
        return session, provider

    return build
