"""Recorded event streams and a screen that keeps what the transcript printed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omp_mode_interactive.render import Theme, Transcript
from omp_mode_interactive.render.width import strip_ansi, text_width


@dataclass
class Recording:
    """The events of one scripted session run, as subscribers received them."""

    events: list[Any]
    renderers: dict[tuple[str, str], Any]

    @property
    def messages(self) -> list[Any]:
        return [e for e in self.events if e.type == "agent_end"][-1].messages


def record(
    harness: Any, steps: list[dict[str, Any]], prompt: str = "go", **files: str
) -> Recording:
    for name, text in files.items():
        (harness.cwd / name).write_text(text)
    session = harness.session(script=steps)
    log = harness.run(session, prompt)
    return Recording(list(log), dict(session.renderers))


@dataclass
class Screen:
    """A transcript writing into a list, as a terminal's scrollback would keep it."""

    width: int = 80
    theme: Theme = field(default_factory=Theme.dark)
    renderers: dict[tuple[str, str], Any] = field(default_factory=dict)
    show_thinking: bool = True
    tools: Any = None
    """An omp.runtime.tool_render.ToolRendering, to draw tools with their own renderers."""
    chunks: list[str] = field(default_factory=list)
    lives: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.transcript = Transcript(
            self.width,
            self.theme,
            self.renderers,
            self.show_thinking,
            self.chunks.append,
            tools=self.tools,
        )

    def play(self, events: list[Any], watch_live: bool = True) -> Screen:
        for event in events:
            self.transcript.handle(event)
            if watch_live:
                self.lives.append(self.transcript.live())
        return self

    @property
    def raw(self) -> str:
        return "".join(self.chunks)

    @property
    def text(self) -> str:
        """What a user reads in the scrollback."""
        return strip_ansi(self.raw)

    def widest(self) -> int:
        lines = self.text.split("\n") + [
            line for live in self.lives for line in strip_ansi(live).split("\n")
        ]
        return max(text_width(line) for line in lines)


def answer_events(text: str, piece: int = 4) -> list[Any]:
    """An assistant answer streamed ``piece`` characters at a time (about a token), as
    the agent loop sends it: message_start, text deltas, message_end."""
    from omp import AssistantStream, MessageEndEvent, MessageStartEvent, MessageUpdateEvent, Model

    out = AssistantStream(Model(provider="scripted", id="demo"))
    events: list[Any] = [MessageStartEvent(message=out.message)]

    def update(event: dict[str, Any]) -> None:
        events.append(MessageUpdateEvent(message=out.message, assistant_message_event=event))

    update(out.text_start())
    for start in range(0, len(text), piece):
        update(out.text_delta(text[start : start + piece]))
    update(out.text_end())
    out.done("stop")
    events.append(MessageEndEvent(message=out.message))
    return events
