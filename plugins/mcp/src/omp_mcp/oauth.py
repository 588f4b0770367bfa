"""OAuth for remote MCP servers, through the SDK's ``OAuthClientProvider``.

``omp mcp login NAME`` runs the authorization-code flow once: the authorization URL
opens in the browser (``$BROWSER``) and is printed, a one-shot HTTP server on loopback
receives the redirect, and the tokens land in ``<agent dir>/mcp-auth.json`` (0600,
beside auth.json). Sessions then send them and refresh them, but never start a browser
flow themselves: a server that wants a new login says to run ``omp mcp login NAME``.
Tokens are never printed or logged.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from omp import write_file

LOGIN_TIMEOUT_S = 300.0


def auth_path(agent_dir: Path) -> Path:
    return agent_dir / "mcp-auth.json"


class TokenFile:
    """The SDK's TokenStorage over one entry of ``mcp-auth.json``."""

    def __init__(self, path: Path, server: str) -> None:
        self.path = path
        self.server = server

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def entry(self) -> dict[str, Any]:
        found = self._load().get(self.server)
        return found if isinstance(found, dict) else {}

    def _save(self, key: str, value: Any) -> None:
        data = self._load()
        data.setdefault(self.server, {})[key] = value
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_file(self.path, json.dumps(data, indent=2).encode("utf-8"), mode=0o600)

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        raw = self.entry().get("tokens")
        return OAuthToken.model_validate(raw) if raw else None

    async def set_tokens(self, tokens: Any) -> None:
        self._save("tokens", tokens.model_dump(mode="json", exclude_none=True))

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        raw = self.entry().get("client")
        return OAuthClientInformationFull.model_validate(raw) if raw else None

    async def set_client_info(self, client_info: Any) -> None:
        self._save("client", client_info.model_dump(mode="json", exclude_none=True))


def stored_provider(config: Any, agent_dir: Path) -> Any:
    """An auth provider for a session when ``omp mcp login`` stored tokens, else None."""
    storage = TokenFile(auth_path(agent_dir), config.name)
    entry = storage.entry()
    if not entry.get("tokens"):
        return None
    redirect = (entry.get("client") or {}).get("redirect_uris") or ["http://127.0.0.1/callback"]

    async def no_browser(url: str) -> None:
        from mcp.client.auth import OAuthFlowError

        raise OAuthFlowError(f"{config.name} needs a new login: run `omp mcp login {config.name}`")

    async def no_callback() -> Any:
        raise AssertionError("unreachable: no_browser raised")

    return _provider(config, storage, redirect[0], no_browser, no_callback)


def _provider(config: Any, storage: TokenFile, redirect_uri: str, redirect: Any, callback: Any):
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    metadata = OAuthClientMetadata(
        client_name="omp",
        redirect_uris=[redirect_uri],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    return OAuthClientProvider(config.url, metadata, storage, redirect, callback)


class LoopbackCallback:
    """A one-shot HTTP server on 127.0.0.1 that receives the authorization redirect."""

    def __init__(self) -> None:
        self._result: asyncio.Future[dict[str, str]] | None = None
        self._server: asyncio.Server | None = None
        self.redirect_uri = ""

    async def start(self) -> str:
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.redirect_uri = f"http://127.0.0.1:{port}/callback"
        return self.redirect_uri

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = (await reader.readline()).decode("latin-1").split()
        while (await reader.readline()).strip():
            pass
        query = parse_qs(urlparse(request[1] if len(request) > 1 else "/").query)
        found = {k: v[0] for k, v in query.items()}
        ok = "code" in found
        body = b"omp: logged in, you can close this tab.\n" if ok else b"omp: login failed.\n"
        status = b"200 OK" if ok else b"400 Bad Request"
        writer.write(b"HTTP/1.1 " + status + b"\r\nContent-Type: text/plain\r\n")
        writer.write(b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
        await writer.drain()
        writer.close()
        if self._result is not None and not self._result.done() and (ok or "error" in found):
            self._result.set_result(found)

    async def wait(self) -> Any:
        from mcp.client.auth import AuthorizationCodeResult, OAuthFlowError

        assert self._result is not None
        try:
            found = await asyncio.wait_for(self._result, LOGIN_TIMEOUT_S)
        except TimeoutError:
            raise OAuthFlowError("no answer from the browser within 5 minutes") from None
        if "code" not in found:
            raise OAuthFlowError(f"the server refused: {found.get('error', 'no code')}")
        return AuthorizationCodeResult(code=found["code"], state=found.get("state"))

    def close(self) -> None:
        if self._server is not None:
            self._server.close()


async def login(config: Any, agent_dir: Path, request_timeout: float) -> int:
    """``omp mcp login NAME``: the browser flow, then a connection that proves it."""
    import webbrowser

    from omp_mcp.connection import Connection

    if config.transport == "stdio":
        print(f"omp: {config.name} is a stdio server; OAuth is for remote ones", file=sys.stderr)
        return 1
    callback = LoopbackCallback()
    redirect_uri = await callback.start()

    async def open_browser(url: str) -> None:
        print(f"Open this URL to authorise omp for {config.name}:\n  {url}", file=sys.stderr)
        await asyncio.to_thread(webbrowser.open, url)

    storage = TokenFile(auth_path(agent_dir), config.name)
    auth = _provider(config, storage, redirect_uri, open_browser, callback.wait)
    connection = Connection(
        config,
        request_timeout=request_timeout,
        startup_timeout=LOGIN_TIMEOUT_S,
        auth=auth,
    )
    connection.start()
    try:
        if not await connection.wait_ready(LOGIN_TIMEOUT_S + 5):
            print(f"omp: login to {config.name} failed: {connection.error}", file=sys.stderr)
            return 1
    finally:
        await connection.close()
        callback.close()
    print(f"logged in to {config.name}; tokens saved in {auth_path(agent_dir)} (0600)")
    return 0
