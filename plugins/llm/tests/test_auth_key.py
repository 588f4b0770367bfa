"""The key a provider sends comes from auth.json as it is now, read again only when the
file changed (a key is looked up before every request)."""

from __future__ import annotations

import json
from pathlib import Path

import omp_llm.config as config
import pytest
from omp import OmpError
from omp_llm.config import ProviderConfig, resolve_key, save_api_key


def _config() -> ProviderConfig:
    return ProviderConfig("acme", "openai-completions", "http://127.0.0.1:9", [], ["ACME_KEY"])


def test_the_stored_key_follows_the_file(tmp_path: Path, monkeypatch) -> None:
    reads: list[Path] = []
    real = Path.read_text

    def counting(self: Path, *args, **kwargs) -> str:
        reads.append(self)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", counting)
    env = {"ACME_KEY": "from-the-environment"}
    assert resolve_key(_config(), tmp_path, env=env) == "from-the-environment"
    save_api_key(tmp_path, "acme", "first-key-0123")
    assert resolve_key(_config(), tmp_path, env=env) == "first-key-0123"
    reads.clear()
    for _ in range(5):
        assert resolve_key(_config(), tmp_path, env=env) == "first-key-0123"
    assert reads == []  # unchanged: not read again
    save_api_key(tmp_path, "acme", "second-key-0123")
    assert resolve_key(_config(), tmp_path, env=env) == "second-key-0123"
    auth = tmp_path / "auth.json"
    auth.write_text(json.dumps({"acme": "third-key-01234"}), encoding="utf-8")  # in place
    assert resolve_key(_config(), tmp_path, env=env) == "third-key-01234"
    auth.write_text("{not json", encoding="utf-8")
    with pytest.raises(OmpError, match="cannot read"):
        resolve_key(_config(), tmp_path, env=env)
    auth.unlink()
    assert resolve_key(_config(), tmp_path, env=env) == "from-the-environment"
    assert auth not in config._AUTH_READ  # a deleted file is forgotten
