"""The settings omp-compaction reads (``omp_register_settings``); ``compaction.enabled``
is the kernel's (run modes switch it: RPC's ``set_auto_compaction``)."""

from __future__ import annotations

from omp import SettingSpec


def settings() -> list[SettingSpec]:
    return [
        SettingSpec(
            "compaction.reserveTokens",
            "integer",
            None,
            "compact when the context passes the window less this (default max(16384, 15%))",
            nullable=True,
            minimum=0,
        ),
        SettingSpec(
            "compaction.keepRecentTokens",
            "integer",
            20_000,
            "recent tokens kept verbatim by a compaction",
            minimum=0,
        ),
        SettingSpec(
            "compaction.autoContinue",
            "boolean",
            True,
            "after compacting a context that overflowed, send the failed request again",
        ),
        SettingSpec(
            "compaction.pruneToolOutputs",
            "boolean",
            True,
            "when the context fills, replace old tool outputs with a placeholder (requests only)",
        ),
        SettingSpec(
            "compaction.pruneProtectTokens",
            "integer",
            40_000,
            "tokens of the newest tool outputs never pruned",
            minimum=0,
        ),
        SettingSpec(
            "compaction.pruneMinimumTokens",
            "integer",
            20_000,
            "prune only when it saves at least this many tokens",
            minimum=0,
        ),
        SettingSpec(
            "compaction.model",
            "string",
            None,
            "model (provider/id) that writes summaries; default: the session's",
            nullable=True,
        ),
        SettingSpec(
            "compaction.oversizedPrompt",
            "string",
            "refuse",
            "a prompt larger than the context window: refuse it, or attach it as a file",
            choices=("refuse", "attach"),
        ),
        SettingSpec(
            "branchSummary.reserveTokens",
            "integer",
            None,
            "a /tree --summarize summary reads the branch up to the window less this "
            "(default 16384, a quarter of a smaller window)",
            nullable=True,
            minimum=0,
        ),
    ]
