"""A small multi-language project and a way to call the ast tools in a real session
(the scripted provider, the search backend for the file walk)."""

from __future__ import annotations

from typing import Any

FILES = {
    "app/main.py": (
        "from app.util import log\n"
        "\n"
        "def main(argv):\n"
        "    log('start', level=1)\n"
        "    if argv:\n"
        "        log(argv[0])\n"
        "    return 0\n"
    ),
    "app/util.py": ("def log(message, level=0):\n    print(message)\n\n\nlog('loaded')\n"),
    "app/other.py": "def unrelated():\n    return 'log'\n",
    "web/index.ts": (
        "import { log } from './log';\n"
        "export function run(items: string[]): void {\n"
        "  log('run', items.length);\n"
        "}\n"
    ),
    "build/generated.py": "log('ignored')\n",
    ".gitignore": "build/\n",
    "README.md": "log('not code')\n",
}


def call(harness: Any, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    """Run the tool calls in order (one model turn each); their tool_execution_end events."""
    script = [{"tool_calls": [{"name": name, "arguments": args}]} for name, args in calls]
    session = harness.session(script=[*script, {"text": "done"}], builtins=["ast", "search"])
    events = harness.run(session, "go")
    ends = events.of("tool_execution_end")
    assert len(ends) == len(calls)
    return ends


def text(end: Any) -> str:
    return "".join(block.text for block in end.result["content"])
