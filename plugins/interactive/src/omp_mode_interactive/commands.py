"""The mode's own slash commands. Commands that plugins own (/tree /branch /fork /name
/export from the sessions plugin, /compact from the kernel, every plugin command) run
through the session; the mode adds pickers where they are called without arguments."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING, Any, cast

from omp import THINKING_LEVELS, OmpError, thinking_levels

from omp_mode_interactive.keys import HOTKEYS

if TYPE_CHECKING:
    from omp import AgentSession, Command, ThinkingLevel

MODE_COMMANDS = {
    "help": "list commands and keys",
    "model": "pick the model (/model NAME sets it)",
    "thinking": "pick the thinking level (/thinking LEVEL sets it)",
    "new": "start a new session",
    "resume": "pick a session of this directory to continue (/resume ID)",
    "session": "this session: file, id, message counts, tokens and cost",
    "hotkeys": "list the keyboard shortcuts",
    "reload": "restart with plugins and settings read again, in this session",
    "copy": "copy the last answer to the clipboard",
    "quit": "exit omp",
    "exit": "exit omp",
}
PICKERS = {"resume"}
"""The mode's commands that a plugin's command of the same name serves when given an id."""
PLUGIN_PICKERS = {"fork"}
"""Plugin commands the mode opens a picker for when they are given no arguments."""


class ModeCommands:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.session: AgentSession = app.session

    def _plugin_commands(self) -> dict[str, Command]:
        """The session's slash commands (every plugin's), by name."""
        return {command.name: command for command in self.session.commands}

    def handles(self, text: str) -> bool:
        if not text.startswith("/"):
            return False
        name, _, args = text[1:].partition(" ")
        if name in PLUGIN_PICKERS:
            return not args.strip() and name in self._plugin_commands()
        if name in PICKERS and args.strip() and name in self._plugin_commands():
            return False
        return name in MODE_COMMANDS

    def all_commands(self) -> list[tuple[str, str]]:
        """(name, description) of every slash command, the mode's and the plugins'."""
        found = dict(MODE_COMMANDS)
        for command in self.session.commands:
            found.setdefault(command.name, command.description)
        return sorted(found.items())

    async def run(self, text: str) -> None:
        name, _, args = text[1:].partition(" ")
        await getattr(self, f"_{name}")(args.strip())

    # -- the commands --------------------------------------------------------------

    async def _help(self, args: str) -> None:
        plugin = {n: c for n, c in self._plugin_commands().items() if n not in MODE_COMMANDS}
        lines = ["commands:"]
        lines += [f"  /{name:<12} {text}" for name, text in MODE_COMMANDS.items() if name != "exit"]
        if plugin:
            lines.append("plugin commands:")
            for name, command in sorted(plugin.items()):
                hint = f" {command.argument_hint}" if command.argument_hint else ""
                lines.append(f"  /{name + hint:<12} {command.description}")
        lines.append("!cmd runs a shell command (its output goes to the model); !!cmd keeps it out")
        lines.append("@path attaches a file; /hotkeys lists the keys")
        self.app.notify("\n".join(lines))

    async def _hotkeys(self, args: str) -> None:
        lines = [f"  {keys:<20} {what}" for keys, what in HOTKEYS]
        lines += [f"  {s.key:<20} {s.description}" for s in self.app.shortcuts]
        self.app.notify("keys:\n" + "\n".join(lines))

    async def _model(self, args: str) -> None:
        if not args:
            choices = [
                {"label": key, "description": text} for key, text in self.app.model_choices()
            ]
            args = await self.app.dialogs.select("Model", choices, guard=False) or ""
            if not args:
                return
        try:
            await self.session.set_model(args)
        except OmpError:
            self.app.notify(f"cannot use model {args!r} (`omp models` lists them)", "error")
            return
        model = self.session.model
        self.app.notify(f"model: {model.key if model else args}")

    async def _thinking(self, args: str) -> None:
        model = self.session.model
        if model is not None and not model.reasoning and args != "off":
            self.app.notify(f"{model.key} does not think; thinking stays off", "warning")
            return
        if not args:
            current = self.session.thinking_level
            offered = thinking_levels(model)
            ordered = [current, *(lvl for lvl in offered if lvl != current)]
            args = await self.app.dialogs.select("Thinking level", ordered, guard=False) or ""
            if not args:
                return
        if args not in THINKING_LEVELS:
            self.app.notify(
                f"unknown thinking level {args!r}; use one of {', '.join(THINKING_LEVELS)}",
                "error",
            )
            return
        await self.session.set_thinking_level(cast("ThinkingLevel", args))
        self.app.notify(f"thinking: {args}")

    async def _new(self, args: str) -> None:
        change = await self.session.new()
        if not change.cancelled:
            self.app.notify("new session")

    def _answering(self, command: str) -> bool:
        """Whether an answer is streaming (then ``command`` is refused in one notice)."""
        if not self.session.is_streaming:
            return False
        self.app.notify(f"{command} waits for the answer to end (Esc stops it)", "warning")
        return True

    async def _resume(self, args: str) -> None:
        from omp import list_sessions, sessions_dir

        if self._answering("/resume"):
            return
        session = self.session
        if session.agent_dir is None:
            self.app.notify(f"no other saved sessions for {session.cwd}")
            return
        directory = sessions_dir(
            session.agent_dir, str(session.cwd), session.settings.get("sessionDir")
        )
        current = session.session_file
        infos = [
            i
            for i in list_sessions(directory, children=True)
            if current is None or i.path != current
        ]
        if not infos:
            self.app.notify(f"no other saved sessions for {self.session.cwd}")
            return
        options = [
            {
                "label": "  " * info.depth
                + ("↳ " if info.depth else "")
                + f"{info.id[:8]}  {info.title[:60]}",
                "description": f"{info.modified:%Y-%m-%d %H:%M} · {info.message_count} messages",
            }
            for info in infos[:200]
        ]
        chosen = await self.app.dialogs.select("Resume a session", options, guard=False)
        if not chosen:
            return
        info = infos[[o["label"] for o in options].index(chosen)]
        if "resume" in self._plugin_commands():
            await self.session.prompt(f"/resume {info.id}")
        else:
            await self.session.switch(info.path)

    async def _fork(self, args: str) -> None:
        """Like pi's /fork: a new session from before an earlier prompt (its text put
        back in the editor), or from here with the whole conversation."""
        if self._answering("/fork"):
            return
        entries = self.session.session_view.branch_entries()
        prompts = [e for e in entries if _user_text(e) is not None][::-1]
        if not prompts:
            await self.session.prompt("/fork")
            return
        here = {"label": "here", "description": "the whole conversation so far"}
        options = [here] + [
            {"label": f"{entry['id'][:8]}  {_one_line(_user_text(entry) or '')[:70]}"}
            for entry in prompts
        ]
        chosen = await self.app.dialogs.select("Fork from before a prompt", options, guard=False)
        if not chosen:
            return
        if chosen == here["label"]:
            await self.session.prompt("/fork")
            return
        entry = prompts[[o["label"] for o in options].index(chosen) - 1]
        await self.session.prompt(f"/fork {entry['id']}")

    async def _session(self, args: str) -> None:
        session = self.session
        roles: dict[str, int] = {}
        for message in session.messages:
            roles[message.role] = roles.get(message.role, 0) + 1
        totals = session.usage_totals()
        view = session.session_view
        lines = [
            f"file: {session.session_file or '(in memory)'}",
            f"id: {session.session_id}",
        ]
        if view.name:
            lines.append(f"name: {view.name}")
        lines.append(
            "messages: "
            + (", ".join(f"{count} {role}" for role, count in sorted(roles.items())) or "none")
        )
        lines.append(
            f"tokens: {totals.input} in, {totals.output} out, "
            f"{totals.cache_read} cache read, {totals.cache_write} cache write"
        )
        cost = f"${totals.cost:.4f}"
        if totals.unpriced:
            cost += f" (+{totals.unpriced} unpriced responses)"
        lines.append(f"cost: {cost}")
        model = session.model
        lines.append(f"model: {model.key if model else 'none'} ({session.thinking_level})")
        self.app.notify("\n".join(lines))

    async def _copy(self, args: str) -> None:
        last = next(
            (m for m in reversed(self.session.messages) if m.role == "assistant" and m.text),
            None,
        )
        if last is None:
            self.app.notify("nothing to copy yet", "warning")
            return
        how = copy_to_clipboard(last.text, self.app.write_raw)
        self.app.notify(f"copied the last answer ({len(last.text)} characters, {how})")

    async def _reload(self, args: str) -> None:
        path = self.session.session_file
        if path is None:
            self.app.notify("/reload needs a saved session (this one is in memory)", "error")
            return
        self.app.reload_with(reexec_argv(sys.argv, str(path)))

    async def _quit(self, args: str) -> None:
        self.app.exit()

    _exit = _quit


def _user_text(entry: dict[str, Any]) -> str | None:
    """A user message entry's text (None for any other entry)."""
    message = entry.get("message") or {}
    if entry.get("type") != "message" or message.get("role") != "user":
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def _one_line(text: str) -> str:
    return " ".join(text.split())


RELOADED_ENV = "OMP_INTERACTIVE_RELOADED"
_SESSION_FLAGS = {"--session", "--resume", "-r", "--fork"}


def reexec_argv(argv: list[str], session_path: str) -> list[str]:
    """The command line that starts again in ``session_path``: every flag kept but
    the session choices (the started process skips the prompts, see RELOADED_ENV)."""
    kept: list[str] = []
    words = iter(argv[1:])
    for word in words:
        flag = word.split("=", 1)[0]
        if flag in _SESSION_FLAGS:
            if "=" not in word:
                following = next(words, None)
                if following is not None and following.startswith("-"):
                    kept.append(following)
            continue
        if word in ("-c", "--continue", "--no-session"):
            continue
        kept.append(word)
    return [argv[0], *kept, "--session", session_path]


def copy_to_clipboard(text: str, write_raw: Any) -> str:
    """Copy through a clipboard program when there is one, and always through the
    terminal (OSC 52, which also works over ssh and in tmux)."""
    for program in (["wl-copy"], ["xclip", "-selection", "clipboard"], ["pbcopy"]):
        if shutil.which(program[0]) and (
            os.environ.get("DISPLAY")
            or os.environ.get("WAYLAND_DISPLAY")
            or sys.platform == "darwin"
        ):
            try:
                subprocess.run(program, input=text.encode(), timeout=2, check=True)
                return program[0]
            except (OSError, subprocess.SubprocessError):
                pass
    encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
    write_raw(f"\x1b]52;c;{encoded}\x07")
    return "terminal clipboard"
