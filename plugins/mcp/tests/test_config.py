"""MCP configuration: omp's files and other agents', normalised; trust; ${VAR}."""

from __future__ import annotations

import json
from pathlib import Path

from omp_mcp.config import load_servers


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def load(tmp_path: Path, trusted: bool = True, **env: str):
    return load_servers(
        tmp_path / "work",
        tmp_path / "agent",
        trusted=trusted,
        environ=env,
        home=tmp_path / "home",
    )


def test_every_agents_config_is_read_into_one_shape(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    write(
        work / ".mcp.json",
        {"mcpServers": {"proj": {"command": "node", "args": ["s.js"], "env": {"K": "${KEY}"}}}},
    )
    write(
        home / ".claude.json",
        {
            "mcpServers": {"claude-http": {"type": "http", "url": "https://x/mcp"}},
            "projects": {str(work): {"mcpServers": {"claude-proj": {"command": "a"}}}},
        },
    )
    write(home / ".cursor" / "mcp.json", {"mcpServers": {"cursor": {"url": "https://c/mcp"}}})
    write(
        home / ".codeium" / "windsurf" / "mcp_config.json",
        {"mcpServers": {"windsurf": {"serverUrl": "https://w/sse", "type": "sse"}}},
    )
    write(
        home / ".codex" / "config.toml",
        '[mcp_servers.codex]\ncommand = "npx"\nargs = ["-y", "srv"]\ntool_timeout_sec = 9\n',
    )
    write(
        home / ".gemini" / "settings.json",
        {
            "mcpServers": {
                "gem-sse": {"url": "https://g/sse"},
                "gem-http": {"httpUrl": "https://g/mcp", "headers": {"A": "b"}, "timeout": 5000},
            }
        },
    )
    write(
        home / ".config" / "opencode" / "opencode.json",
        {
            "mcp": {
                "oc": {"type": "local", "command": ["bun", "x"], "environment": {"E": "1"}},
                "oc-off": {"type": "remote", "url": "https://o", "enabled": False},
            }
        },
    )
    servers, warnings = load(tmp_path, KEY="secret")
    by_name = {s.name: s for s in servers}
    assert warnings == []
    assert by_name["proj"].command == "node" and by_name["proj"].env == {"K": "secret"}
    assert by_name["claude-http"].transport == "http"
    assert by_name["claude-proj"].command == "a"
    assert by_name["cursor"].transport == "http" and by_name["cursor"].url == "https://c/mcp"
    assert by_name["windsurf"].transport == "sse"
    assert by_name["codex"].args == ["-y", "srv"] and by_name["codex"].timeout == 9
    assert by_name["gem-sse"].transport == "sse"
    assert by_name["gem-http"].transport == "http" and by_name["gem-http"].timeout == 5
    assert by_name["gem-http"].headers == {"A": "b"}
    assert by_name["oc"].command == "bun" and by_name["oc"].args == ["x"]
    assert by_name["oc"].env == {"E": "1"}
    assert by_name["oc-off"].enabled is False


def test_project_servers_wait_for_trust(tmp_path: Path) -> None:
    write(tmp_path / "work" / ".mcp.json", {"mcpServers": {"evil": {"command": "rm"}}})
    servers, warnings = load(tmp_path, trusted=False)
    assert servers == []
    assert "not trusted" in warnings[0] and ".mcp.json" in warnings[0]


def test_the_first_definition_of_a_name_wins_and_disabled_servers_stay_off(tmp_path: Path) -> None:
    write(tmp_path / "work" / ".mcp.json", {"mcpServers": {"s": {"command": "project"}}})
    write(
        tmp_path / "agent" / "mcp.json",
        {"mcpServers": {"s": {"command": "user"}, "t": {"command": "t"}}, "disabledServers": ["t"]},
    )
    by_name = {s.name: s for s in load(tmp_path)[0]}
    assert by_name["s"].command == "project"
    assert by_name["t"].enabled is False


def test_variables_expand_with_defaults_and_unset_ones_are_problems(tmp_path: Path) -> None:
    write(
        tmp_path / "agent" / "mcp.json",
        {
            "mcpServers": {
                "s": {
                    "url": "https://${HOST:-example.org}/mcp",
                    "headers": {"Authorization": "Bearer ${TOKEN}"},
                }
            }
        },
    )
    (server,) = load(tmp_path)[0]
    assert server.url == "https://example.org/mcp"
    assert server.problems == ["environment variable TOKEN is not set"]


def test_a_broken_file_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    write(tmp_path / "agent" / "mcp.json", "{nope")
    write(tmp_path / "home" / ".cursor" / "mcp.json", {"mcpServers": {"c": {"command": "x"}}})
    servers, warnings = load(tmp_path)
    assert [s.name for s in servers] == ["c"]
    assert "mcp.json: not valid JSON" in warnings[0]


def test_session_servers_take_acp_shapes_and_leave_the_key_empty():
    from omp_mcp.session_servers import SESSION_SERVERS_KEY, take_session_servers

    state = {
        SESSION_SERVERS_KEY: [
            {
                "name": "db",
                "command": "db-mcp",
                "args": ["--ro"],
                "env": [{"name": "K", "value": "v"}],
            },
            {
                "name": "docs",
                "type": "http",
                "url": "http://127.0.0.1:9/mcp",
                "headers": [{"name": "Authorization", "value": "Bearer t"}],
            },
            {"name": "feed", "type": "sse", "url": "http://127.0.0.1:9/sse", "headers": []},
            {"command": "nameless"},
        ]
    }
    servers, warnings = take_session_servers(state)
    assert SESSION_SERVERS_KEY not in state
    db, docs, feed = servers
    assert (db.transport, db.command, db.args, db.env) == ("stdio", "db-mcp", ["--ro"], {"K": "v"})
    assert (docs.transport, docs.headers) == ("http", {"Authorization": "Bearer t"})
    assert feed.transport == "sse" and not any(s.problems for s in servers)
    assert warnings == ["session server #4 has no name; not started"]


def test_codex_remote_servers_keep_their_headers_and_bearer_token(tmp_path: Path) -> None:
    write(
        tmp_path / "home" / ".codex" / "config.toml",
        "[mcp_servers.figma]\n"
        'url = "https://mcp.example.com/mcp"\n'
        'bearer_token_env_var = "FIGMA_TOKEN"\n'
        'http_headers = { "X-Region" = "eu" }\n'
        'env_http_headers = { "X-Org" = "ORG_ID" }\n'
        "[mcp_servers.off]\n"
        'command = "x"\n'
        "enabled = false\n",
    )
    servers, _ = load(tmp_path, FIGMA_TOKEN="tok-12345", ORG_ID="org-9")
    figma, off = servers
    assert figma.transport == "http" and figma.url == "https://mcp.example.com/mcp"
    assert figma.headers == {
        "X-Region": "eu",
        "X-Org": "org-9",
        "Authorization": "Bearer tok-12345",
    }
    assert figma.problems == [] and off.enabled is False
    assert "tok-12345" not in figma.redact(f"refused {figma.headers}")


def test_cursors_env_colon_variables_expand_too(tmp_path: Path) -> None:
    write(
        tmp_path / "home" / ".cursor" / "mcp.json",
        {"mcpServers": {"gh": {"command": "gh-mcp", "env": {"T": "${env:GH_TOKEN}"}}}},
    )
    (server,) = load(tmp_path, GH_TOKEN="ghp-abcdef")[0]
    assert server.env == {"T": "ghp-abcdef"}


def test_a_servers_repr_holds_no_env_or_header_values(tmp_path: Path) -> None:
    write(
        tmp_path / "agent" / "mcp.json",
        {
            "mcpServers": {
                "s": {"command": "x", "args": ["${TOKEN}"], "env": {"K": "literal-secret"}},
                "h": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer lit-token"}},
            }
        },
    )
    shown = " ".join(repr(s) for s in load(tmp_path, TOKEN="from-the-env")[0])
    assert "literal-secret" not in shown and "lit-token" not in shown
    assert "from-the-env" not in shown and "${TOKEN}" in shown


def test_cursors_workspace_and_home_variables_expand(tmp_path: Path) -> None:
    write(
        tmp_path / "work" / ".cursor" / "mcp.json",
        {
            "mcpServers": {
                "fs": {"command": "fs-mcp", "args": ["${workspaceFolder}", "${userHome}"]}
            }
        },
    )
    (server,) = load(tmp_path)[0]
    assert server.args == [str(tmp_path / "work"), str(tmp_path / "home")]
    assert server.problems == []
