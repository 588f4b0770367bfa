"""The ordinary commands of §2.3: each takes the server and the command frame and
returns the response's ``data`` (``NO_DATA`` leaves it out). A failure raises: the
server answers ``success:false`` with the message (and ``code`` for an RpcError)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from omp import OmpError

from omp_mode_rpc import state
from omp_mode_rpc.slash import available_commands
from omp_mode_rpc.state import NO_DATA, RpcError
from omp_mode_rpc.tuning import TUNING

if TYPE_CHECKING:
    from omp import SessionChange

    from omp_mode_rpc.server import RpcServer

BUSY_PROMPT = (
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') "
    "to queue the message."
)
Handler = Callable[["RpcServer", dict[str, Any]], Awaitable[Any]]


def _text(frame: dict[str, Any], key: str = "message") -> str:
    value = frame.get(key)
    if not isinstance(value, str):
        raise OmpError(f"`{key}` must be a string")
    return value


def _images(frame: dict[str, Any]) -> list[dict[str, Any]] | None:
    """``images``: omp's ImageContent list, checked before the prompt is accepted."""
    images = frame.get("images")
    if images is None:
        return None
    shape = '`images` must be a list of {"type": "image", "data": <base64>, "mimeType": ...}'
    if not isinstance(images, list):
        raise OmpError(shape)
    for image in images:
        if (
            not isinstance(image, dict)
            or image.get("type", "image") != "image"
            or not isinstance(image.get("data"), str)
            or not isinstance(image.get("mimeType"), str)
        ):
            raise OmpError(shape)
    return images


# -- prompting ------------------------------------------------------------------------


async def prompt(server: RpcServer, frame: dict[str, Any]) -> Any:
    message, images = _text(frame), _images(frame)
    behaviour = frame.get("streamingBehavior")
    if server.is_busy():
        if behaviour not in ("steer", "followUp"):
            raise OmpError(BUSY_PROMPT)
        server.queue_message(message, images, behaviour)
    else:
        server.start_prompt(frame.get("id"), "prompt", message, images)
    return NO_DATA


async def steer(server: RpcServer, frame: dict[str, Any]) -> Any:
    return await _queued(server, frame, "steer")


async def follow_up(server: RpcServer, frame: dict[str, Any]) -> Any:
    return await _queued(server, frame, "followUp")


async def _queued(
    server: RpcServer, frame: dict[str, Any], behaviour: Literal["steer", "followUp"]
) -> Any:
    message, images = _text(frame), _images(frame)
    if server.is_busy():
        server.queue_message(message, images, behaviour)
    else:
        server.start_prompt(frame.get("id"), frame["type"], message, images)
    return NO_DATA


async def abort(server: RpcServer, frame: dict[str, Any]) -> Any:
    """Answered once the session is idle, so a prompt sent next is not refused as busy."""
    await server.abort_and_wait()
    return NO_DATA


async def abort_and_prompt(server: RpcServer, frame: dict[str, Any]) -> Any:
    message, images = _text(frame), _images(frame)
    await server.abort_and_wait()
    server.start_prompt(frame.get("id"), "abort_and_prompt", message, images)
    return NO_DATA


def _changed(server: RpcServer, data: dict[str, Any]) -> dict[str, Any]:
    """As omp: a session change that went ahead announces the commands again, and
    forgets the subagents of the session it left."""
    if not data["cancelled"]:
        server.announce_commands()
        server.subagents.clear()
    return data


async def new_session(server: RpcServer, frame: dict[str, Any]) -> Any:
    await server.abort_and_wait()
    change: SessionChange = await server.session.new(frame.get("parentSession"))
    return _changed(server, {"cancelled": change.cancelled})


async def switch_session(server: RpcServer, frame: dict[str, Any]) -> Any:
    path = _text(frame, "sessionPath")
    await server.abort_and_wait()
    change = await server.session.switch(path)
    return _changed(server, {"cancelled": change.cancelled})


async def branch(server: RpcServer, frame: dict[str, Any]) -> Any:
    """omp's branch: a new session holding the path before a user message, whose text
    comes back for the client's editor."""
    entry_id = _text(frame, "entryId")
    entry = server.session.session_view.get_entry(entry_id)
    message = entry.get("message") if entry and entry.get("type") == "message" else None
    if not isinstance(message, dict) or message.get("role") != "user":
        raise OmpError(f"Invalid entry ID for branching: {entry_id}")
    await server.abort_and_wait()
    change = await server.session.fork(entry_id, "before")
    text = change.editor_text or state._text(message.get("content"))
    return _changed(server, {"text": text, "cancelled": change.cancelled})


async def get_state(server: RpcServer, frame: dict[str, Any]) -> Any:
    return state.get_state(server.session, server.compacting, server.tokens_per_second())


# -- bash -----------------------------------------------------------------------------


async def bash(server: RpcServer, frame: dict[str, Any]) -> Any:
    server.bash.start(frame.get("id"), _text(frame, "command"))
    return server.DEFERRED


async def abort_bash(server: RpcServer, frame: dict[str, Any]) -> Any:
    server.bash.abort()
    return NO_DATA


# -- session --------------------------------------------------------------------------


async def get_session_stats(server: RpcServer, frame: dict[str, Any]) -> Any:
    return state.session_stats(server.session)


async def export_html(server: RpcServer, frame: dict[str, Any]) -> Any:
    """Through the ``/export`` command (the sessions-command plugin), when installed."""
    session = server.session
    if not any(command.name == "export" for command in session.commands):
        raise OmpError(
            "export_html is not available: no installed plugin provides /export "
            "(install omp-sessions-command)"
        )
    if session.session_file is None or not session.session_file.exists():
        raise OmpError("nothing to export: this session is not saved to a file")
    given = frame.get("outputPath") or f"{session.session_id[:8]}.html"
    target = session.cwd / Path(str(given)).expanduser()
    # The client names the file and asks again as the session grows: omp overwrites it.
    await session.run_command("export", f"{target} --force")
    return {"path": str(target)}


async def get_branch_messages(server: RpcServer, frame: dict[str, Any]) -> Any:
    return {"messages": state.branch_messages(server.session)}


async def get_last_assistant_text(server: RpcServer, frame: dict[str, Any]) -> Any:
    return {"text": state.last_assistant_text(server.session)}


async def set_session_name(server: RpcServer, frame: dict[str, Any]) -> Any:
    name = frame.get("name")
    if not isinstance(name, str) or not name.strip():
        raise OmpError("Session name cannot be empty")
    server.session.context.api.set_session_name(name)
    return NO_DATA


async def get_messages(server: RpcServer, frame: dict[str, Any]) -> Any:
    from omp import to_wire

    return {"messages": [to_wire(m) for m in server.session.messages]}


async def get_messages_page(server: RpcServer, frame: dict[str, Any]) -> Any:
    busy = server.is_busy() or server.compacting
    return state.messages_page(server.session, busy, frame.get("cursor"), frame.get("limit"))


async def get_available_commands(server: RpcServer, frame: dict[str, Any]) -> Any:
    return {"commands": available_commands(server.session)}


async def list_sessions(server: RpcServer, frame: dict[str, Any]) -> Any:
    """Not in omp's protocol: the sessions ``/resume`` lists (this directory's, newest
    first; every project's with ``all``), ``search`` words matching id, title or cwd."""
    from omp import list_all_sessions, list_sessions, sessions_dir

    search = frame.get("search")
    if search is not None and not isinstance(search, str):
        raise OmpError("search must be a string")
    session = server.session
    agent_dir = session.agent_dir
    if agent_dir is None:
        raise OmpError("list_sessions is not available: the session has no agent directory")
    if frame.get("all"):
        infos = list_all_sessions(agent_dir / "sessions", search)
    else:
        path = session.session_file
        directory = (
            path.parent
            if path
            else sessions_dir(agent_dir, str(session.cwd), session.settings.get("sessionDir"))
        )
        infos = list_sessions(directory, search)
    return {"sessions": [info.to_json() for info in infos]}


async def set_todos(server: RpcServer, frame: dict[str, Any]) -> Any:
    """The todo plugin keeps the list (in the session file) and answers on the event bus."""
    request: dict[str, Any] = {"set": frame.get("phases")}
    server.session.context.api.events.emit("todos.set", request)
    if "error" in request:
        raise RpcError(f"invalid phases: {request['error']}")
    if "phases" not in request:  # nobody answered
        raise RpcError(
            "set_todos is not supported: no todo plugin is installed (omp-tool-todo)",
            "unsupported",
        )
    return {"todoPhases": request["phases"]}


async def set_host_tools(server: RpcServer, frame: dict[str, Any]) -> Any:
    return {"toolNames": server.host_tools.set_tools(frame.get("tools"))}


async def negotiate_protocol(server: RpcServer, frame: dict[str, Any]) -> Any:
    version = frame.get("protocolVersion")
    if version != 2:
        raise OmpError(f"Unsupported RPC protocol version: {version}")
    server.writer.protocol_version = 2
    return {"protocolVersion": 2}


async def set_subagent_subscription(server: RpcServer, frame: dict[str, Any]) -> Any:
    """Which subagent frames the client gets: ``off`` (the default), ``progress`` or
    ``events`` (see subagents.py)."""
    return server.subagents.set_level(frame.get("level"))


async def get_subagents(server: RpcServer, frame: dict[str, Any]) -> Any:
    return {"subagents": server.subagents.snapshots()}


def _missing(feature: str) -> Handler:
    async def handler(server: RpcServer, frame: dict[str, Any]) -> Any:
        raise RpcError(f"{frame['type']} is not supported: {feature}", "unsupported")

    return handler


COMMANDS: dict[str, Handler] = {
    name: globals()[name]
    for name in [
        "prompt",
        "steer",
        "follow_up",
        "abort",
        "abort_and_prompt",
        "new_session",
        "switch_session",
        "branch",
        "get_state",
        "bash",
        "abort_bash",
        "get_session_stats",
        "export_html",
        "get_branch_messages",
        "get_last_assistant_text",
        "set_session_name",
        "get_messages",
        "get_messages_page",
        "get_available_commands",
        "list_sessions",
        "set_todos",
        "set_host_tools",
        "negotiate_protocol",
        "set_subagent_subscription",
        "get_subagents",
    ]
}
COMMANDS.update(TUNING)
COMMANDS.update(
    {
        "set_host_uri_schemes": _missing("this project has no host URI schemes"),
        "get_subagent_messages": _missing("subagent transcripts are read with history://<id>"),
        "handoff": _missing("this project has no handoff"),
        "get_login_providers": _missing(
            "this project has no OAuth login (keys come from the environment)"
        ),
        "login": _missing("this project has no OAuth login (keys come from the environment)"),
    }
)
