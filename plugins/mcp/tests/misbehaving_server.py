"""A stdio MCP server that misbehaves on purpose, speaking the protocol by hand so the
tests decide exactly what it does: ``python misbehaving_server.py LOG [--hang MODE]
[--garbage N]``.

Every message it receives is appended to LOG as one JSON line (with the server's pid),
so a test can see the ``notifications/cancelled`` and ``ping`` that reached it. Tools:
``hang`` never answers (``--hang busy``: the server goes on answering everything else;
``--hang frozen``: the whole process stops reading, as a server stuck in a blocking call
does), ``pid`` answers the process id, ``shout`` the text upper-cased. ``--garbage N``
prints N lines that are not JSON-RPC on stdout before answering ``tools/list``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

TOOLS = [
    {"name": name, "description": f"the {name} tool", "inputSchema": schema}
    for name, schema in (
        ("hang", {"type": "object", "properties": {}}),
        ("pid", {"type": "object", "properties": {}}),
        ("shout", {"type": "object", "properties": {"text": {"type": "string"}}}),
    )
]
GARBAGE = ["this is not json", '{"jsonrpc": "2.0", "id": ', "[1, 2, 3]", '{"no": "jsonrpc"}']


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def reply(request: dict[str, Any], result: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def text(value: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], "isError": False}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("--hang", choices=("busy", "frozen"), default="busy")
    parser.add_argument("--garbage", type=int, default=0)
    args = parser.parse_args()
    for line in sys.stdin:
        message = json.loads(line)
        with open(args.log, "a", encoding="utf-8") as log:
            log.write(json.dumps({"pid": os.getpid(), **message}) + "\n")
        method = message.get("method")
        if method == "initialize":
            reply(
                message,
                {
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "misbehaving", "version": "1"},
                },
            )
        elif method == "tools/list":
            for index in range(args.garbage):
                sys.stdout.write(GARBAGE[index % len(GARBAGE)] + "\n")
            reply(message, {"tools": TOOLS})
        elif method == "ping":
            reply(message, {})
        elif method == "tools/call":
            name = message["params"]["name"]
            if name == "hang":
                if args.hang == "frozen":
                    time.sleep(3600)
            elif name == "pid":
                reply(message, text(str(os.getpid())))
            else:
                reply(message, text(str(message["params"]["arguments"].get("text", "")).upper()))
        elif "id" in message and method is not None:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "error": {"code": -32601, "message": method},
                }
            )


if __name__ == "__main__":
    main()
