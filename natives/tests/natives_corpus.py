"""The shared corpus of the parity tests: a tree with everything the two search
backends could disagree on."""

from __future__ import annotations

import os
from pathlib import Path

TEXT_FILES = {
    ".git/HEAD": "ref: refs/heads/main\nneedle\n",
    ".git/info/exclude": "excluded.txt\n",
    ".gitignore": "*.log\nbuild/\n!keep.log\n/top.txt\nnode_modules\n",
    ".hidden/inside.py": "needle = 'hidden'\n",
    ".env": "TOKEN=needle\n",
    "README.md": "# Needle\n\nA needle in a haystack.\nneedles and NEEDLE\n",
    "app.py": "import os\n\ndef find_needle(hay):\n    return hay.index('needle')\n",
    "debug.log": "needle\n",
    "keep.log": "needle kept\n",
    "top.txt": "needle at the top\n",
    "excluded.txt": "needle excluded by info/exclude\n",
    "build/out.py": "needle = 1\n",
    "node_modules/pkg/index.js": "module.exports = 'needle';\n",
    "src/main.py": "def main():\n    print('needle')\n\n\nif __name__ == '__main__':\n    main()\n",
    "src/util.py": "\n".join(f"line {i} {'needle' if i % 7 == 0 else 'hay'}" for i in range(1, 60))
    + "\n",
    "src/top.txt": "not ignored: /top.txt is anchored\nneedle\n",
    "src/.ignore": "*.gen.py\n!keep.gen.py\n",
    "src/a.gen.py": "needle generated\n",
    "src/keep.gen.py": "needle generated but kept\n",
    "src/nested/.gitignore": "*.txt\n!important.txt\n",
    "src/nested/notes.txt": "needle notes\n",
    "src/nested/important.txt": "needle important\n",
    "src/nested/deep/code.ts": "const needle: string = 'x';\nlet hay = 2;\n",
    "src/nested/deep/code.rs": "fn needle() -> u8 { 0 }\n",
    "docs/guide.md": "Guide\n=====\nThe needle is sharp.\n\n\nEnd\n",
    "docs/crlf.txt": "first needle\r\nsecond\r\nthird needle\r\n",
    "docs/no-newline.txt": "needle at the end",
    "docs/empty.txt": "",
    "docs/unicode.txt": (
        "naïve needle\n\u03a3\u03af\u03c3\u03c5\u03c6\u03bf\u03c2 needle\n"
        "日本語の針 needle\n\u0130stanbul \u0131i\ncafé\n"
    ),
    "docs/long.txt": "x" * 800 + " needle " + "y" * 300 + "\n",
    "dir with space/file name.txt": "needle in a spaced path\n",
    "ünïcödé/日本.md": "needle in a unicode path\n",
    "many/words.txt": "".join(f"word{i} needle{i % 3}\n" for i in range(300)),
}
BINARY_FILES = {
    "bin/blob.bin": b"\x00\x01needle\x02" * 10,
    "bin/late-nul.dat": b"needle\n" * 2000 + b"\x00",  # NUL after the first 8 KiB
    "docs/latin1.txt": b"caf\xe9 needle\nna\xefve\n",  # invalid UTF-8
}


def build(root: Path) -> Path:
    """Writes the corpus under ``root`` (which it returns), with a symlink loop, a link
    to a file, an unreadable folder and a named pipe (no writer: grep must not wait)."""
    for rel, text in TEXT_FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    for rel, data in BINARY_FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    large = root / "big" / "large.txt"
    large.parent.mkdir(parents=True, exist_ok=True)
    large.write_bytes(b"needle\n" * (700 * 1024))  # over 4 MiB: skipped as large
    (root / "loop").mkdir()
    os.symlink("..", root / "loop" / "up")
    os.symlink("loop", root / "loop" / "self")
    os.symlink("app.py", root / "link-to-app.py")
    locked = root / "locked"
    locked.mkdir()
    (locked / "secret.txt").write_text("needle locked\n", encoding="utf-8")
    locked.chmod(0)
    if hasattr(os, "mkfifo"):
        (root / "pipes").mkdir()
        os.mkfifo(root / "pipes" / "fifo")
    return root


def unlock(root: Path) -> None:
    (root / "locked").chmod(0o755)
