"""Key bindings: the editor's (send, newline, paste), the run's (Esc, Ctrl+C, Ctrl+D),
models and thinking (Ctrl+P, Shift+Tab), views (Ctrl+O, Ctrl+T), dialogs, and the
shortcuts plugins register (``ctrl+x``, ``alt+x``, ``shift+tab``, ``f5``...)."""

from __future__ import annotations

import time
from typing import Any

HOTKEYS = [
    ("enter", "send (while the agent works: steer it)"),
    ("alt+enter", "newline (while the agent works: queue a follow-up)"),
    ("shift+enter, ctrl+j", "newline"),
    ("esc", "abort the run / close a dialog"),
    ("ctrl+c", "clear the editor, abort the run; twice to exit"),
    ("ctrl+d", "exit (on an empty editor)"),
    ("ctrl+p", "next model (--models sets the cycle)"),
    ("shift+tab", "next thinking level"),
    ("ctrl+o", "expand or collapse tool output"),
    ("ctrl+t", "show or hide thinking"),
    ("tab", "complete /commands, @files, /model names"),
    ("up, down", "history (on the first or last line)"),
]
EXIT_WINDOW = 1.5
REPORT_MODIFIED_KEYS = "\x1b[>4;1m"
"""xterm's modifyOtherKeys level 1, which tmux (extended-keys), xterm and others
honour: Shift+Enter then arrives apart from Enter. Terminals without it ignore it."""
RESET_MODIFIED_KEYS = "\x1b[>4;0m"
_MODIFIED = {2: "shift", 3: "alt", 4: "alt", 5: "ctrl", 6: "ctrl", 7: "alt", 8: "alt"}
_AS = {
    # (key code, modifier) -> what the editor takes it as
    (13, "shift"): "c-j",  # Shift+Enter: a newline
    (13, "alt"): "escape c-m",  # Alt+Enter: newline, or a follow-up while working
    (13, "ctrl"): "c-m",  # Ctrl+Enter: send
    (9, "shift"): "s-tab",
    (9, "alt"): "escape c-i",
    (9, "ctrl"): "c-i",
    (127, "shift"): "c-h",
    (127, "alt"): "escape c-h",
    (127, "ctrl"): "c-h",
    (32, "ctrl"): "c-@",
    (27, "shift"): "escape",
    (27, "alt"): "escape",
    (27, "ctrl"): "escape",
}


def _extended_keys() -> dict[str, str]:
    """The CSI u and CSI 27 ~ forms of Enter, Tab, Backspace and Esc with each
    modifier, so none of them reaches the editor as an Esc and stray characters."""
    found = {}
    for (code, modifier), key in _AS.items():
        for number, name in _MODIFIED.items():
            if name == modifier:
                found[f"\x1b[{code};{number}u"] = key
                found[f"\x1b[27;{number};{code}~"] = key
    return found


_EXTENDED_KEYS = _extended_keys()


def teach_extended_keys() -> None:
    """Let terminals that report modified keys distinctly (see REPORT_MODIFIED_KEYS)
    insert a newline with Shift+Enter, and read their other modified keys whole."""
    from prompt_toolkit.input.ansi_escape_sequences import ANSI_SEQUENCES
    from prompt_toolkit.keys import Keys

    for sequence, key in _EXTENDED_KEYS.items():
        keys = tuple(Keys(k) for k in key.split())
        ANSI_SEQUENCES[sequence] = keys[0] if len(keys) == 1 else keys


def shortcut_keys(spec: str) -> tuple[str, ...] | None:
    """prompt_toolkit's keys for a shortcut's ``ctrl+x`` notation, None if unsupported."""
    parts = [p.strip().lower() for p in spec.replace("-", "+").split("+") if p.strip()]
    if not parts:
        return None
    *mods, key = parts
    names = {"enter": "c-m", "tab": "c-i", "esc": "escape", "escape": "escape", "space": " "}
    key = names.get(key, key)
    if mods == ["ctrl"] and len(key) == 1:
        return (f"c-{key}",)
    if mods == ["shift"] and key == "c-i":
        return ("s-tab",)
    if mods in (["alt"], ["meta"]):
        return ("escape", key)
    if not mods and (len(key) == 1 or key.startswith("f") or key == "escape"):
        return (key,)
    return None


def build_key_bindings(app: Any) -> Any:
    from prompt_toolkit.filters import Condition
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.keys import Keys

    kb = KeyBindings()
    dialog = Condition(lambda: app.dialogs.current is not None)
    editing = ~dialog
    selecting = Condition(
        lambda: app.dialogs.current is not None and app.dialogs.current.kind != "text"
    )
    confirming = Condition(
        lambda: app.dialogs.current is not None and app.dialogs.current.kind == "confirm"
    )
    multiline_dialog = Condition(
        lambda: app.dialogs.current is not None and app.dialogs.current.multiline
    )
    guarded = Condition(lambda: app.dialogs.guarded)
    answering = dialog & ~guarded
    selecting &= ~guarded
    confirming &= ~guarded

    @kb.add("enter", filter=editing)
    def _(event: Any) -> None:
        buffer = app.editor.buffer
        state = buffer.complete_state
        if state is not None and state.completions:
            chosen = state.current_completion
            command = buffer.text.startswith("/") and " " not in buffer.text
            if chosen is None and command:
                chosen = state.completions[0]
            if chosen is not None:
                buffer.apply_completion(chosen)
                if not command:
                    return
        app.submit()

    @kb.add("escape", "enter", filter=editing)
    def _(event: Any) -> None:
        if app.working:
            app.submit(follow_up=True)
        else:
            event.current_buffer.insert_text("\n")

    @kb.add("c-j", filter=editing)
    def _(event: Any) -> None:
        event.current_buffer.insert_text("\n")

    @kb.add(Keys.BracketedPaste, filter=editing)
    def _(event: Any) -> None:
        app.paste(event.data)

    @kb.add("escape")
    def _(event: Any) -> None:
        if app.dialogs.current is not None:
            app.dialogs.cancel()
        elif app.editor.buffer.complete_state is not None:
            app.editor.buffer.cancel_completion()
        elif app.working:
            app.abort()

    @kb.add("c-c")
    def _(event: Any) -> None:
        if app.dialogs.current is not None:
            app.dialogs.cancel()
        elif app.editor.text:
            app.editor.clear()
        elif app.working:
            app.abort()
        elif time.monotonic() - app.exit_armed_at < EXIT_WINDOW:
            app.exit()
        else:
            app.exit_armed_at = time.monotonic()
            app.flash("press ctrl+c again to exit", EXIT_WINDOW)

    @kb.add("c-d", filter=editing & Condition(lambda: not app.editor.text))
    def _(event: Any) -> None:
        app.exit()

    @kb.add("c-p", filter=editing)
    def _(event: Any) -> None:
        app.cycle_model()

    @kb.add("s-tab", filter=editing)
    def _(event: Any) -> None:
        app.cycle_thinking()

    @kb.add("c-o")
    def _(event: Any) -> None:
        app.ui.set_tools_expanded(not app.ui.get_tools_expanded())

    @kb.add("c-t")
    def _(event: Any) -> None:
        app.toggle_thinking()

    # -- dialogs ------------------------------------------------------------------------

    @kb.add(Keys.Any, filter=guarded)
    def _(event: Any) -> None:
        if event.data.isprintable():
            app.editor.buffer.insert_text(event.data)

    @kb.add("enter", filter=answering & ~multiline_dialog)
    def _(event: Any) -> None:
        app.dialogs.accept()

    @kb.add("escape", "enter", filter=answering & multiline_dialog)
    @kb.add("c-s", filter=answering & multiline_dialog)
    def _(event: Any) -> None:
        app.dialogs.accept()

    @kb.add("up", filter=selecting)
    @kb.add("left", filter=confirming)
    @kb.add("s-tab", filter=selecting)
    def _(event: Any) -> None:
        app.dialogs.move(-1)

    @kb.add("down", filter=selecting)
    @kb.add("right", filter=confirming)
    @kb.add("tab", filter=selecting)
    def _(event: Any) -> None:
        app.dialogs.move(1)

    @kb.add("y", filter=confirming)
    @kb.add("Y", filter=confirming)
    def _(event: Any) -> None:
        app.dialogs.resolve(True)

    @kb.add("n", filter=confirming)
    @kb.add("N", filter=confirming)
    def _(event: Any) -> None:
        app.dialogs.resolve(False)

    _add_shortcuts(kb, app, editing)
    return kb


def _add_shortcuts(kb: Any, app: Any, editing: Any) -> None:
    for shortcut in app.shortcuts:
        keys = shortcut_keys(shortcut.key)
        if keys is None:
            app.startup_problems.append(
                f"shortcut {shortcut.key!r} ({shortcut.description}) is not a key this "
                "terminal UI can bind; use ctrl+LETTER, alt+KEY, shift+tab or fN"
            )
            continue

        def run(event: Any, handler: Any = shortcut.handler) -> None:
            app.run_shortcut(handler)

        kb.add(*keys, filter=editing)(run)
