"""Steps of the scripted provider's scripts the terminal UI tests write (``omp_cli.script``)."""

from __future__ import annotations


def answer(text: str, **more) -> dict:
    """A reply: ``text`` plus any other step fields (``thinking``, ``when``, ...)."""
    return {"text": text, **more}


def bash_call(command: str) -> dict:
    """A reply that calls the bash tool with ``command``."""
    return {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}
