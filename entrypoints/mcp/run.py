"""``tessera mcp``: the MCP server over stdio (desktop agents) or streamable HTTP.

Both open the store the way the CLI does: through the running ``tessera
serve`` on this data directory when there is one (the embedded store
allows one process), else in-process.
"""

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server
from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from domain.policy import Surface
from entrypoints.backends import choose_backend
from entrypoints.credentials import Credentials, read_key
from entrypoints.headers import AGENT_HEADER, bearer_key
from entrypoints.mcp.server import build_server
from entrypoints.proxies import proxy_options
from entrypoints.settings import Settings, SettingsError

__all__ = ["MCP_PATH", "RequireBearer", "request_credentials", "serve_http", "serve_stdio"]

_log = logging.getLogger("tessera.mcp")

MCP_PATH = "/mcp"


async def serve_stdio(settings: Settings) -> None:
    """Serve one client on stdin/stdout as ``TESSERA_API_KEY``, else the saved owner key.

    The same key the other commands use, so a desktop agent configured with
    only ``tessera mcp`` works on the machine that runs Tessera.
    """
    key = read_key(settings)
    if key is None:
        raise SettingsError(
            "tessera mcp needs an API key: set TESSERA_API_KEY to the agent's or user's key "
            "(create one with: tessera admin key create --principal NAME), or start "
            "tessera serve once so the owner's key is saved on this machine"
        )
    who = Credentials(key, settings.agent)
    backend = await choose_backend(settings, Surface.MCP)
    _close_and_exit_on_sigterm(backend.close)
    try:
        _log.info("Tessera MCP on stdio, %s", backend.description)
        server = build_server(backend, lambda _ctx: who)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await backend.close()


def _close_and_exit_on_sigterm(close: Callable[[], Awaitable[None]]) -> None:
    """Clients often stop a stdio server with SIGTERM: close the store and audit, then exit.

    Cancelling cannot unwind the server: its stdin reader is a thread blocked
    on a read, so the process would hang until the client closed the pipe.
    """
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[None]] = []

    async def stop() -> None:
        try:
            await close()
        finally:
            logging.shutdown()
            os._exit(0)

    def on_sigterm() -> None:
        if not stopping:
            stopping.append(loop.create_task(stop()))

    loop.add_signal_handler(signal.SIGTERM, on_sigterm)


def _close_on_shutdown(app: Starlette, close: Callable[[], Awaitable[None]]) -> None:
    """Close ``close`` in the app's lifespan shutdown.

    uvicorn re-raises SIGTERM after its graceful shutdown, which ends the
    process before code after ``serve()`` runs; the lifespan still runs first.
    """
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[Any]:
        async with inner(app) as state:
            try:
                yield state
            finally:
                await close()

    app.router.lifespan_context = lifespan


def request_credentials(ctx: ServerRequestContext[Any, Any]) -> Credentials:
    """The bearer key (and claimed agent) of the HTTP request behind a tool call."""
    request = ctx.request
    headers = getattr(request, "headers", None)
    if headers is None:
        return Credentials(None)
    return Credentials(bearer_key(headers.get("authorization")), headers.get(AGENT_HEADER) or None)


class RequireBearer:
    """Answers 401 to MCP requests without a bearer key, before any MCP work.

    Whether the key is valid is the memory service's call, per tool call
    (``invalid_api_key`` / ``revoked_api_key`` tool errors), so this layer
    never holds or checks secrets.
    """

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and str(scope.get("path", "")).startswith(MCP_PATH):
            headers = {k.decode("latin-1").lower(): v for k, v in scope.get("headers", [])}
            authorization = headers.get("authorization", b"").decode("latin-1")
            if bearer_key(authorization) is None:
                body = (
                    b'{"error":{"reason":"missing_api_key","detail":'
                    b'"send the API key as Authorization: Bearer <key>"}}'
                )
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="tessera"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self._app(scope, receive, send)


async def serve_http(settings: Settings, host: str, port: int) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp``; each request brings its bearer key."""
    backend = await choose_backend(settings, Surface.MCP)
    try:
        server = build_server(backend, request_credentials)
        # stateless: every request stands alone with its own key, so no session
        # can outlive a revoked key or be picked up by another caller
        app = server.streamable_http_app(
            streamable_http_path=MCP_PATH, stateless_http=True, json_response=True, host=host
        )
        _close_on_shutdown(app, backend.close)
        config = uvicorn.Config(
            RequireBearer(app),
            host=host,
            port=port,
            log_level=settings.log_level.lower(),
            lifespan="on",
            **proxy_options(settings),
        )
        _log.info("Tessera MCP on http://%s:%d%s, %s", host, port, MCP_PATH, backend.description)
        print(f"Tessera MCP: http://{host}:{port}{MCP_PATH}", file=sys.stderr, flush=True)
        await uvicorn.Server(config).serve()
    finally:
        await backend.close()
