"""``omp plugin ...``: parse the subcommand's arguments and run it."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from omp import UsageError

if TYPE_CHECKING:
    from omp import SubcommandContext

USAGE = """\
usage: omp plugin COMMAND [...]

  add SPEC... [--project]    install plugins (name[extras][version], ./path, .whl, git+URL)
  remove NAME [--project]    uninstall a plugin's distribution
  list [--json]              every plugin: version, source, enabled, hooks, contributions
  info NAME                  one plugin in detail
  enable NAME [--project]    turn a disabled plugin back on (settings disabledPlugins)
  disable NAME [--project]   turn a plugin off without uninstalling it
  doctor                     check every plugin; exit 1 when something is wrong
  new NAME [--dir DIR]       create a plugin project from the template
  sync                       install the plugins this project lists (trusted directories)
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # type: ignore[override]
        raise UsageError(f"{message}. Run `omp plugin --help` for the commands")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="omp plugin", add_help=False, usage=USAGE)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    remove = sub.add_parser("remove", add_help=False)
    remove.add_argument("name")
    remove.add_argument("--project", action="store_true")
    listing = sub.add_parser("list", add_help=False)
    listing.add_argument("--json", action="store_true")
    info = sub.add_parser("info", add_help=False)
    info.add_argument("name")
    info.add_argument("--json", action="store_true")
    for word in ("enable", "disable"):
        toggle = sub.add_parser(word, add_help=False)
        toggle.add_argument("name")
        toggle.add_argument("--project", action="store_true")
    doctor = sub.add_parser("doctor", add_help=False)
    doctor.add_argument("--json", action="store_true")
    new = sub.add_parser("new", add_help=False)
    new.add_argument("name")
    new.add_argument("--dir", default=None)
    sub.add_parser("sync", add_help=False)
    return parser


def run(args: list[str], ctx: SubcommandContext) -> int:
    if not args or args[0] in ("-h", "--help", "help"):
        print(USAGE, end="")
        return 0 if args else 2
    if args[0].startswith("-"):
        raise UsageError(f"unknown option {args[0]}. Run `omp plugin --help` for the commands")
    if args[0] == "add":
        from omp_plugin_manager.install_cmds import add

        # Not argparse: a SPEC that looks like an option must be refused, not parsed.
        specs = [a for a in args[1:] if a != "--project"]
        if not specs:
            raise UsageError(
                "omp plugin add needs a SPEC: a package name, a path, a wheel or a URL"
            )
        return add(ctx, specs, project="--project" in args[1:])
    options = _parser().parse_args(args)
    if options.command == "remove":
        from omp_plugin_manager.install_cmds import remove

        return remove(ctx, options.name, project=options.project)
    if options.command == "sync":
        from omp_plugin_manager.install_cmds import sync

        return sync(ctx)
    if options.command == "list":
        from omp_plugin_manager.show_cmds import list_plugins

        return list_plugins(ctx, as_json=options.json)
    if options.command == "info":
        from omp_plugin_manager.show_cmds import info

        return info(ctx, options.name, as_json=options.json)
    if options.command in ("enable", "disable"):
        from omp_plugin_manager.toggle_cmds import toggle

        return toggle(ctx, options.name, options.command == "enable", options.project)
    if options.command == "doctor":
        from omp_plugin_manager.doctor import doctor

        return doctor(ctx, as_json=options.json)
    from omp_plugin_manager.scaffold import new

    return new(ctx, options.name, options.dir)
