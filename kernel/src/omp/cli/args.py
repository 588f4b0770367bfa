"""The command line: built-in flags plus the flags plugins register."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from omp.base.errors import UsageError
from omp.cli.reserved import PROMPT_WORD
from omp.plugin.contrib import Flag

BUILTIN_FLAGS: list[Flag] = [
    Flag("print", "Run the prompt(s) once, print the final answer and exit", short="-p"),
    Flag(
        "mode",
        "Run mode: text (default), json, or another installed mode",
        "string",
        metavar="MODE",
    ),
    Flag(
        "model",
        "Model as provider/id, id or a fuzzy pattern; ':level' sets thinking",
        "string",
        metavar="PATTERN",
    ),
    Flag(
        "smol",
        "Model of the smol role for this run (agents with model @smol; also PI_SMOL_MODEL)",
        "string",
        metavar="PATTERN",
    ),
    Flag(
        "slow",
        "Model of the slow role for this run (agents with model @slow; also PI_SLOW_MODEL)",
        "string",
        metavar="PATTERN",
    ),
    Flag("api-key", "API key for the provider of --model (never stored)", "string", metavar="KEY"),
    Flag(
        "thinking",
        "Thinking level: off, minimal, low, medium, high, xhigh",
        "string",
        metavar="LEVEL",
    ),
    Flag(
        "provider",
        "Use this provider: its first model, or --model resolved among its models",
        "string",
        metavar="NAME",
    ),
    Flag(
        "models",
        "Models Ctrl+P cycles through (patterns or globs); the first is used without --model",
        "string",
        metavar="A,B",
    ),
    Flag(
        "list-models",
        "List available models (optionally matching SEARCH) and exit",
        "string",
        metavar="[SEARCH]",
    ),
    Flag("tools", "Offer only these tools to the model (comma-separated)", "string", metavar="A,B"),
    Flag("no-tools", "Offer no tools to the model"),
    Flag("no-builtin-tools", "Offer none of omp's own tools (plugins' and extensions' stay)"),
    Flag(
        "offline",
        "No network beyond the model: web tools off, no index lookups (also OMP_OFFLINE=1)",
    ),
    Flag(
        "extension",
        "Load a single-file extension (repeatable)",
        "string",
        short="-e",
        metavar="PATH",
    ),
    Flag("no-extensions", "Do not discover extensions (explicit -e paths still load)"),
    Flag("no-plugins", "Load no entry-point plugins (the kernel alone)"),
    Flag(
        "trust",
        "Trust this directory: load its project extensions and settings (remembered)",
    ),
    Flag("continue", "Continue the most recent session of this directory", short="-c"),
    Flag(
        "resume",
        "Resume the session whose id (or file name) starts with ID; without ID, pick one "
        "(in a terminal)",
        "string",
        short="-r",
        metavar="[ID]",
    ),
    Flag(
        "session",
        "Use this session file (created if missing), or the saved session whose id starts with ID",
        "string",
        metavar="[PATH|ID]",
    ),
    Flag(
        "fork",
        "Fork a saved session (id prefix or path) into a new session file and go on there",
        "string",
        metavar="ID|PATH",
    ),
    Flag("no-session", "Keep the session in memory only"),
    Flag(
        "export",
        "Export a session (a file or an id prefix) to HTML and exit: --export SESSION "
        "[OUT] (OUT.md: Markdown; default omp-session-NAME.html here)",
        "string",
        metavar="SESSION",
    ),
    Flag("force", "With --export: overwrite an existing output file"),
    Flag("session-dir", "Directory for session files", "string", metavar="DIR"),
    Flag("system-prompt", "Replace the system prompt (text or a file)", "string", metavar="TEXT"),
    Flag(
        "append-system-prompt",
        "Append to the system prompt (text or a file)",
        "string",
        metavar="TEXT",
    ),
    Flag("no-context-files", "Do not read AGENTS.md / CLAUDE.md"),
    Flag("cwd", "Work in this directory", "string", metavar="DIR"),
    Flag("verbose", "Say more on stderr"),
    Flag("version", "Print the version and exit", short="-v"),
    Flag("help", "Show this help and exit", short="-h"),
]
REPEATABLE = {"extension"}
OPTIONAL_VALUE = {"resume", "session", "list-models"}
"""Flags whose value may be left out (``--resume`` alone opens the picker): they take
the next token only when it does not start with ``-``, and are ``True`` without one."""
SUBCOMMANDS = {
    "plugins": "List loaded plugins, where they came from and their hooks",
    "recover": "Old content of files whose write was cut off: list, restore, discard",
}
FAMILIES = {
    "plugin": "install, remove, enable, disable, check and create plugins",
    "config": "read and write settings",
    "mcp": "manage MCP servers",
    "batch": "run many tasks as independent sessions",
    "sessions": "list and search sessions",
    "acp": "serve the Agent Client Protocol to editors",
    "models": "list the models of the installed providers",
    "agents": "list the agents the task tool can spawn",
}
"""Command families that plugins provide (``omp_register_subcommands``). The words are
reserved: without the plugin, ``omp plugin add x`` says the command is not installed
instead of becoming three prompts to the model."""


def first_word(
    argv: Sequence[str], extra_flags: Sequence[Flag] = ()
) -> tuple[str | None, list[str]]:
    """The command's name: the first positional argument after the flags and their
    values (the built-in ones and ``extra_flags``), and every argument after it. None
    when ``-p`` comes before it: what follows ``-p`` is a prompt."""
    index, after_print = _first_positional(argv, extra_flags)
    if index is None or after_print:
        return None, []
    return argv[index], list(argv[index + 1 :])


def _first_positional(
    argv: Sequence[str], extra_flags: Sequence[Flag] = ()
) -> tuple[int | None, bool]:
    """The index of the first positional argument (None: there is none before ``--``),
    and whether ``-p``/``--print`` came before it."""
    flags = _merge_flags(list(extra_flags))
    takes_value = _spellings(lambda f: f.type != "boolean" and f.name not in OPTIONAL_VALUE, flags)
    optional = _spellings(lambda f: f.name in OPTIONAL_VALUE, flags)
    prints = _spellings(lambda f: f.name == "print")
    after_print = False
    index = 0
    while index < len(argv):
        token = argv[index]
        if token == "--":
            return None, after_print
        if not token.startswith("-") or token == "-":
            return index, after_print
        after_print = after_print or token in prints
        if token in optional:
            following = argv[index + 1] if index + 1 < len(argv) else "-"
            index += 1 if following.startswith("-") else 2
        else:
            index += 2 if token in takes_value else 1
    return None, after_print


def possible_first_words(argv: Sequence[str]) -> list[str]:
    """Every token that may turn out to be the command's name once the plugins' flags
    are known: a flag omp does not know yet may take the next token as its value, or
    not (``omp --script F plugin list``). The first is :func:`first_word`'s word."""
    takes_value = _spellings(lambda f: f.type != "boolean" and f.name not in OPTIONAL_VALUE)
    optional = _spellings(lambda f: f.name in OPTIONAL_VALUE)
    known = _spellings(lambda f: True)
    prints = _spellings(lambda f: f.name == "print")
    words: list[str] = []
    index = 0
    while index < len(argv):
        token = argv[index]
        if token == "--" or token in prints:
            break
        if not token.startswith("-") or token == "-":
            words.append(token)
            previous = argv[index - 1] if index else ""
            if not previous.startswith("-") or previous in known or "=" in previous:
                break  # no unknown flag before it: it is the word
            index += 1
        elif token in optional:
            following = argv[index + 1] if index + 1 < len(argv) else "-"
            index += 1 if following.startswith("-") else 2
        else:
            index += 2 if token in takes_value else 1
    return words


def _spellings(wanted: Any, flags: Sequence[Flag] = BUILTIN_FLAGS) -> set[str]:
    return {
        spelling for f in flags if wanted(f) for spelling in (f"--{f.name}", f.short) if spelling
    }


def export_command(argv: Sequence[str]) -> list[str] | None:
    """``--export SESSION [OUT] [--force]`` (pi's and omp's form) as the arguments of
    ``omp sessions export``, which does the work (None without ``--export``)."""
    source = prescan_values(argv, "export")
    if not source:
        return None
    if any(prescan_values(argv, name) for name in ("session", "resume")):
        raise UsageError(
            "--export names the session to export: omp --export SESSION [OUT.html] "
            "(SESSION a .jsonl file or an id prefix); drop --session/--resume"
        )
    force = ["--force"] if prescan(argv, "force") else []
    return ["export", "--session", source[-1], *_positionals(argv), *force]


def list_models_command(argv: Sequence[str]) -> list[str] | None:
    """pi's ``--list-models [SEARCH]`` as the arguments of ``omp models``, which does the
    work: SEARCH first, then every other argument (None without ``--list-models``)."""
    args = list(argv)
    cut = args.index("--") if "--" in args else len(args)
    for index, token in enumerate(args[:cut]):
        head, eq, tail = token.partition("=")
        if head != "--list-models":
            continue
        if eq:
            return [tail, *args[:index], *args[index + 1 :]]
        if index + 1 < cut and not args[index + 1].startswith("-"):
            return [args[index + 1], *args[:index], *args[index + 2 :]]
        return [*args[:index], *args[index + 1 :]]
    return None


def _positionals(argv: Sequence[str]) -> list[str]:
    """Every positional argument (after ``--``, every argument)."""
    found: list[str] = []
    rest = list(argv)
    while rest:
        index, _ = _first_positional(rest)
        if index is None:
            cut = rest.index("--") if "--" in rest else len(rest)
            return found + rest[cut + 1 :]
        found.append(rest[index])
        rest = rest[index + 1 :]
    return found


@dataclass
class ParsedArgs:
    """A command line as omp reads it: flag values by name (``parsed["model"]``; a
    flag not given is None), the other words (``messages``: the prompts) and omp's own
    subcommand word (``plugins``), if any."""

    values: dict[str, Any]
    messages: list[str] = field(default_factory=list)
    subcommand: str | None = None

    def __getitem__(self, name: str) -> Any:
        return self.values.get(name)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # type: ignore[override]
        raise UsageError(f"{message}. Run `omp --help` for the flags")


def prescan(argv: Sequence[str], name: str) -> list[str] | bool:
    """Values of a built-in flag before plugins load (``-e``, ``--no-extensions``...)."""
    flag = next(f for f in BUILTIN_FLAGS if f.name == name)
    spellings = {f"--{flag.name}", *([flag.short] if flag.short else [])}
    values: list[str] = []
    found = False
    args = list(argv)
    for index, token in enumerate(args):
        if token == "--":
            break
        head, eq, tail = token.partition("=")
        if head in spellings:
            found = True
            if flag.type != "boolean":
                if eq:
                    values.append(tail)
                elif index + 1 < len(args) and not (
                    flag.name in OPTIONAL_VALUE and args[index + 1].startswith("-")
                ):
                    values.append(args[index + 1])
    return values if flag.type != "boolean" else found


def prescan_values(argv: Sequence[str], name: str) -> list[str]:
    """Values of a built-in flag that takes one (``--cwd``, ``-e``) before plugins load."""
    values = prescan(argv, name)
    if isinstance(values, bool):
        raise TypeError(f"--{name} takes no value: prescan() tells whether it is given")
    return values


def _merge_flags(plugin_flags: list[Flag]) -> list[Flag]:
    """Plugin flags shadow built-in flags of the same name."""
    shadowed = {f.name for f in plugin_flags}
    return [f for f in BUILTIN_FLAGS if f.name not in shadowed] + list(plugin_flags)


def build_parser(plugin_flags: list[Flag]) -> argparse.ArgumentParser:
    parser = _Parser(prog="omp", add_help=False, allow_abbrev=False)
    for flag in _merge_flags(plugin_flags):
        names = [f"--{flag.name}"] + ([flag.short] if flag.short else [])
        dest = flag.name.replace("-", "_")
        if flag.type == "boolean":
            parser.add_argument(*names, dest=dest, action="store_true", default=bool(flag.default))
        else:
            kind = int if flag.type == "integer" else str
            action = "append" if flag.name in REPEATABLE else "store"
            optional: dict[str, Any] = (
                {"nargs": "?", "const": True} if flag.name in OPTIONAL_VALUE else {}
            )
            parser.add_argument(
                *names,
                dest=dest,
                type=kind,
                action=action,
                default=flag.default,
                metavar=flag.metavar or "VALUE",
                **optional,
            )
    parser.add_argument("messages", nargs="*")
    return parser


def parse(argv: Sequence[str], plugin_flags: list[Flag]) -> ParsedArgs:
    """The command line as omp reads it (plugins' flags included); UsageError for bad input."""
    argv = list(argv)
    literal: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, literal = argv[:cut], argv[cut + 1 :]
    subcommand = None
    index, _ = _first_positional(argv, plugin_flags)
    word, rest = first_word(argv, plugin_flags)
    if index is not None and argv[index] == PROMPT_WORD:
        del argv[index]  # `omp launch WORDS`: prompts, whatever the words are
    elif word in SUBCOMMANDS:
        subcommand, argv = word, argv[: len(argv) - len(rest) - 1] + rest
    parser = build_parser(plugin_flags)
    namespace, extras = parser.parse_known_args(argv)
    unknown = [token for token in extras if token.startswith("-") and token != "-"]
    if unknown:
        raise UsageError(f"unknown flag(s): {', '.join(unknown)}. Run `omp --help` for the flags")
    values = {k.replace("_", "-"): v for k, v in vars(namespace).items() if k != "messages"}
    messages = [*namespace.messages, *extras, *literal]
    return ParsedArgs(values, messages, subcommand)


def render_help(
    plugin_flags: list[Flag],
    plugin_owner: dict[str, str],
    modes: list[str],
    commands: dict[str, str] | None = None,
) -> str:
    """``commands`` are the plugins' subcommands (name -> description)."""
    lines = [
        "usage: omp [command] [flags] [messages...]",
        "",
        'A coding agent: omp -p "prompt" runs once and prints the answer;',
        "piped stdin is read as the prompt. A first word naming a command of omp or pi",
        "is that command (or says it is missing here): omp -p WORD or omp launch WORD",
        "sends it as a prompt.",
        "",
        "commands:",
    ]
    listed = {**SUBCOMMANDS, **(commands or {})}
    lines += [f"  {name:<24}{text}" for name, text in sorted(listed.items())]
    shadowed = {f.name for f in plugin_flags}
    lines += ["", "flags:"]
    lines += [_flag_line(f) for f in BUILTIN_FLAGS if f.name not in shadowed]
    if plugin_flags:
        lines += ["", "flags from plugins:"]
        lines += [_flag_line(f, plugin_owner.get(f.name)) for f in plugin_flags]
    if modes:
        lines += ["", f"run modes installed: {', '.join(modes)}"]
    return "\n".join(lines) + "\n"


def _flag_line(flag: Flag, owner: str | None = None) -> str:
    spelled = f"--{flag.name}" + (f", {flag.short}" if flag.short else "")
    if flag.type != "boolean":
        spelled += f" {flag.metavar or 'VALUE'}"
    suffix = f"  [{owner}]" if owner else ""
    return f"  {spelled:<30}{flag.description}{suffix}"
