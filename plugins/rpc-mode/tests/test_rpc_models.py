"""cycle_model and cycle_thinking_level with more than one model (a models.json provider
beside the scripted one; nothing is sent to it)."""

from __future__ import annotations

PEER = {
    "baseUrl": "http://127.0.0.1:9/v1",
    "api": "openai-completions",
    "apiKey": "unused",
    "models": [{"id": "local", "name": "Peer local", "reasoning": True}],
}


def test_cycle_model_goes_through_the_usable_models(fresh_rpc):
    client = fresh_rpc(models={"peer": PEER})
    keys = {(m["provider"], m["id"]) for m in client.ok("get_available_models")["models"]}
    assert {("scripted", "demo"), ("peer", "local")} <= keys
    seen = []
    for _ in range(len(keys)):
        cycled = client.ok("cycle_model")
        assert set(cycled) == {"model", "thinkingLevel", "isScoped"}
        assert cycled["isScoped"] is False
        seen.append((cycled["model"]["provider"], cycled["model"]["id"]))
        state = client.ok("get_state")["model"]
        assert (state["provider"], state["id"]) == seen[-1]
    assert set(seen) == keys and seen[-1] == ("scripted", "demo")


def test_cycle_model_keeps_to_the_models_given_with_models(fresh_rpc):
    client = fresh_rpc("--models", "scripted/demo,peer/local", models={"peer": PEER})
    first = client.ok("cycle_model")
    assert first["isScoped"] is True
    assert (first["model"]["provider"], first["model"]["id"]) == ("peer", "local")
    second = client.ok("cycle_model")
    assert (second["model"]["provider"], second["model"]["id"]) == ("scripted", "demo")


def test_cycle_thinking_level_on_a_reasoning_model(fresh_rpc):
    client = fresh_rpc(models={"peer": PEER})
    client.ok("set_model", provider="peer", modelId="local")
    client.ok("set_thinking_level", level="off")
    levels = [client.ok("cycle_thinking_level")["level"] for _ in range(5)]
    assert levels == ["minimal", "low", "medium", "high", "off"]
    assert client.ok("get_state")["thinkingLevel"] == "off"


def test_change_frames_come_before_the_answer_as_omp_emits_them(fresh_rpc):
    client = fresh_rpc(models={"peer": PEER})
    for kind, fields, event in (
        ("set_model", {"provider": "peer", "modelId": "local"}, "model_changed"),
        ("set_thinking_level", {"level": "high"}, "thinking_level_changed"),
        ("cycle_thinking_level", {}, "thinking_level_changed"),
        ("cycle_model", {}, "model_changed"),
    ):
        start = client.mark()
        answer = client.request(kind, **fields)
        assert answer["success"] is True, answer
        kinds = [f["type"] for f in client.since(start)]
        assert event in kinds, (kind, kinds)
        assert kinds.index(event) < kinds.index("response"), (kind, kinds)
    changed = next(f for f in client.frames if f["type"] == "thinking_level_changed")
    assert changed == {"type": "thinking_level_changed", "thinkingLevel": "high"}


def test_cycle_thinking_level_skips_what_the_model_maps_to_null_and_offers_mapped_xhigh(
    fresh_rpc,
):
    mapped = {
        **PEER,
        "models": [
            {
                "id": "picky",
                "reasoning": True,
                "thinkingLevelMap": {"minimal": None, "low": None, "xhigh": "max"},
            }
        ],
    }
    client = fresh_rpc(models={"peer": mapped})
    client.ok("set_model", provider="peer", modelId="picky")
    client.ok("set_thinking_level", level="off")
    levels = [client.ok("cycle_thinking_level")["level"] for _ in range(4)]
    assert levels == ["medium", "high", "xhigh", "off"]


def test_cycle_thinking_level_on_a_model_that_does_not_think_is_null(fresh_rpc):
    client = fresh_rpc()
    assert client.ok("get_state")["model"]["id"] == "demo"
    assert client.ok("cycle_thinking_level") is None
