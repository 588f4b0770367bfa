"""The application's screen, bottom of the terminal only (the transcript scrolls
above it in the terminal's own history): widgets, the live tail, queued messages,
the spinner, the editor (or the open dialog), completions and the footer."""

from __future__ import annotations

from typing import Any

STYLE = {
    "rule": "#5f5f5f",
    "prompt": "bold #5fafff",
    "dialog.title": "bold",
    "dialog.selected": "reverse",
    "dialog.hint": "#8a8a8a",
    "hint": "#8a8a8a",
    "completion-menu": "bg:#303030 #d0d0d0",
    "completion-menu.completion.current": "bg:#5f87af #ffffff",
    "completion-menu.meta.completion": "bg:#262626 #8a8a8a",
    "completion-menu.meta.completion.current": "bg:#5f87af #ffffff",
}
NO_COLOR_STYLE = {
    "dialog.selected": "reverse",
    "completion-menu": "noreverse",
    "completion-menu.completion.current": "reverse",
    "completion-menu.meta.completion.current": "reverse",
}
"""NO_COLOR: no colours and no bold; the current choice is shown in reverse video."""
EDITOR_MAX_LINES = 12


def _ansi_window(text: Any, *, focusable: bool = False) -> Any:
    from prompt_toolkit.formatted_text import ANSI
    from prompt_toolkit.layout import FormattedTextControl, Window

    return Window(
        FormattedTextControl(lambda: ANSI(text()), focusable=focusable),
        dont_extend_height=True,
        wrap_lines=True,
    )


def _shown_if(predicate: Any, container: Any) -> Any:
    from prompt_toolkit.filters import Condition
    from prompt_toolkit.layout import ConditionalContainer

    return ConditionalContainer(container, filter=Condition(predicate))


def _rule(app: Any) -> Any:
    from prompt_toolkit.layout import Window

    return Window(char="─", height=1, style="class:rule")


def _editor(app: Any) -> Any:
    from prompt_toolkit.layout import BufferControl, Window
    from prompt_toolkit.layout.dimension import Dimension

    def prefix(line: int, wrapped: int) -> list[tuple[str, str]]:
        return [("class:prompt", "> " if line == 0 and wrapped == 0 else "  ")]

    return Window(
        BufferControl(app.editor.buffer),
        height=Dimension(min=1, max=EDITOR_MAX_LINES),
        dont_extend_height=True,
        wrap_lines=True,
        get_line_prefix=prefix,
    )


def dialog_container(dialogs: Any, dialog: Any) -> Any:
    """The container of one dialog, built once (it holds the dialog's focus target)."""
    from prompt_toolkit.layout import BufferControl, FormattedTextControl, HSplit, Window
    from prompt_toolkit.layout.dimension import Dimension

    header = Window(FormattedTextControl(dialogs.header), dont_extend_height=True, wrap_lines=True)
    hint = Window(FormattedTextControl(lambda: [("class:dialog.hint", dialogs.hint())]), height=1)
    body = Window(
        FormattedTextControl(dialogs.body, focusable=dialog.kind == "confirm"),
        dont_extend_height=True,
    )
    if dialog.kind == "confirm":
        dialog.focus = body
        return HSplit([header, body, hint])
    entry = Window(
        BufferControl(dialog.buffer),
        height=Dimension(min=1, max=EDITOR_MAX_LINES if dialog.multiline else 1),
        dont_extend_height=True,
        wrap_lines=True,
    )
    dialog.focus = entry
    if dialog.kind == "text":
        return HSplit([header, entry, hint])
    return HSplit([header, entry, body, hint])


def build_application(app: Any, key_bindings: Any) -> Any:
    from prompt_toolkit.application import Application
    from prompt_toolkit.layout import DynamicContainer, HSplit, Layout, Window
    from prompt_toolkit.layout.menus import CompletionsMenu
    from prompt_toolkit.styles import Style

    def current_dialog() -> Any:
        dialog = app.dialogs.current
        if dialog is None:
            return Window(height=0)
        if getattr(dialog, "container", None) is None:
            dialog.container = dialog_container(app.dialogs, dialog)
        return dialog.container

    editor = _editor(app)
    body = HSplit(
        [
            _shown_if(app.live_text, _ansi_window(app.live_text)),
            _shown_if(app.widget_text, _ansi_window(app.widget_text)),
            _shown_if(app.queue_text, _ansi_window(app.queue_text)),
            _shown_if(app.spinner_text, _ansi_window(app.spinner_text)),
            _rule(app),
            _shown_if(lambda: app.dialogs.current is None, editor),
            _shown_if(lambda: app.dialogs.current is not None, DynamicContainer(current_dialog)),
            CompletionsMenu(max_height=8, scroll_offset=1),
            _rule(app),
            _shown_if(app.hint_text, _ansi_window(app.hint_text)),
            _ansi_window(app.footer_text),
        ]
    )
    application = Application(
        layout=Layout(body, focused_element=editor),
        key_bindings=key_bindings,
        style=Style.from_dict(STYLE if app.theme.colored else NO_COLOR_STYLE),
        full_screen=False,
        erase_when_done=True,
        mouse_support=False,
        min_redraw_interval=0.03,
    )
    application.ttimeoutlen = 0.05
    application.timeoutlen = 0.3
    app.editor_window = editor
    return application
