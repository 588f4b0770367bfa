"""The footer under the editor, laid out as pi's: where you are and the session's name;
tokens, cost and context use on the left with the model and thinking level on the
right; then the working message and the plugins' statuses. Every line fits the width
(measured in terminal cells, wide characters counted twice)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from omp_mode_interactive.render.theme import Theme
from omp_mode_interactive.render.width import sanitize, text_width, truncate

Segment = tuple[str, str]
"""(text, theme role)"""


@dataclass
class FooterInfo:
    model: str = ""
    thinking_level: str | None = None
    context_percent: float | None = None
    context_window: int | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    cost_unknown: bool = False
    """Some responses came from a model without a price: the cost is a lower bound."""
    statuses: dict[str, str] = field(default_factory=dict)
    working_message: str | None = None
    session_name: str | None = None
    cwd: str | None = None


def render_footer(info: FooterInfo, width: int, theme: Theme) -> str:
    """The footer's lines (ANSI, joined by newlines), none wider than ``width``."""
    width = max(1, width)
    lines = []
    place = _place(info)
    if place:
        lines.append(_fit(place, width, theme))
    lines.append(_spread(_usage(info), _model(info), width, theme))
    status = _statuses(info)
    if status:
        lines.append(_fit(status, width, theme))
    return "\n".join(lines)


def _place(info: FooterInfo) -> list[Segment]:
    segments: list[Segment] = []
    if info.cwd:
        home = os.path.expanduser("~")
        cwd = info.cwd
        if home not in ("", "/") and (cwd == home or cwd.startswith(home + os.sep)):
            cwd = "~" + cwd[len(home) :]
        segments.append((cwd, "footer_dim"))
    if info.session_name:
        if segments:
            segments.append((" • ", "footer_dim"))
        segments.append((sanitize(info.session_name), "footer"))
    return segments


def _usage(info: FooterInfo) -> list[Segment]:
    segments: list[Segment] = [
        (f"↑{tokens(info.tokens_in)} ↓{tokens(info.tokens_out)}", "footer"),
        (" " + cost(info.cost) + ("+" if info.cost_unknown else ""), "footer"),
    ]
    if info.context_percent is not None:
        percent = info.context_percent
        role = "ctx_full" if percent >= 90 else "ctx_warn" if percent >= 70 else "footer"
        window = f"/{tokens(info.context_window)}" if info.context_window else ""
        segments.append((f" {percent:.1f}%{window}", role))
    return segments


def _model(info: FooterInfo) -> list[Segment]:
    segments: list[Segment] = [(info.model or "no model", "footer")]
    if info.thinking_level:
        segments.append((f" • {info.thinking_level}", "footer_dim"))
    return segments


def _statuses(info: FooterInfo) -> list[Segment]:
    segments: list[Segment] = []
    if info.working_message:
        segments.append((sanitize(info.working_message), "accent"))
    for key in sorted(info.statuses):
        text = " ".join(sanitize(str(info.statuses[key])).split())
        if not text:
            continue
        if segments:
            segments.append((" · ", "footer_dim"))
        segments.append((text, "status"))
    return segments


def tokens(count: int | None) -> str:
    """1234 -> 1.2k, 56789 -> 57k, 1234567 -> 1.2M."""
    count = count or 0
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    return f"{count / 1_000_000:.1f}M"


def cost(dollars: float) -> str:
    return f"${dollars:.3f}" if dollars < 1 else f"${dollars:.2f}"


def _fit(segments: list[Segment], width: int, theme: Theme) -> str:
    """The segments painted, cut (with an ellipsis) where they pass ``width``."""
    out, used = [], 0
    for text, role in segments:
        size = text_width(text)
        if used + size > width:
            out.append(theme.paint(truncate(text, width - used), role))
            break
        out.append(theme.paint(text, role))
        used += size
    return "".join(out)


def _spread(left: list[Segment], right: list[Segment], width: int, theme: Theme) -> str:
    """``left`` at the start, ``right`` at the end; ``right`` shrinks first, then goes."""
    left_width = sum(text_width(text) for text, _ in left)
    right_width = sum(text_width(text) for text, _ in right)
    if left_width + 2 + right_width <= width:
        gap = " " * (width - left_width - right_width)
        return _fit(left, width, theme) + gap + _fit(right, right_width, theme)
    room = width - left_width - 2
    if room >= 12:
        return _fit(left, left_width, theme) + "  " + _fit(right, room, theme)
    return _fit(left, width, theme)
