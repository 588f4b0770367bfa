"""No frame carries a secret omp knows (issue 24, item 8): not a key the user typed, not
the output of the ``bash`` command, not ``get_messages``."""

from __future__ import annotations

import json

KEY = "sk-proj-rpc-leakcheck-0123456789"
TOKEN = "ghp_rpcleakcheck0123456789abcd"


def test_frames_hide_keys_typed_printed_or_stored(fresh_rpc):
    client = fresh_rpc(env={"OPENAI_API_KEY": KEY, "GITHUB_TOKEN": TOKEN})
    client.run(f"my key is {KEY}")
    ran = client.ok("bash", command="echo token=$GITHUB_TOKEN; env")
    messages = client.ok("get_messages")
    every = json.dumps(client.frames)
    assert KEY not in every and TOKEN not in every
    assert "token=[REDACTED:GITHUB_TOKEN]" in ran["output"]
    assert "OPENAI_API_KEY" not in ran["output"]  # the child never had it
    assert "my key is [REDACTED:OPENAI_API_KEY]" in json.dumps(messages)
