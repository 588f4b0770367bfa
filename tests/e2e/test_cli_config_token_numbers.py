"""`omp config list` hides credentials, not every setting whose name says "token":
token counts and budgets are numbers a user tunes and must see (issue 25)."""

from __future__ import annotations

import json


def test_token_counts_show_and_credentials_stay_hidden(omp_cli):
    (omp_cli.agent_dir / "settings.json").write_text(
        json.dumps(
            {
                "compaction": {"reserveTokens": 16384, "keepRecentTokens": 30000},
                "batch": {"tokensPerMinute": {"openai/gpt-4o": 90000}},
                "acme": {
                    "apiKey": "plain-looking-value-1",
                    "accessToken": "plain-looking-value-2",
                    "smtpPasswd": "plain-looking-value-4",
                    "auth": {"user": "plain-looking-value-3"},
                },
            }
        ),
        encoding="utf-8",
    )
    text = omp_cli("config", "list")
    as_json = omp_cli("config", "list", "--json")
    assert text.returncode == 0 and as_json.returncode == 0, text.stderr + as_json.stderr
    data = json.loads(as_json.stdout)
    assert data["compaction.reserveTokens"]["value"] == 16384
    assert data["compaction.keepRecentTokens"]["value"] == 30000
    assert data["compaction.pruneProtectTokens"]["value"] == 40000  # a default
    assert data["batch.tokensPerMinute"]["value"] == {"openai/gpt-4o": 90000}
    lines = text.stdout.splitlines()
    assert any(line.split()[:2] == ["compaction.reserveTokens", "16384"] for line in lines)
    assert any(line.split()[:2] == ["compaction.keepRecentTokens", "30000"] for line in lines)
    for key in ("acme.apiKey", "acme.accessToken", "acme.smtpPasswd"):
        assert data[key]["value"] == "[redacted]"
    assert data["acme.auth.user"]["value"] == "[redacted]"
    for output in (text.stdout, as_json.stdout):
        assert "plain-looking-value" not in output
