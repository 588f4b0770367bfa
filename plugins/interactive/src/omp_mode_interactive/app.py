"""The interactive application: the session's events drawn as a transcript (finished
output printed into the terminal's scrollback, the changing tail drawn live), the
editor, queued messages, dialogs, the spinner and the footer. It runs on the public
``omp.AgentSession``, as any client would."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from omp import OmpError, python_module_command

from omp_mode_interactive.attachments import attach, dropped_image
from omp_mode_interactive.commands import RELOADED_ENV, ModeCommands
from omp_mode_interactive.completion import WorkspaceFiles, make_completer
from omp_mode_interactive.dialogs import Dialogs
from omp_mode_interactive.editor import Editor, history_path
from omp_mode_interactive.keys import REPORT_MODIFIED_KEYS, RESET_MODIFIED_KEYS
from omp_mode_interactive.scrollback import Scrollback
from omp_mode_interactive.status import StatusLine

if TYPE_CHECKING:
    from omp import AgentSession

    from omp_mode_interactive.terminal_ui import TerminalUI


class InteractiveApp:
    def __init__(
        self,
        session: AgentSession,
        request: Any,
        *,
        ui: TerminalUI | None = None,
        theme: Any = None,
        instant: Any = None,
    ) -> None:
        """``ui`` is the terminal UI already in front of ``session``; without one, a new
        one is put there."""
        from omp_mode_interactive.keys import build_key_bindings, teach_extended_keys
        from omp_mode_interactive.layout import build_application
        from omp_mode_interactive.render.theme import choose_theme
        from omp_mode_interactive.render.transcript import Transcript

        self.session = session
        self.request = request
        if ui is None:
            from omp_mode_interactive.terminal_ui import TerminalUI

            ui = TerminalUI()
            session.attach_client(ui=ui)
        self.ui = ui
        self.ui.app = self
        self.theme = theme if theme is not None else choose_theme(session.settings)
        self.instant = instant
        self.width = shutil.get_terminal_size().columns
        self.scrollback = Scrollback()
        self.transcript = Transcript(
            self.width,
            self.theme,
            session.renderers,
            show_thinking=not session.flags.get("hide-thinking"),
            emit=self.scrollback.write,
            tools=session.tool_rendering(),
        )
        self.dialogs = Dialogs(self, session.settings.get("interactive.dialogGuardMs", 400) / 1000)
        self.commands = ModeCommands(self)
        self.files = WorkspaceFiles(session)
        self.editor = Editor(
            history_path(session.agent_dir, str(session.cwd)),
            make_completer(self.commands.all_commands, self.model_choices, self.files),
        )
        self.status = StatusLine(self)
        self.shortcuts = session.shortcuts
        self.startup_problems: list[str] = []
        self.queued: tuple[list[str], list[str]] = ([], [])
        self.task: asyncio.Future[Any] | None = None
        self.waiting: list[str] = []
        self.exit_armed_at = 0.0
        self._flash: tuple[str, float] | None = None
        self._reload: list[str] | None = None
        self._tasks: set[asyncio.Future[Any]] = set()
        self._starting: asyncio.Future[None] | None = None
        self._abort_pending = False
        teach_extended_keys()
        self.application = build_application(self, build_key_bindings(self))
        self.scrollback.application = self.application
        self.application.before_render += self._before_render

    # -- running ------------------------------------------------------------------------

    async def run(self) -> int:
        if self.instant is not None:
            self.instant.release()
        self.session.subscribe(self.on_event)
        for problem in self.startup_problems:
            self.notify(problem, "warning")
        messages = self.session.messages
        if messages:
            self.transcript.replay(messages)
        self.show_title()
        try:
            with self.scrollback.capturing():
                code = await self.application.run_async(pre_run=self._started, handle_sigint=False)
        finally:
            self.write_raw(RESET_MODIFIED_KEYS)
            await self._stop_work()
            self.transcript.flush()
            self.scrollback.write_pending()
        if self._reload is not None:
            _reexec_at_exit(self._reload)
        return int(code or 0)

    def _started(self) -> None:
        """The prompt is drawn: the session starts now (its hooks may take a moment),
        and what the command line asked for runs once it has started."""
        self.write_raw(REPORT_MODIFIED_KEYS)
        self.status.start()
        threading.Thread(target=self._warm_up, name="omp-warm-up", daemon=True).start()
        self._starting = asyncio.ensure_future(self.session.start())
        prompts = [] if os.environ.pop(RELOADED_ENV, None) else list(self.request.prompts)
        if getattr(self.request, "pick_session", False):
            self.spawn(self.commands.run("/resume"))
        for prompt in prompts:
            self.waiting.append(prompt)
        self._next_waiting()

    def _warm_up(self) -> None:
        """rich and Pygments load while the user types, not on the first answer."""
        try:
            self.transcript.warm_up()
        except Exception:  # the first answer loads them again and reports what fails
            pass

    async def _stop_work(self) -> None:
        if self._starting is not None:
            await asyncio.gather(self._starting, return_exceptions=True)
        if self.task is not None and not self.task.done():
            self.session.abort()
            await asyncio.gather(self.task, return_exceptions=True)
        for task in list(self._tasks):
            task.cancel()
        self.status.stop()

    def spawn(self, work: Any) -> asyncio.Future[Any]:
        task = asyncio.ensure_future(self._guarded(work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _guarded(self, work: Any) -> None:
        try:
            if self._starting is not None:
                await self._starting
            await work
        except OmpError as exc:
            self.notify(str(exc), "error")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a broken command must not end the application
            self.notify(f"{type(exc).__name__}: {exc}", "error")
        finally:
            self.show_title()
            self.invalidate()

    @property
    def working(self) -> bool:
        return self.task is not None and not self.task.done()

    def exit(self) -> None:
        if self.application.is_running and not self.application.future.done():
            self.application.exit(result=0)

    def reload_with(self, argv: list[str]) -> None:
        self._reload = argv
        self.exit()

    # -- input ----------------------------------------------------------------------------

    def submit(self, follow_up: bool = False) -> None:
        if not self.editor.text.strip():
            return
        text = self.editor.take()
        if self.commands.handles(text):
            self.spawn(self.commands.run(text))
        elif self.working and self.agent_running and not text.startswith("/"):
            self.session.queue(text, deliver_as="followUp" if follow_up else "steer")
        elif self.working:
            self.waiting.append(text)
            self.flash("queued until the current command finishes", 3)
        else:
            self._start(text)
        self.invalidate()

    def paste(self, data: str) -> None:
        """A pasted or dragged image file's path becomes an ``@path`` attachment."""
        image = dropped_image(data, str(self.session.cwd))
        if image is None:
            self.editor.paste(data)
            return
        before = self.editor.buffer.document.char_before_cursor
        self.editor.buffer.insert_text(("" if before in ("", " ", "\n") else " ") + image + " ")
        self.flash(f"image attached when sent: {image[1:]}", 3)

    def _start(self, text: str) -> None:
        self.task = self.spawn(self._prompt(text))
        self.task.add_done_callback(lambda _: self._after_prompt())

    async def _prompt(self, text: str) -> None:
        images = None
        if not text.startswith(("/", "!", "$")):
            model = self.session.model
            accepts = model is not None and "image" in model.input
            text, found, problems = attach(text, str(self.session.cwd), accepts)
            images = found or None
            for problem in problems:
                self.notify(problem, "warning")
        await self.session.prompt(text, images)
        await self.session.wait_for_idle()

    def _after_prompt(self) -> None:
        self._abort_pending = False
        if self.session.shutdown_requested:
            self.exit()
            return
        self._restore_unsent()
        self._next_waiting()

    def _next_waiting(self) -> None:
        while self.waiting and not self.working:
            text = self.waiting.pop(0)
            if self.commands.handles(text):
                self.spawn(self.commands.run(text))
            else:
                self._start(text)

    def _restore_unsent(self) -> None:
        """Queued messages a stopped run never delivered go back into the editor."""
        unsent = [m for m in self.session.queued_messages if getattr(m, "role", "") == "user"]
        if not unsent:
            return
        self.session.clear_queue()
        self.queued = ([], [])
        texts = [m.content if isinstance(m.content, str) else "" for m in unsent]
        current = self.editor.text
        self.editor.set_text("\n".join(t for t in [*texts, current] if t))
        self.flash("queued messages returned to the editor", 4)

    def abort(self) -> None:
        """Stop the run; pressed before the agent started streaming, it stops the run
        as soon as it starts (the agent makes its abort signal then)."""
        self._abort_pending = not self.agent_running
        self.session.abort()
        self.flash("aborting…", 2)

    @property
    def agent_running(self) -> bool:
        """The agent loop runs (a steer or follow-up reaches it), not only a prompt's
        input hooks or a slash command."""
        return not self.session.context.is_idle()

    def run_shortcut(self, handler: Any) -> None:
        async def call() -> None:
            outcome = handler(self.session.context)
            if asyncio.iscoroutine(outcome) or isinstance(outcome, asyncio.Future):
                await outcome

        self.spawn(call())

    # -- models and thinking ------------------------------------------------------------

    def model_choices(self) -> list[tuple[str, str]]:
        """(key, description) of the models that can be used now, the current first."""
        usable = self.session.usable_models()
        current = self.session.model
        usable.sort(key=lambda m: (current is None or m.key != current.key, m.key))
        return [(m.key, m.name or "") for m in usable]

    def cycle_model(self) -> None:
        """The next of ``--models`` (the session's scoped models), else of every
        model that can be used now."""
        scoped = [m.key for m in self.session.scoped_models]
        keys = scoped or sorted(key for key, _ in self.model_choices())
        current = self.session.model
        if not keys or (len(keys) == 1 and current is not None and keys[0] == current.key):
            self.flash("no other model to cycle to (--models a,b sets the cycle)", 3)
            return
        position = keys.index(current.key) if current and current.key in keys else -1
        self.spawn(
            self._cycle_model([keys[(position + s) % len(keys)] for s in range(1, len(keys) + 1)])
        )

    async def _cycle_model(self, candidates: list[str]) -> None:
        for candidate in candidates:
            try:
                await self.session.set_model(candidate, source="cycle")
            except OmpError:
                continue
            self.flash(f"model: {candidate}", 3)
            return
        self.flash("no other model can be used", 3)

    def cycle_thinking(self) -> None:
        model = self.session.model
        if model is not None and not model.reasoning:
            self.flash(f"{model.key} does not think; thinking stays off", 3)
            return
        level = self.session.cycle_thinking_level()
        if level is None:
            self.flash("no other thinking level to cycle to", 3)
            return
        self.flash(f"thinking: {level}", 3)

    def toggle_thinking(self) -> None:
        shown = not self.transcript.show_thinking
        self.transcript.set_show_thinking(shown)
        self.flash("thinking shown" if shown else "thinking hidden", 2)

    # -- events -------------------------------------------------------------------------

    def on_event(self, event: Any) -> None:
        kind = event.type
        if kind == "agent_start":
            self.status.begin()
            if self._abort_pending:
                self._abort_pending = False
                self.session.abort()
        elif kind == "agent_end":
            self.status.end()
        elif kind == "queue_update":
            self.queued = (list(event.steering), list(event.follow_up))
        self.transcript.handle(event)
        self.invalidate()

    def session_switched(self, reason: str) -> None:
        self.scrollback.write(self.theme.paint(f"── {reason} session ──", "dim"))
        self.transcript.replay(self.session.messages)
        self.show_title()

    def notify(self, message: str, level: str = "info") -> None:
        from omp import NoticeEvent

        self.transcript.handle(NoticeEvent(level=level, message=message))  # type: ignore[arg-type]
        self.invalidate()

    def flash(self, text: str, seconds: float) -> None:
        self._flash = (text, time.monotonic() + seconds)
        self.invalidate()

    def write_raw(self, data: str) -> None:
        self.application.output.write_raw(data)
        self.application.output.flush()

    # -- drawing --------------------------------------------------------------------------

    def invalidate(self) -> None:
        if self.application.is_running:
            self.application.invalidate()

    def focus_current(self) -> None:
        if not self.application.is_running:
            return
        dialog = self.dialogs.current
        layout = self.application.layout
        if dialog is None:
            layout.focus(self.editor_window)
            return
        if getattr(dialog, "container", None) is None:
            from omp_mode_interactive.layout import dialog_container

            dialog.container = dialog_container(self.dialogs, dialog)
        layout.focus(dialog.focus)

    def show_title(self) -> None:
        name = self.ui.title or self.session.session_view.name
        title = f"omp: {name}" if name else f"omp: {self.session.cwd.name or '/'}"
        if self.application.is_running:
            self.application.output.set_title(title)
        elif sys.stdout.isatty():
            sys.stdout.write(f"\x1b]0;{title}\x07")

    def _before_render(self, _: Any) -> None:
        width = self.application.output.get_size().columns
        if width != self.width:
            self.width = width
            self.transcript.resize(width)

    def live_text(self) -> str:
        return self.transcript.live()

    def widget_text(self) -> str:
        lines = [line for widget in self.ui.widgets.values() for line in widget]
        return "\n".join(lines)

    def queue_text(self) -> str:
        steering, follow_up = self.queued
        lines = [self.theme.paint(f"↳ steer: {t}", "muted") for t in steering]
        lines += [self.theme.paint(f"↳ follow-up: {t}", "muted") for t in follow_up]
        lines += [self.theme.paint(f"↳ waiting: {t}", "muted") for t in self.waiting]
        return "\n".join(lines)

    def spinner_text(self) -> str:
        return self.status.spinner()

    def hint_text(self) -> str:
        if self._flash is None:
            return ""
        text, until = self._flash
        if time.monotonic() > until:
            self._flash = None
            return ""
        return self.theme.paint(text, "muted")

    def footer_text(self) -> str:
        return self.status.footer(self.width)


def _reexec_at_exit(argv: list[str]) -> None:
    """Start again once this process has shut the session down (its lock released)."""
    import atexit

    def again() -> None:
        sys.stdout.flush()
        os.environ[RELOADED_ENV] = "1"
        command = python_module_command("omp", *argv[1:])
        os.execv(command[0], command)

    atexit.register(again)
