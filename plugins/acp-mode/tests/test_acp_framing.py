"""``omp acp`` fed lines an editor should never send: each is answered as JSON-RPC 2.0
says (-32700 parse error, -32600 invalid request, batches answered with one array) and
the next request is served; nothing reaches stderr as a traceback."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from isolation import isolated_env, omp_command

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def initialize(request_id: Any) -> bytes:
    request = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {"protocolVersion": 1},
    }
    return json.dumps(request).encode() + b"\n"


def serve(root: Path, data: bytes) -> tuple[int, list[Any], str]:
    """Run ``omp acp``, write ``data`` and close stdin: (exit code, replies, stderr)."""
    for name in ("work", "agent", "home"):
        (root / name).mkdir(exist_ok=True)
    done = subprocess.run(
        [*omp_command(), "acp"],
        input=data,
        capture_output=True,
        env=isolated_env(root, root / "agent"),
        cwd=root / "work",
        timeout=120,
    )
    replies = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return done.returncode, replies, done.stderr.decode(errors="replace")


def errors_of(replies: list[Any]) -> list[tuple[Any, int]]:
    """(id, code) of each single error reply, in the order written."""
    return [(r["id"], r["error"]["code"]) for r in replies if isinstance(r, dict) and "error" in r]


def answered(replies: list[Any]) -> set[Any]:
    return {r["id"] for r in replies if isinstance(r, dict) and "result" in r}


BAD_LINES: list[tuple[bytes, int, Any]] = [
    # (line, error code, id of the error reply)
    (b"[]", INVALID_REQUEST, None),
    (b"42", INVALID_REQUEST, None),
    (b'"x"', INVALID_REQUEST, None),
    (b"true", INVALID_REQUEST, None),
    (b"null", INVALID_REQUEST, None),
    (b"{}", INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":[1],"method":"initialize"}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":3,"method":7}', INVALID_REQUEST, 3),
    (b'{"jsonrpc":"2.0","id":4,"method":"initialize","params":5}', INVALID_REQUEST, 4),
    (b"not json at all {", PARSE_ERROR, None),
    (b'{"jsonrpc":"2.0","id":5,"method":', PARSE_ERROR, None),
    (b"\xff\xfe{}", PARSE_ERROR, None),
    (b"[" * 100_000, PARSE_ERROR, None),
]


def test_every_bad_line_gets_its_error_and_the_next_request_is_served(tmp_path: Path) -> None:
    unknown_notification = b'{"jsonrpc":"2.0","method":"no/such/method"}\n'  # never answered
    data = unknown_notification + b"".join(
        line + b"\n" + initialize(f"after-{i}") for i, (line, _, _) in enumerate(BAD_LINES)
    )
    code, replies, stderr = serve(tmp_path, data)
    assert code == 0, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    (noted,) = [line for line in stderr.splitlines() if "no/such/method" in line]
    assert noted.startswith("omp acp: ") and noted.endswith("Method not found"), noted
    assert answered(replies) == {f"after-{i}" for i in range(len(BAD_LINES))}
    assert errors_of(replies) == [(request_id, code) for _, code, request_id in BAD_LINES]
    for reply in replies:
        assert reply["jsonrpc"] == "2.0"


def test_a_batch_is_answered_with_one_array(tmp_path: Path) -> None:
    batch = [
        json.loads(initialize("b1")),
        {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "none"}},
        5,
        json.loads(initialize("b2")),
    ]
    only_notifications = [
        {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "x"}}
    ]
    data = json.dumps(batch).encode() + b"\n" + json.dumps(only_notifications).encode() + b"\n"
    code, replies, stderr = serve(tmp_path, data + initialize("after"))
    assert code == 0, stderr
    arrays = [r for r in replies if isinstance(r, list)]
    assert len(arrays) == 1, replies  # the batch of notifications gets no reply at all
    (array,) = arrays
    assert sorted(str(r["id"]) for r in array) == ["None", "b1", "b2"]
    assert [r["error"]["code"] for r in array if "error" in r] == [INVALID_REQUEST]
    assert all(r["result"]["protocolVersion"] == 1 for r in array if r["id"] in ("b1", "b2"))
    assert answered([r for r in replies if isinstance(r, dict)]) == {"after"}
    assert "Traceback" not in stderr, stderr


def test_a_line_over_the_limit_is_refused_and_the_server_goes_on(tmp_path: Path) -> None:
    huge = (
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"'
        + b"x" * (51 << 20)
        + b'"}}'
    )
    code, replies, stderr = serve(tmp_path, huge + b"\n" + initialize("after"))
    assert code == 0, stderr
    assert errors_of(replies) == [(None, INVALID_REQUEST)]
    assert "MiB" in replies[0]["error"]["data"]["details"]
    assert answered(replies) == {"after"}
    assert "Traceback" not in stderr, stderr
