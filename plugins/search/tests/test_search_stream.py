"""grep streams: the first matches reach the session as tool_execution_update events
while the walk goes on, whichever backend answers, and an abort then stops it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FILES = 6_000


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One early match (a.py) before many files without one (slow enough to walk that
    an abort sent on the first update lands before the walk ends)."""
    root = tmp_path_factory.mktemp("stream")
    (root / "a.py").write_text("x = 1\nneedle = 1\n", encoding="utf-8")
    for folder in range(FILES // 200):
        sub = root / f"d{folder:03}"
        sub.mkdir()
        for i in range(200):
            (sub / f"f{i:03}.py").write_text("nothing here\n", encoding="utf-8")
    return root


def _texts(result) -> str:
    blocks = result["content"]
    return "\n".join(b["text"] if isinstance(b, dict) else b.text for b in blocks)


@pytest.mark.parametrize("backend", ["default", "python"])
def test_the_first_match_streams_before_the_walk_ends(omp_harness, big_tree, backend) -> None:
    if backend == "python":
        (omp_harness.agent_dir / "settings.json").write_text(
            json.dumps({"search": {"backend": "python"}}), encoding="utf-8"
        )
    script = [
        {
            "tool_calls": [
                {"name": "grep", "arguments": {"pattern": "needle", "path": str(big_tree)}}
            ]
        },
        {"text": "done"},
    ]
    session = omp_harness.session(script=script)
    order: list[str] = []

    def abort_on_first_update(event) -> None:
        kind = getattr(event, "type", "")
        if kind in ("tool_execution_update", "tool_execution_end"):
            order.append(kind)
        if kind == "tool_execution_update" and order.count(kind) == 1:
            session.abort()

    session.subscribe(abort_on_first_update)
    events = omp_harness.run(session, "go")
    update = events.of("tool_execution_update")[0]
    (end,) = events.of("tool_execution_end")
    assert order[0] == "tool_execution_update" and order[-1] == "tool_execution_end"
    assert _texts(update.partial_result).startswith(f"{big_tree}/a.py:2:needle = 1")
    # the abort, sent on the first update, found the walk still going
    assert end.is_error and "aborted" in _texts(end.result)
