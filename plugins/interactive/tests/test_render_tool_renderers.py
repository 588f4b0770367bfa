"""The transcript draws a tool with its own ``render_call``/``render_result``
(omp.runtime.tool_render): while it runs, when it ends, and for an override that lends the
replaced tool's renderers (issue 25, gap 7)."""

from __future__ import annotations

from omp import (
    Tool,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    ToolRegistry,
    ToolRendering,
    ToolResult,
)
from omp_mode_interactive.render.width import strip_ansi
from pydantic import BaseModel
from render_screen import Screen


class Job(BaseModel):
    name: str


def progress(result, options):
    state = "running" if options.get("partial") else "finished"
    return f"{state}: {result.content[0].text} ({options['args']['name']})"


def job_tool(**renderers) -> Tool:
    return Tool(name="job", parameters=Job, execute=lambda *a: "ok", **renderers)


def events(partial: str, final: str):
    return [
        ToolExecutionStartEvent(tool_call_id="c1", tool_name="job", args={"name": "build"}),
        ToolExecutionUpdateEvent(
            tool_call_id="c1", tool_name="job", partial_result=ToolResult.text(partial)
        ),
        ToolExecutionEndEvent(
            tool_call_id="c1", tool_name="job", result={"content": ToolResult.text(final).content}
        ),
    ]


def test_a_running_and_a_finished_tool_use_its_renderers():
    tool = job_tool(render_call=lambda args, o: f"Job {args['name']}", render_result=progress)
    screen = Screen(tools=ToolRendering(ToolRegistry([tool])))
    start, update, end = events("50%", "all done")
    screen.transcript.handle(start)
    screen.transcript.handle(update)
    live = strip_ansi(screen.transcript.live())
    assert live == "● Job build\n  ⎿  running: 50% (build)"
    screen.transcript.handle(end)
    assert "● Job build\n  ⎿  finished: all done (build)" in screen.text


def test_an_override_without_renderers_uses_those_of_the_tool_it_replaced():
    original = job_tool(render_call=lambda args, o: f"Job {args['name']}")
    override = job_tool(overrides="job")
    tools = ToolRegistry([override], replaced={"job": ("base", original)})
    reports = []
    screen = Screen(tools=ToolRendering(tools, lambda *a: reports.append(a)))
    for event in events("50%", "all done"):
        screen.transcript.handle(event)
    assert "● Job build\n  ⎿  all done" in screen.text
    assert reports == []


def test_a_renderer_returning_something_else_is_reported_and_the_default_shown():
    tool = job_tool(render_result=lambda result, o: 42)
    reports = []
    tools = ToolRegistry([tool], owners={"job": "jobs-plugin"})
    screen = Screen(tools=ToolRendering(tools, lambda *a: reports.append(a)))
    screen.play(events("50%", "all done"))
    assert "● job name=build\n  ⎿  all done" in screen.text
    assert reports[-1] == (
        "jobs-plugin",
        "render_result",
        "tool 'job': TypeError: a renderer returns a string or a list of lines, not int",
    )
