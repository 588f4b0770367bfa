"""What a client in front of a session (a protocol server, an editor) tunes and runs
besides prompting, as members of ``omp.AgentSession``: the message queue and its modes,
automatic compaction and retry, slash commands and the user's shell. (What it reads is
in ``omp.runtime.sdk_client``; the rest of ``ctx`` is ``AgentSession.context``.)"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

from omp.base.errors import OmpError

if TYPE_CHECKING:
    from omp.agent.events import UserShellRun
    from omp.agent.messages import ImageContent
    from omp.base.abort import AbortSignal
    from omp.runtime.session import AgentSession as RuntimeSession

QueueMode = Literal["all", "one-at-a-time"]
"""``steeringMode`` / ``followUpMode``: deliver every queued message at once, or one a turn."""

InterruptMode = Literal["immediate", "wait"]
"""``interruptMode``: a steering message skips the tools still queued, or waits for them."""

QUEUE_MODES: tuple[QueueMode, ...] = ("all", "one-at-a-time")
INTERRUPT_MODES: tuple[InterruptMode, ...] = ("immediate", "wait")


class SessionControls:
    """Mixed into ``omp.AgentSession``: the queue and its modes, automatic compaction and
    retry, running a slash command or a user shell command."""

    _session: RuntimeSession

    if TYPE_CHECKING:

        def _live(self) -> RuntimeSession: ...

    # -- the queues -------------------------------------------------------------------

    def queue(
        self,
        text: str,
        images: Sequence[ImageContent] | None = None,
        *,
        deliver_as: Literal["steer", "followUp"] = "steer",
    ) -> None:
        """Queue ``text`` for the running prompt, or for the next one when idle (it
        starts none), delivered as ``steer`` or ``follow_up`` would: for a client that
        decides itself when to queue (see ``queued_messages``, ``clear_queue``)."""
        from omp.agent.messages import TextContent, UserMessage

        if deliver_as not in ("steer", "followUp"):
            raise OmpError(f"unknown delivery {deliver_as!r}; use steer or followUp")
        content: str | list[TextContent | ImageContent] = (
            [TextContent(text=text), *images] if images else text
        )
        agent = self._live().agent
        message = UserMessage(content=content)
        (agent.steer if deliver_as == "steer" else agent.queue_follow_up)(message)

    @property
    def steering_mode(self) -> QueueMode:
        """How queued steering messages are delivered (``steeringMode``); settable for
        this session."""
        return cast("QueueMode", self._session.agent.settings.steering_mode)

    @steering_mode.setter
    def steering_mode(self, mode: QueueMode) -> None:
        self._session.agent.settings.steering_mode = _checked("steering", mode, QUEUE_MODES)

    @property
    def follow_up_mode(self) -> QueueMode:
        """How queued follow-up messages are delivered (``followUpMode``); settable."""
        return cast("QueueMode", self._session.agent.settings.follow_up_mode)

    @follow_up_mode.setter
    def follow_up_mode(self, mode: QueueMode) -> None:
        self._session.agent.settings.follow_up_mode = _checked("follow-up", mode, QUEUE_MODES)

    @property
    def interrupt_mode(self) -> InterruptMode:
        """When a steering message interrupts (``interruptMode``); settable."""
        return cast("InterruptMode", self._session.agent.settings.interrupt_mode)

    @interrupt_mode.setter
    def interrupt_mode(self, mode: InterruptMode) -> None:
        checked = _checked("interrupt", mode, INTERRUPT_MODES)
        self._session.agent.settings.interrupt_mode = checked

    # -- compaction and retry ---------------------------------------------------------

    @property
    def auto_compaction_enabled(self) -> bool:
        """Whether the context is compacted on its own when it fills up
        (``compaction.enabled``); settable for this session."""
        return self._session.settings.get("compaction.enabled", True) is not False

    @auto_compaction_enabled.setter
    def auto_compaction_enabled(self, enabled: bool) -> None:
        self._set_setting("compaction", "enabled", bool(enabled))

    @property
    def auto_retry_enabled(self) -> bool:
        """Whether failed provider requests are retried (``retry.enabled``); settable
        for this session."""
        return self._session.settings.get("retry.enabled", True) is not False

    @auto_retry_enabled.setter
    def auto_retry_enabled(self, enabled: bool) -> None:
        self._set_setting("retry", "enabled", bool(enabled))

    def _set_setting(self, section: str, key: str, value: Any) -> None:
        data = self._session.settings.data  # shared with the loop's stream settings
        data[section] = {**(data.get(section) or {}), key: value}

    # -- commands and the user's shell ------------------------------------------------

    async def run_command(self, name: str, args: str = "") -> None:
        """Run the slash command ``name`` as ``/name args`` typed at the prompt does
        (no input hooks); OmpError when there is none, or when it failed (a failure
        other than OmpError is also reported as its plugin's ``extension_error``)."""
        from omp.runtime.commands import run_command

        session = self._live()
        command = session.commands.get(name)
        if command is None:
            raise OmpError(f"no slash command /{name}")
        failure = await run_command(session, command, args)
        if failure is not None:
            raise OmpError(failure)

    async def run_user_shell(
        self,
        kind: Literal["bash", "python"],
        code: str,
        *,
        exclude: bool = False,
        signal: AbortSignal | None = None,
    ) -> UserShellRun:
        """Run ``code`` as the user's ``!cmd`` (bash) or ``$code`` (python): the user
        shell plugin runs it and its message joins the conversation (kept out of the
        model's context with ``exclude``). OmpError when no user shell plugin is
        installed; ``signal`` ends it as cancelled."""
        from omp.runtime.user_shell import run_user_shell

        return await run_user_shell(self._live(), kind, code, exclude, signal)


def _checked(what: str, mode: str, allowed: Sequence[str]) -> str:
    if mode not in allowed:
        raise OmpError(f"unknown {what} mode {mode!r}; use one of " + ", ".join(allowed))
    return mode
