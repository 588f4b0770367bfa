"""The block splitter behind streamed Markdown: a block leaves once, when it is done."""

from __future__ import annotations

from omp_mode_interactive.render.markdown import CODE_CHUNK_LINES, BlockSplitter

TEXT = (
    "Intro paragraph\ncontinues here.\n\n"
    "- a\n\n- b\n\n"
    "| x | y |\n|---|---|\n| 1 | 2 |\n\n"
    "```python\nprint(1)\n```\n\n"
    "Setext heading\n---\n\n"
    "Last words"
)


def feed(text: str, piece: int = 3) -> tuple[list, list[int]]:
    splitter = BlockSplitter()
    blocks, pending = [], []
    for start in range(0, len(text), piece):
        blocks += splitter.feed(text[start : start + piece])
        pending.append(len(splitter.pending))
    return blocks + splitter.finish(), pending


def test_blocks_together_are_the_whole_text_each_once():
    blocks, _ = feed(TEXT)
    assert "".join(block.source for block in blocks) == TEXT
    sources = [block.source.strip() for block in blocks]
    assert sources[0] == "Intro paragraph\ncontinues here."
    assert "- a\n\n- b" in sources  # a loose list stays one block
    assert not any(source.endswith("Setext heading") for source in sources)  # kept with its ---
    assert sources[-1].endswith("Last words")


def test_a_block_leaves_only_when_the_next_one_starts():
    splitter = BlockSplitter()
    assert splitter.feed("A paragraph.\n\n") == []
    assert splitter.feed("Second") == []
    (block,) = splitter.feed(" one\n")
    assert block.source == "A paragraph.\n\n"
    assert splitter.open_source == "Second one\n"


def test_a_long_code_fence_streams_in_chunks_with_its_lexer():
    lines = [f"x_{n} = {n}" for n in range(100)]
    text = "Before.\n\n```python\n" + "\n".join(lines) + "\n```\n\nAfter."
    blocks, pending = feed(text, piece=5)
    code = [block for block in blocks if block.lexer == "python"]
    assert len(code) >= 100 // CODE_CHUNK_LINES - 1
    assert "".join(block.source for block in code) == "\n".join(lines) + "\n"
    assert max(pending) < 40 * (CODE_CHUNK_LINES + 3)
    assert blocks[-1].source.strip() == "After."


def test_an_unclosed_fence_at_the_end_keeps_its_lines():
    lines = "\n".join(f"row {n}" for n in range(40))
    blocks, _ = feed(f"```\n{lines}")
    assert "".join(block.source for block in blocks).strip().endswith("row 39")
    assert all("```" not in block.source for block in blocks if block.lexer)
