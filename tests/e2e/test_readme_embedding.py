"""The README's embedding example runs as printed: the first ```python block under
``## Embedding`` is run in a fresh interpreter, in an empty project with a private home
and agent directory, and prints the scripted answer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from isolation import isolated_env

README = Path(__file__).resolve().parents[2] / "README.md"


def embedding_example(text: str) -> str:
    """The first ```python block under the ``## Embedding`` heading."""
    lines = text.splitlines()
    assert "## Embedding" in lines, "README.md has no '## Embedding' section"
    start = lines.index("## Embedding") + 1
    section = []
    for line in lines[start:]:
        if line.startswith("## "):
            break
        section.append(line)
    assert "```python" in section, "the Embedding section has no ```python block"
    begin = section.index("```python") + 1
    end = section.index("```", begin)
    return "\n".join(section[begin:end]) + "\n"


def test_the_readme_embedding_example_runs_and_prints_the_answer(tmp_path):
    code = embedding_example(README.read_text(encoding="utf-8"))
    assert len([line for line in code.splitlines() if line.strip()]) <= 12, code
    for sub in ("work", "agent", "home"):
        (tmp_path / sub).mkdir()
    (tmp_path / "example.py").write_text(code, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(tmp_path / "example.py")],
        cwd=tmp_path / "work",
        env=isolated_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hello from a script.\n"
    assert proc.stderr == ""
    assert not list((tmp_path / "agent").rglob("*.jsonl")), "an in-memory session wrote a file"
