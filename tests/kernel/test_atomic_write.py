"""``omp.config.atomic_write``: every whole-file rewrite (settings, auth, a version 1 session
upgraded to 3) replaces the file by a rename, through a symlink and keeping a hard link,
and a failure leaves the old file as it was (issue 24, item 1)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from omp.base.errors import OmpError
from omp.config import atomic_write, recovery
from omp.config.settings import remember_trusted, save_user_setting
from omp.session.file import SessionFile
from omp_llm import config as llm_config

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX renames and links")


@pytest.fixture(autouse=True)
def agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "agent"
    folder.mkdir()
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(folder))
    return folder


def failing_rename(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """os.replace fails as a full disk would; returns the temporaries it was given."""
    given: list[str] = []

    def refuse(source: Any, target: Any) -> None:
        given.append(str(source))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic_write.os, "replace", refuse)
    return given


def test_a_new_file_gets_the_umask_mode_or_the_mode_asked(tmp_path: Path) -> None:
    mask = os.umask(0o027)
    try:
        atomic_write.write_file(tmp_path / "plain", b"x")
        atomic_write.write_file(tmp_path / "secret", b"k", mode=0o600)
    finally:
        os.umask(mask)
    assert (tmp_path / "plain").stat().st_mode & 0o777 == 0o640
    assert (tmp_path / "secret").stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent", "plain", "secret"]


def test_a_failed_rename_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f.txt"
    target.write_bytes(b"old\n")
    given = failing_rename(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        atomic_write.write_file(target, b"new\n")
    assert target.read_bytes() == b"old\n"
    assert len(given) == 1 and not Path(given[0]).exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent", "f.txt"]


def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to("made.txt")
    atomic_write.write_file(link, b"content")
    assert link.is_symlink() and (tmp_path / "made.txt").read_bytes() == b"content"


def _stat(uid: int, gid: int, links: int = 1) -> os.stat_result:
    return os.stat_result((0o100644, 1, 1, links, uid, gid, 0, 0, 0, 0))


def test_what_a_rename_would_lose_decides_writing_in_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(atomic_write.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(atomic_write.os, "getegid", lambda: 1000)
    monkeypatch.setattr(atomic_write.os, "getgroups", lambda: [1000, 27])
    assert atomic_write.in_place_reason(_stat(1000, 1000)) is None
    assert atomic_write.in_place_reason(_stat(1000, 27)) is None
    assert atomic_write.in_place_reason(_stat(1000, 1000, links=2)) == "it has other hard links"
    assert atomic_write.in_place_reason(_stat(0, 0)) == "it belongs to another user"
    assert atomic_write.in_place_reason(_stat(1000, 5)) == "its group is one this user is not in"
    monkeypatch.setattr(atomic_write.os, "geteuid", lambda: 0)
    assert atomic_write.in_place_reason(_stat(1000, 5)) is None  # root gives it back


def test_a_hard_linked_file_is_written_in_place_with_a_recovery_copy_meanwhile(
    tmp_path: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f.txt"
    target.write_bytes(b"old content\n")
    os.link(target, tmp_path / "twin.txt")
    seen: list[tuple[str, bytes]] = []
    real_put = atomic_write._put

    def watched(fd: int, data: bytes, old_size: int) -> None:
        (found,) = recovery.leftovers(agent_dir / "recovery")
        seen.append((found.target, found.copy_path.read_bytes()))
        real_put(fd, data, old_size)

    monkeypatch.setattr(atomic_write, "_put", watched)
    atomic_write.write_file(target, b"new content\n")
    assert seen == [(str(target), b"old content\n")]
    assert (tmp_path / "twin.txt").read_bytes() == b"new content\n"
    assert list((agent_dir / "recovery").iterdir()) == []
    assert (agent_dir / "recovery").stat().st_mode & 0o777 == 0o700


def test_an_interrupted_in_place_write_that_cannot_be_undone_keeps_its_copy(
    tmp_path: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f.txt"
    target.write_bytes(b"old content\n")
    os.link(target, tmp_path / "twin.txt")
    calls: list[bytes] = []

    def broken(fd: int, data: bytes, old_size: int) -> None:
        calls.append(data)
        if len(calls) == 1:
            os.pwrite(fd, data[:4], 0)
            raise KeyboardInterrupt
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(atomic_write, "_put", broken)
    with pytest.raises(KeyboardInterrupt):
        atomic_write.write_file(target, b"NEW CONTENT\n")
    assert target.read_bytes() == b"NEW content\n"  # torn
    (found,) = recovery.leftovers(agent_dir / "recovery")
    assert found.copy_path.read_bytes() == b"old content\n"
    assert found.state() == recovery.INTERRUPTED
    monkeypatch.undo()
    assert found.restore() == target
    assert (tmp_path / "twin.txt").read_bytes() == b"old content\n"


def test_a_directory_that_refuses_new_files_gets_the_file_written_in_place(
    tmp_path: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f.txt"
    target.write_bytes(b"old\n")
    inode = target.stat().st_ino
    real_open = os.open

    def no_new_files_here(path: Any, flags: int, *args: Any) -> int:
        if flags & os.O_CREAT and Path(path).parent == tmp_path:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(atomic_write.os, "open", no_new_files_here)
    atomic_write.write_file(target, b"new\n")
    assert target.read_bytes() == b"new\n" and target.stat().st_ino == inode
    assert list((agent_dir / "recovery").iterdir()) == []


def test_config_set_writes_through_a_symlinked_settings_file(
    tmp_path: Path, agent_dir: Path
) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "settings.json").write_text('{"defaultModel": "kept"}\n')
    (agent_dir / "settings.json").symlink_to(dotfiles / "settings.json")
    save_user_setting(agent_dir, "steeringMode", "all")
    assert (agent_dir / "settings.json").is_symlink()
    data = json.loads((dotfiles / "settings.json").read_text())
    assert data == {"defaultModel": "kept", "steeringMode": "all"}


def test_a_hard_linked_settings_file_keeps_its_link(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "settings.json").write_text("{}\n")
    os.link(agent_dir / "settings.json", tmp_path / "backup.json")
    save_user_setting(agent_dir, "steeringMode", "all")
    assert json.loads((tmp_path / "backup.json").read_text()) == {"steeringMode": "all"}


def test_a_failed_settings_write_leaves_the_file_and_says_so(
    tmp_path: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = agent_dir / "settings.json"
    settings.write_text('{"defaultModel": "kept"}\n')
    failing_rename(monkeypatch)
    with pytest.raises(OmpError, match=r"cannot write settings file .*: No space left"):
        remember_trusted(agent_dir, tmp_path, [])
    assert settings.read_text() == '{"defaultModel": "kept"}\n'
    assert sorted(p.name for p in agent_dir.iterdir()) == ["settings.json"]


def test_auth_file_keeps_its_symlink_and_stays_private(tmp_path: Path, agent_dir: Path) -> None:
    real = tmp_path / "auth-real.json"
    real.write_text("{}")
    real.chmod(0o644)
    (agent_dir / "auth.json").symlink_to(real)
    llm_config.save_api_key(agent_dir, "anthropic", "sk-test")
    assert (agent_dir / "auth.json").is_symlink()
    assert json.loads(real.read_text())["anthropic"]["key"] == "sk-test"
    assert real.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in agent_dir.iterdir()) == ["auth.json"]


V1 = [
    {"type": "session", "id": "old-1", "timestamp": "2024-06-01T10:00:00.000Z", "cwd": "/p"},
    {
        "type": "message",
        "timestamp": "2024-06-01T10:00:01.000Z",
        "message": {"role": "user", "content": "first", "timestamp": 1},
    },
]


def _v1(path: Path) -> bytes:
    data = "".join(json.dumps(line) + "\n" for line in V1).encode()
    path.write_bytes(data)
    return data


def _grow(path: Path) -> None:
    from omp.agent.messages import UserMessage

    session = SessionFile.open(path)
    session.append_message(UserMessage(content="second"))
    session.close()


@pytest.mark.parametrize("kind", ["symlink", "hard link"])
def test_a_version_1_session_is_upgraded_through_its_link(kind: str, tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    _v1(real)
    path = tmp_path / "s.jsonl"
    if kind == "symlink":
        path.symlink_to(real)
    else:
        os.link(real, path)
    _grow(path)
    assert path.is_symlink() == (kind == "symlink")
    lines = [json.loads(line) for line in real.read_text().splitlines()]
    assert lines[0]["version"] == 3 and len(lines) == 3


def test_a_version_1_session_whose_upgrade_fails_is_left_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    before = _v1(path)
    failing_rename(monkeypatch)
    with pytest.raises(OmpError, match="cannot write session"):
        _grow(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent", "s.jsonl"]
    monkeypatch.undo()
    _grow(path)  # nothing was left locked
    assert json.loads(path.read_text().splitlines()[0])["version"] == 3


def test_the_upgraded_session_is_locked_before_it_takes_the_old_ones_place(
    tmp_path: Path,
) -> None:
    from omp.agent.messages import UserMessage
    from omp.session import lock as session_lock

    path = tmp_path / "s.jsonl"
    _v1(path)
    session = SessionFile.open(path)
    session.append_message(UserMessage(content="second"))
    with pytest.raises(session_lock.SessionLockedError):
        os.close(session_lock.acquire(path))
    session.close()
    os.close(session_lock.acquire(path))
