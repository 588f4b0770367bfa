"""``omp models [SEARCH]`` (and pi's ``omp --list-models [SEARCH]``, which the CLI
turns into it): every model the installed providers offer, and whether each can be used
now (a key was found, the local server answers) or why not."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omp import SubcommandContext

USAGE = """usage: omp models [SEARCH]

Every model the installed providers offer: its context window, longest answer, whether
it thinks, its price per million tokens in and out, and whether its provider can be
used now (a key was found, the local server answers) or why not.

  SEARCH             keep the models whose provider/id or name contains it (any case);
                     exits 1 when nothing matches
  --list-models [SEARCH]  the same listing, as pi spells it

Providers and models come from plugins and ~/.omp/agent/models.json; `omp plugins`
lists the plugins loaded.
"""


def _price(model: Any) -> str:
    if not model.cost:
        return "unpriced"
    return f"${model.cost.get('input', 0):g}/${model.cost.get('output', 0):g}"


def _tokens(count: int) -> str:
    return f"{count // 1000}k" if count >= 1000 else str(count)


def run(args: list[str], ctx: SubcommandContext) -> int:
    """The subcommand: ``args`` are the words after ``models`` (omp's and the plugins'
    flags among them are read by the CLI and skipped here)."""
    if "--help" in args or "-h" in args:
        print(USAGE, end="")
        return 0
    return print_models(ctx, " ".join(ctx.parse_flags(args).messages))


def config_problems(ctx: SubcommandContext) -> list[str]:
    """One line per problem of the user's provider configuration (a broken models.json);
    a source that fails says so instead."""
    problems: list[str] = []
    for source in ctx.provider_configs():
        try:
            problems += source.problems(ctx.agent_dir)
        except Exception as exc:
            text = " ".join(str(exc).split()) or "(no message)"
            problems.append(f"{source.name} could not be checked: {type(exc).__name__}: {text}")
    return problems


def print_models(ctx: SubcommandContext, search: str) -> int:
    for problem in config_problems(ctx):
        print(f"omp: {problem}", file=sys.stderr)
    registry = ctx.model_registry()
    settings = ctx.settings.data
    needle = search.lower()
    rows = []
    status_of: dict[str, str] = {}
    for provider in sorted(registry.providers.values(), key=lambda p: (p.fallback, p.priority)):
        matches = [
            m for m in provider.models if needle in m.key.lower() or needle in m.name.lower()
        ]
        if not matches:
            continue
        if provider.name not in status_of:
            why = provider.unavailable_reason(settings)
            status_of[provider.name] = "ready" if why is None else why
        for model in (m for m in provider.models if m in matches):
            rows.append(
                (
                    model.key,
                    _tokens(model.context_window),
                    _tokens(model.max_tokens),
                    "yes" if model.reasoning else "no",
                    _price(model),
                    status_of[provider.name],
                )
            )
    if not rows:
        print(f"no models match {search!r}" if search else "no models are installed")
        return 1 if search else 0
    header = ("model", "context", "max out", "thinks", "$/M in/out", "status")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(5)]
    for row in [header, *rows]:
        cells = [row[i].ljust(widths[i]) for i in range(5)]
        print("  ".join([*cells, row[5]]).rstrip())
    ready = sum(1 for s in status_of.values() if s == "ready")
    print(f"\n{len(rows)} models from {len(status_of)} providers; {ready} provider(s) ready")
    return 0
