"""The models.json the terminal UI tests give omp when a test needs models to pick or
cycle between: two thinking models of a provider that is never reached."""

from __future__ import annotations

import json
from pathlib import Path

TWO_THINKING_MODELS = {
    "providers": {
        "mine": {
            "baseUrl": "http://127.0.0.1:9/v1",
            "api": "openai-completions",
            "apiKey": "test-key",
            "models": [
                {"id": "alpha", "name": "Alpha model", "reasoning": True},
                {"id": "beta", "name": "Beta model", "reasoning": True},
            ],
        }
    }
}


def write_two_thinking_models(agent_dir: Path) -> None:
    (agent_dir / "models.json").write_text(json.dumps(TWO_THINKING_MODELS))
