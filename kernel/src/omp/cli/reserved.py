"""Every subcommand word of omp and pi this project does not have: a first argument that
is one of them is a command, refused in one line (exit 2), never a prompt sent to the
model (which costs money with a real key). A plugin that provides the command wins."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

_MISSING = {
    # omp's subcommands (packages/coding-agent/src/cli-commands.ts) this project lacks
    "join": "omp's command to join a shared collab session",
    "share": "omp's command for an encrypted share link of a session",
    "read": "omp's command to show what the read tool returns",
    "grep": "omp's command to test the grep tool",
    "search": "omp's command to test web search providers",
    "q": "omp's command to test web search providers",
    "render": "omp's command to draw a session thread",
    "gallery": "omp's command to preview tool renderers",
    "ttsr": "omp's Time-Traveling Stream Rules command",
    "worktree": "omp's command for agent git worktrees",
    "wt": "omp's command for agent git worktrees",
    "cleanse": "omp's command to fix project diagnostics with subagents",
    "commit": "omp's command for commit messages and changelogs",
    "compress": "omp's command to rewrite a text file into a dense prompt",
    "token": "omp's command to print a provider's key or token",
    "usage": "omp's command for provider usage limits",
    "auth-broker": "omp's credential vault command",
    "auth-gateway": "omp's forward-proxy command",
    "dry-balance": "omp's OAuth account balancing dry run",
    "bench": "omp's command to measure time to first token and tokens/s",
    "setup": "omp's command to set up optional features",
    "update": "the command of omp and pi that updates them and their packages",
    "gc": "omp's storage garbage collection command",
    "stats": "omp's usage statistics command",
    "completions": "omp's command for shell completion scripts",
    "__complete": "omp's completion backend",
    "tiny-models": "omp's command to download local tiny models",
    "grievances": "omp's tool issue reports command",
    "images": "omp's command for image publication backends",
    "img": "omp's command for image publication backends",
    "ps": "omp's command for background processes",
    "shell": "omp's interactive shell console",
    "ssh": "omp's command for SSH host configs",
    "say": "omp's text-to-speech command",
    "browser-relay": "omp's local CDP relay command",
}
_PLUGIN_GUARDS = {
    # omp's typo guards and pi's package commands: here plugins are what gets installed
    "install": "omp plugin add NAME",
    "remove": "omp plugin remove NAME",
    "uninstall": "omp plugin remove NAME",
    "upgrade": "omp plugin add NAME",
    "enable": "omp plugin enable NAME",
    "disable": "omp plugin disable NAME",
    "list": "omp plugin list",
}
RESERVED = {
    **{word: f"{what}, which this project does not have" for word, what in _MISSING.items()},
    **{
        word: f"a command of omp and pi; plugins are managed here with `{how}`"
        for word, how in _PLUGIN_GUARDS.items()
    },
}
"""Word -> what it is. ``-p`` (or ``launch``, or ``--``) before the word, or more words in
the same argument, make it a prompt."""
PROMPT_WORD = "launch"
"""omp's explicit default command: ``omp launch WORDS`` sends WORDS as prompts."""


def reserved_refusal(word: str, rest: Sequence[str]) -> str:
    """The one line for a reserved word no plugin provides, with the way to send it (and
    the words after it, up to the first flag) as a prompt."""
    words = [word]
    for token in rest:
        if token.startswith("-"):
            break
        words.append(token)
    prompt = shlex.quote(" ".join(words))
    return (
        f"`omp {word}` is {RESERVED[word]}; to send it as a prompt: omp -p {prompt} "
        f"(or omp {PROMPT_WORD} {prompt})"
    )
