"""`omp plugins` and `omp plugin doctor` say which search backend answers, and why the
natives one stands aside when it does."""

from __future__ import annotations

import json

import pytest

pytest.importorskip(
    "omp_natives", reason="omp-natives is not installed (needs cargo; bash scripts/setup)"
)


def test_omp_plugins_names_the_active_search_backend(omp_cli) -> None:
    proc = omp_cli("plugins")
    assert proc.returncode == 0, proc.stderr
    assert "search backend: natives (then search)" in proc.stdout.splitlines()


def test_the_setting_shows_the_pure_python_backend_and_why(omp_cli) -> None:
    (omp_cli.agent_dir / "settings.json").write_text(json.dumps({"search": {"backend": "python"}}))
    for args in (("plugins",), ("plugin", "doctor")):
        proc = omp_cli(*args)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert 'search backend: search (natives stands aside: search.backend is "python")' in (
            proc.stdout.splitlines()
        )


def test_doctor_names_the_active_backend(omp_cli) -> None:
    proc = omp_cli("plugin", "doctor")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "search backend: natives (then search)" in proc.stdout.splitlines()
