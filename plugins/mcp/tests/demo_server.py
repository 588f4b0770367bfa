"""The MCP server the tests talk to: a real server on the official SDK (MCPServer, the
SDK's FastMCP), run as ``python demo_server.py [stdio|http PORT] [--tools N]
[--slow SECONDS] [--crash-after-start]``."""

from __future__ import annotations

import argparse
import base64
import os
import sys
import time
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.utilities.types import Image
from pydantic import BaseModel

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


class Weather(BaseModel):
    city: str
    celsius: float


def build(extra_tools: int, **options: Any) -> MCPServer:
    server = MCPServer("demo", **options)

    @server.tool(description="Echo the text back, upper-cased.")
    def shout(text: str) -> str:
        return text.upper()

    @server.tool(description="A one-pixel PNG.")
    def pixel() -> Image:
        return Image(data=PNG, format="png")

    @server.tool(description="The weather in a city, as structured content.")
    def weather(city: str) -> Weather:
        return Weather(city=city, celsius=21.5)

    @server.tool(description="A result of SIZE bytes.")
    def big(size: int = 5 * 1024 * 1024) -> str:
        return "x" * size

    @server.tool(description="Exit the server process in the middle of the call.")
    def crash() -> str:
        sys.stderr.write("demo server: crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)

    @server.tool(description="The server's process id.")
    def pid() -> str:
        return str(os.getpid())

    @server.tool(description="The request header KEY the server received (HTTP only).")
    def header(key: str, ctx: Context) -> str:
        return (ctx.headers or {}).get(key.lower(), "(none)")

    @server.tool(description="Start a child process that sleeps; its process id.")
    def spawn_child() -> str:
        import subprocess

        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        return str(child.pid)

    @server.tool(description="The value of environment variable KEY in the server.")
    def getenv(key: str) -> str:
        return os.environ.get(key, "(unset)")

    @server.tool(description="Sleep SECONDS, then answer.")
    def nap(seconds: float) -> str:
        time.sleep(seconds)
        return "rested"

    @server.tool(description="Add a tool named NAME and tell the client the list changed.")
    async def grow(name: str, ctx: Context) -> str:
        server.add_tool(lambda: f"{name} says hi", name=name, description=f"grown tool {name}")
        await ctx.session.send_tool_list_changed()
        await ctx.session.send_resource_updated("demo://readme")
        return f"added {name}"

    @server.tool(description="Remove the prompt named NAME and tell the client the list changed.")
    async def drop_prompt(name: str, ctx: Context) -> str:
        server.remove_prompt(name)
        await ctx.session.send_prompt_list_changed()
        return f"dropped {name}"

    @server.resource("demo://readme", description="The demo readme.", mime_type="text/plain")
    def readme() -> str:
        return "line one\nline two\n"

    @server.prompt(description="Ask for a review of a file.")
    def review(path: str, focus: str = "bugs") -> str:
        return f"Please review {path}, looking for {focus}."

    for index in range(extra_tools):

        def numbered(value: str = "", index: int = index) -> str:
            return f"tool {index}: {value}"

        server.add_tool(numbered, name=f"t{index:03d}", description=f"numbered tool {index}")
    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", nargs="?", default="stdio")
    parser.add_argument("port", nargs="?", type=int, default=0)
    parser.add_argument("--tools", type=int, default=0)
    parser.add_argument("--slow", type=float, default=0.0)
    parser.add_argument("--slow-if", default="", help="only when this file exists")
    args = parser.parse_args()
    if args.slow and (not args.slow_if or os.path.exists(args.slow_if)):
        time.sleep(args.slow)
    server = build(args.tools)
    if args.transport == "http":
        server.run("streamable-http", host="127.0.0.1", port=args.port)
    elif args.transport == "sse":
        server.run("sse", host="127.0.0.1", port=args.port)
    else:
        server.run()


if __name__ == "__main__":
    main()
