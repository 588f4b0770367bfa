"""/export's HTML and Markdown: thinking collapsed, tool calls and results folded,
summaries shown, everything escaped."""

from __future__ import annotations

from omp_sessions_command.export import to_html, to_markdown

HEADER = {"type": "session", "id": "s1", "cwd": "/w", "timestamp": "2026-01-01T00:00:00Z"}
ENTRIES = [
    {"type": "message", "id": "u", "message": {"role": "user", "content": "fix <b>it</b>"}},
    {
        "type": "message",
        "id": "a",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "the parser drops <tags>"},
                {"type": "text", "text": "Reading it."},
                {"type": "toolCall", "id": "c", "name": "read", "arguments": {"path": "p.py"}},
            ],
        },
    },
    {
        "type": "message",
        "id": "r",
        "message": {
            "role": "toolResult",
            "toolCallId": "c",
            "toolName": "read",
            "content": [{"type": "text", "text": "x = 1"}],
            "isError": False,
        },
    },
    {"type": "branch_summary", "id": "b", "fromId": "a", "summary": "tried B"},
]


def test_html_folds_thinking_calls_and_results():
    page = to_html(HEADER, ENTRIES, "Fix")
    assert "<details><summary>Thinking</summary>the parser drops &lt;tags&gt;</details>" in page
    assert "<details><summary>Tool call: read</summary>" in page
    assert "<details><summary>Result of read</summary><pre>x = 1</pre></details>" in page
    assert "fix &lt;b&gt;it&lt;/b&gt;" in page and "tried B" in page
    assert "<script" not in page and "http" not in page


def test_markdown_folds_thinking_calls_and_results():
    text = to_markdown(HEADER, ENTRIES, "Fix")
    assert text.startswith("# Fix\n")
    assert "<details><summary>Thinking</summary>\n\nthe parser drops <tags>" in text
    assert '<details><summary>Tool call: read</summary>\n\n```json\n{\n  "path": "p.py"' in text
    assert "Summary of an abandoned branch:\ntried B" in text
