"""Hook implementations of the scripted provider. Cheap to import: the provider and
its script parser load only when providers are registered."""

from __future__ import annotations

import omp
from omp import Flag, SettingSpec


@omp.hookimpl
def omp_register_flags(api):
    return [
        Flag(
            "script",
            "Replay this script file (scripted provider; one JSON step per line)",
            "string",
            metavar="FILE",
        )
    ]


@omp.hookimpl
def omp_register_providers(api):
    from omp_scripted.provider import ScriptedProvider

    return [ScriptedProvider(api)]


@omp.hookimpl
def omp_session_start(ctx, api):
    model = ctx.model
    if model is None or model.provider != "scripted":
        return
    from omp_scripted.provider import script_path

    path = script_path(api, ctx.settings.data)
    if api.get_flag("model") or api.get_flag("script"):
        ctx.ui.notify(f"replaying the script {path}: no model is called")
        return
    ctx.ui.notify(
        f"no real model provider is configured (no API key, no local Ollama), so omp is "
        f"replaying the recorded script {path}, its bundled demo (model scripted/demo): "
        "this is a replay, not a model, and the answers are canned.",
        "warning",
    )


@omp.hookimpl
def omp_register_settings(api):
    return [
        SettingSpec(
            "scripted.script",
            "string",
            None,
            "script file the scripted provider replays",
            nullable=True,
        )
    ]
