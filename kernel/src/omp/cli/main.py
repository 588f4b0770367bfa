"""``omp``: the console script. Bad input ends in one line on stderr, never a traceback."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def main(argv: Sequence[str] | None = None) -> int:
    """The console script (``argv`` None: this process's command line, and the process
    ends when main returns) or an embedded call with its own arguments."""
    own_process = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["--version"], ["-v"]):
        from omp import __version__

        print(f"omp {__version__}")
        return 0
    if own_process:
        gc.disable()  # startup makes long-lived objects only: nothing to collect yet
    try:
        return _main(argv, own_process)
    finally:
        if own_process:
            _skip_exit_collection()


def _started() -> None:
    """Startup is over: what it made (modules, classes, plugins) lives as long as the
    process, so it is frozen out of every later collection, which then walks only what
    the run makes."""
    gc.freeze()
    gc.enable()


def _skip_exit_collection() -> None:
    """At interpreter exit a cycle collection walks every object a run created (about
    40 ms after one turn); the process is ending, so the heap is frozen instead."""
    gc.disable()
    gc.freeze()


def _main(argv: list[str], own_process: bool) -> int:
    from omp.base.errors import OmpError

    try:
        return _run(argv, own_process)
    except OmpError as exc:
        print(f"omp: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("omp: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 141
    except Exception as exc:
        if os.environ.get("OMP_DEBUG") == "1":
            raise
        text = " ".join(str(exc).split())
        print(
            f"omp: internal error: {type(exc).__name__}: {text} (run with OMP_DEBUG=1 "
            "for the traceback)",
            file=sys.stderr,
        )
        return 70


def _run(argv: list[str], own_process: bool = False) -> int:
    from omp.base.errors import UsageError
    from omp.cli import args as cli_args
    from omp.cli.args import FAMILIES
    from omp.cli.paths import check_session_paths
    from omp.cli.reserved import PROMPT_WORD, RESERVED, reserved_refusal
    from omp.runtime.bootstrap import (
        SessionOptions,
        open_session,
        require_providers,
    )

    cwd_values = cli_args.prescan_values(argv, "cwd")
    cwd = Path(cwd_values[-1] if cwd_values else os.getcwd()).expanduser().resolve()
    if not cwd.is_dir():
        raise UsageError(f"--cwd {cwd} is not a directory")
    wants_help = bool(cli_args.prescan(argv, "help"))
    offline = bool(cli_args.prescan(argv, "offline")) or _truthy(os.environ.get("OMP_OFFLINE"))
    if offline:
        _go_offline()
    word, rest = cli_args.first_word(argv)
    if (exported := cli_args.export_command(argv)) is not None:
        word, rest = "sessions", exported
    elif (exported := cli_args.list_models_command(argv)) is not None:
        word, rest = "models", exported
    if (done := _before_plugins(word, rest, wants_help)) is not None:
        return done
    # Listing commands and command families never run project code, trusted or not.
    leaves_project_alone = bool(wants_help or cli_args.prescan(argv, "version"))
    words = [word] if exported is not None else cli_args.possible_first_words(argv)
    runs_project_code = not (leaves_project_alone or any(map(_is_command, words)))
    runtime = _load(argv, cwd, runs_project_code, wants_help)
    if exported is None:  # a plugin's flag may take the value seen as the word so far
        word, rest = cli_args.first_word(argv, runtime.contributions.of("flags"))
        if (done := _before_plugins(word, rest, wants_help)) is not None:
            return done
        if not (runs_project_code or leaves_project_alone or _is_command(word)):
            runtime = _load(argv, cwd, True, wants_help)  # a run after all: with the project
    commands = {c.name: c for c in runtime.contributions.of("subcommands")}
    if word in commands and word != PROMPT_WORD:
        return _run_subcommand(commands[word], rest, runtime)
    if word in FAMILIES:
        raise UsageError(
            f"`omp {word}` is not installed: no installed plugin provides it "
            f"({FAMILIES[word]}); `omp plugins` lists what is installed"
        )
    if word in RESERVED:
        raise UsageError(reserved_refusal(word, rest))
    plugin_flags = runtime.contributions.of("flags")
    if wants_help:
        owners = {f.name: p for p, f in runtime.contributions.items.get("flags", [])}
        described = {name: c.description for name, c in commands.items()}
        print(
            cli_args.render_help(plugin_flags, owners, sorted(runtime.modes), described),
            end="",
        )
        return 0
    parsed = cli_args.parse(argv, plugin_flags)
    if offline:
        parsed.values["offline"] = True
    runtime.api._set_flags(parsed.values)
    if parsed["version"]:
        from omp import __version__

        print(f"omp {__version__}")
        return 0
    if parsed.subcommand == "plugins":
        from omp.cli.plugins_cmd import print_plugins

        return print_plugins(runtime)
    _report_plugin_problems(runtime, verbose=bool(parsed["verbose"]))
    _report_interrupted_writes(runtime)
    require_providers(runtime)
    mode_name = _choose_mode(parsed, runtime.modes)
    mode = runtime.modes[mode_name]
    _refuse_prompts(parsed.messages, mode)
    pick_session = _wants_picker(parsed, mode)
    attached, prompts = _prompts(parsed, runtime.cwd, read_stdin=not mode.reads_stdin)
    options = SessionOptions(
        **SessionOptions.flag_fields(parsed.values),
        continue_recent=bool(parsed["continue"]),
        resume=None if pick_session else parsed["resume"],
        session_path=None if pick_session else parsed["session"],
        fork=parsed["fork"],
        flags=parsed.values,
        mode_name=mode_name,
    )
    if (
        options.continue_recent
        + bool(options.resume)
        + bool(options.session_path)
        + bool(options.fork)
        + options.no_session
        > 1
    ):
        raise UsageError("use only one of --continue, --resume, --session, --fork and --no-session")
    check_session_paths(runtime, options)
    from omp.cli.session_lookup import locate_elsewhere

    if not locate_elsewhere(runtime, options):
        return 0
    session = open_session(runtime, options, has_ui=mode.has_ui)
    from omp.cli.attachments import check_images

    check_images(attached, session.agent.model)
    if mode.make_ui is not None:
        session.ui = mode.make_ui(session)
    from omp.runtime.modes import ModeRequest, run_mode

    request = ModeRequest(
        prompts=prompts,
        verbose=bool(parsed["verbose"]),
        images=attached.images,
        pick_session=pick_session,
    )
    if own_process:
        _started()
    return run_mode(mode, session, request)


def _is_command(word: str | None) -> bool:
    """A word that names a command, not a prompt: such a run never runs project code."""
    from omp.cli.args import FAMILIES, SUBCOMMANDS
    from omp.cli.reserved import RESERVED

    return word in SUBCOMMANDS or word in FAMILIES or word in RESERVED


def _before_plugins(word: str | None, rest: list[str], wants_help: bool) -> int | None:
    """The kernel's commands that need no plugin: ``omp plugins --help`` and ``omp
    recover`` (which must work with every plugin broken). None: not one of them."""
    from omp.cli.args import SUBCOMMANDS

    if wants_help and word in SUBCOMMANDS:
        print(_usage_of(word), end="")
        return 0
    if word == "recover":
        from omp.cli.recover_cmd import run as recover
        from omp.config.settings import agent_dir

        return recover(rest, agent_dir())
    return None


def _load(argv: list[str], cwd: Path, runs_project_code: bool, wants_help: bool) -> Any:
    """The runtime: plugins, and the project's code and settings when the command runs
    them and the directory is trusted (asking on a terminal first)."""
    from omp.cli import args as cli_args
    from omp.cli.paths import check_extension_path
    from omp.cli.trust_prompt import ask_to_trust, report_trust
    from omp.runtime.bootstrap import RUNTIME_KINDS, load_runtime

    extension_paths = [check_extension_path(p) for p in cli_args.prescan_values(argv, "extension")]
    discover = not cli_args.prescan(argv, "no-extensions")
    trust = bool(cli_args.prescan(argv, "trust"))
    if runs_project_code and not trust:
        trust = ask_to_trust(cwd, discover)
    runtime = load_runtime(
        cwd=cwd,
        extension_paths=extension_paths,
        discover_extensions=discover,
        entry_points=not cli_args.prescan(argv, "no-plugins"),
        kinds=["modes"] if wants_help else RUNTIME_KINDS,
        trust=trust,
        run_project_code=runs_project_code,
    )
    if runs_project_code:
        report_trust(runtime, remember_it=trust)
    return runtime


def _usage_of(word: str) -> str:
    """The usage text of one of the kernel's own commands (``omp plugins --help``)."""
    from importlib import import_module

    module = {"plugins": "plugins_cmd", "recover": "recover_cmd"}[word]
    usage: str = import_module(f"omp.cli.{module}").USAGE
    return usage if usage.endswith("\n") else usage + "\n"


def _run_subcommand(command: Any, args: list[str], runtime: Any) -> int:
    import asyncio
    import inspect

    from omp.cli.subcommand_context import SubcommandContext

    outcome = command.run(args, SubcommandContext(runtime))
    if inspect.isawaitable(outcome):
        outcome = asyncio.run(_awaited(outcome))
    return int(outcome or 0)


async def _awaited(outcome: Any) -> Any:
    from omp.base.threads import detach_default_executor

    detach_default_executor()
    return await outcome


def _report_interrupted_writes(runtime: Any) -> None:
    """A write in place cut off by a kill left a recovery copy: say so. Costs one stat
    when there is none."""
    from omp.config.atomic_write import RECOVERY_DIRECTORY

    if not os.path.isdir(os.path.join(runtime.agent_dir, RECOVERY_DIRECTORY)):
        return
    from omp.config.recovery import startup_notice

    notice = startup_notice(runtime.agent_dir)
    if notice:
        print(notice, file=sys.stderr)


def _report_plugin_problems(runtime: Any, verbose: bool) -> None:
    for record in runtime.host.failures():
        print(
            f"omp: plugin {record.name} ({record.source}) was not loaded: {record.error}",
            file=sys.stderr,
        )
    from omp.runtime.bootstrap import provider_config_problems

    config_problems = provider_config_problems(runtime)  # may add to contributions.problems
    for problem in [*runtime.contributions.problems, *config_problems]:
        print(f"omp: {problem}", file=sys.stderr)


def _choose_mode(parsed: Any, modes: dict[str, Any]) -> str:
    from omp.base.errors import OmpError, UsageError

    requested = parsed["mode"]
    if requested in (None, "text"):
        interactive = sys.stdin.isatty() and sys.stdout.isatty() and not parsed["print"]
        requested = "interactive" if interactive else "print"
    if requested not in modes:
        installed = ", ".join(sorted(modes)) or "none"
        if requested == "interactive":
            raise UsageError(
                "no interactive mode is installed; run one prompt with "
                f'omp -p "..." (installed run modes: {installed})'
            )
        if not modes:
            raise OmpError("no run modes are installed (check `omp plugins`)")
        raise UsageError(f"run mode {requested!r} is not installed; installed: {installed}")
    return requested


def _prompts(parsed: Any, cwd: Path, read_stdin: bool = True) -> tuple[Any, list[str]]:
    """The ``@path`` attachments, and the prompts: each message argument is one prompt,
    run in order (as omp does: ``omp -p "/seqthink 3" "fix it"`` runs a command, then a
    prompt); piped stdin joins the first (or is the prompt on its own); the attached
    files' text goes ahead of the first."""
    from omp.cli.attachments import first_prompt, read_attachments, split_file_arguments

    paths, messages = split_file_arguments(parsed.messages)
    attached = read_attachments(paths, cwd)
    prompts = [m for m in messages if m.strip()]
    if read_stdin and not sys.stdin.isatty() and (not prompts or _stdin_ready()):
        piped = sys.stdin.read()
        if piped.strip():
            prompts = [f"{prompts[0]}\n\n{piped}", *prompts[1:]] if prompts else [piped]
    return attached, first_prompt(attached, prompts)


def _refuse_prompts(messages: list[str], mode: Any) -> None:
    """A protocol mode's client sends the prompts: arguments would be silently lost."""
    from omp.base.errors import UsageError
    from omp.cli.attachments import split_file_arguments

    if getattr(mode, "takes_prompts", True) or not messages:
        return
    paths, rest = split_file_arguments(messages)
    if paths:
        raise UsageError(
            f"@file arguments are not supported in --mode {mode.name} (@{paths[0]}): "
            "the client sends prompts and files"
        )
    raise UsageError(
        f"--mode {mode.name} takes no prompt arguments ({rest[0]!r}): the client sends prompts"
    )


def _wants_picker(parsed: Any, mode: Any) -> bool:
    """``--resume``/``--session`` without an id: a mode with a UI on a terminal picks
    the session; anywhere else there is nobody to pick, which is a usage error."""
    from omp.base.errors import UsageError

    bare = [name for name in ("resume", "session") if parsed[name] is True]
    if not bare:
        return False
    if mode.has_ui and sys.stdin.isatty():
        return True
    raise UsageError(
        f"--{bare[0]} without an id picks a session in a terminal; give an id or a path "
        "(`omp sessions` lists them)"
    )


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _go_offline() -> None:
    """What this process starts inherits it too: ``OMP_OFFLINE`` for plugins, and no
    package index for pip (a plugin install takes local paths and wheels only)."""
    os.environ["OMP_OFFLINE"] = "1"
    os.environ["PIP_NO_INDEX"] = "1"


def _stdin_ready(wait: float = 0.2) -> bool:
    """Whether stdin has data (or EOF) soon: a pipe an embedder never closes must not
    hang a run whose prompt was given as arguments."""
    import select

    try:
        ready, _, _ = select.select([sys.stdin], [], [], wait)
    except (OSError, ValueError):
        return True
    return bool(ready)


if __name__ == "__main__":
    raise SystemExit(main())
