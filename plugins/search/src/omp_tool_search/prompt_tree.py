"""The workspace tree in the system prompt (setting ``includeWorkspaceTree``, off by
default as in omp): the search service's tree (``ctx.search("tree")``, so the natives
backend draws it when installed), taken once per session and kept, so the prompt's
prefix stays the same for the provider's cache while files come and go."""

from __future__ import annotations

from typing import Any

DEPTH, LIMIT = 3, 200
_STATE = "omp-tool-search.workspace-tree"
_DATE_LINE = "Current date:"


def render(lines: list[str], total: int) -> str:
    """The section: the tree's lines in a ``<workspace-tree>`` block."""
    body = [f"Working directory layout (depth <= {DEPTH}, ignore rules applied):", *lines]
    if total > len(lines):
        body.append(f"({total - len(lines)} more entries elided; use find or ls to look further)")
    return "<workspace-tree>\n" + "\n".join(body) + "\n</workspace-tree>"


async def section(ctx: Any) -> str | None:
    """This session's tree section (None: an empty or unreadable folder, no backend)."""
    state = ctx.state
    if _STATE not in state:
        from omp_tool_search.answers import coerce_tree

        try:
            answer = coerce_tree(await ctx.search("tree", depth=DEPTH, limit=LIMIT))
        except Exception:  # no backend, a broken one: the prompt goes without the tree
            answer = None
        ok = answer is not None and not answer.error and answer.lines
        state[_STATE] = render(answer.lines, answer.total) if ok else None
    return state[_STATE]


def with_tree(sections: list[str], tree: str) -> list[str]:
    """``sections`` with ``tree`` before the date and working directory line (last)."""
    out = list(sections)
    at = len(out) - 1 if out and out[-1].startswith(_DATE_LINE) else len(out)
    out.insert(at, tree)
    return out
