"""`omp config set` rewrites settings.json through ``omp.config.atomic_write`` (issue 24, item 1):
a symlinked file (dotfiles) is written through and stays a link, a hard-linked one is
written in place so its other name sees the change, and nothing is left beside it."""

from __future__ import annotations

import json
import os


def test_config_set_keeps_a_symlinked_settings_file_a_link(omp_cli):
    dotfiles = omp_cli.root / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "settings.json").write_text('{"defaultModel": "kept"}\n')
    (omp_cli.agent_dir / "settings.json").symlink_to(dotfiles / "settings.json")
    proc = omp_cli("config", "set", "retry.maxRetries", "4")
    assert proc.returncode == 0, proc.stderr
    assert (omp_cli.agent_dir / "settings.json").is_symlink()
    assert json.loads((dotfiles / "settings.json").read_text()) == {
        "defaultModel": "kept",
        "retry": {"maxRetries": 4},
    }
    assert sorted(p.name for p in omp_cli.agent_dir.iterdir() if p.name != "cache") == [
        "settings.json"
    ]


def test_config_set_keeps_a_hard_linked_settings_file_linked(omp_cli):
    settings = omp_cli.agent_dir / "settings.json"
    settings.write_text("{}\n")
    os.link(settings, omp_cli.root / "backup.json")
    proc = omp_cli("config", "set", "steeringMode", "all")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((omp_cli.root / "backup.json").read_text()) == {"steeringMode": "all"}
    assert settings.stat().st_nlink == 2
    assert list((omp_cli.agent_dir / "recovery").iterdir()) == []
