"""The framing audit (§2.1): every kind of line a client should never send gets omp's
parse or unknown-command frame, the server goes on with the next command, and a
runaway line is refused without being held in memory."""

from __future__ import annotations

from pathlib import Path


def peak_rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    line = next(line for line in status.splitlines() if line.startswith("VmHWM:"))
    return int(line.split()[1])


def answer_to(rpc, line: bytes) -> list[dict]:
    """What the server wrote for ``line``, once a following get_state was answered."""
    start = rpc.mark()
    rpc.send(line)
    assert rpc.ok("get_state")["isStreaming"] is False
    return [f for f in rpc.since(start) if f.get("type") == "response" and "id" not in f]


def test_each_kind_of_bad_line_gets_its_frame_and_the_next_command_is_served(rpc):
    parse = "Failed to parse command: "
    cases = [
        (b"{not json", parse),
        (b"[]", parse + "expected a JSON object, got an array"),
        (b"42", parse + "expected a JSON object, got a number"),
        (b"null", parse + "expected a JSON object, got null"),
        (b'"prompt"', parse + "expected a JSON object, got a string"),
        (b"true", parse + "expected a JSON object, got a boolean"),
        (b"[" * 100_000, parse),
        (b'{"type":"prompt","message":"\xff\xfe"}', parse + "'utf-8' codec can't decode"),
        (b"{}", "Unknown command: undefined"),
        (b'{"id":"x1"}', "Unknown command: undefined"),
        (b'{"type":["prompt"]}', "Unknown command: ['prompt']"),
    ]
    for line, error in cases:
        (answer,) = answer_to(rpc, line)
        assert answer["success"] is False, (line[:40], answer)
        assert answer["error"].startswith(error), (line[:40], answer)
        assert answer.get("command") == "parse" or error.startswith("Unknown command")
    assert "Traceback" not in rpc.stderr()


def test_a_line_over_the_input_limit_is_refused_without_holding_it(fresh_rpc):
    client = fresh_rpc()
    client.ok("get_state")
    before = peak_rss_kib(client.proc.pid)
    huge = b'{"type":"prompt","message":"' + b"x" * (320 << 20) + b'"}'
    (answer,) = answer_to(client, huge)
    assert answer["command"] == "parse" and answer["success"] is False
    assert "over 64 MiB" in answer["error"], answer
    grown_mib = (peak_rss_kib(client.proc.pid) - before) >> 10
    assert grown_mib < 200, f"peak RSS grew by {grown_mib} MiB reading a 320 MiB line"
    assert client.ok("get_state")["messageCount"] == 0
    assert "Traceback" not in client.stderr()
