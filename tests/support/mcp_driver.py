"""The policy suites' ``Driver`` over MCP: each principal is an MCP client with its own key.

Setting up stays with the operator (in process, as ``tessera admin`` would).
Every read and write is a tool call from the official MCP client to the
server of ``entrypoints.mcp``, which reaches memory through the HTTP API's
routes in-process, as ``tessera mcp`` does when it owns the store.
"""

from contextlib import AsyncExitStack
from typing import Any

import httpx
from mcp import Client

from domain.policy import Surface
from entrypoints.credentials import Credentials
from entrypoints.http.app import create_app
from entrypoints.http_backend import HttpBackend
from entrypoints.mcp.server import build_server
from tests.support.json_driver import JsonDriver
from tests.support.policy_suites import Denied, Who
from tests.support.world import World

__all__ = ["McpDriver"]

#: tool errors that mean "the surface refused", as 403/404 do over HTTP
_REFUSALS_EXCLUDED = {"invalid_request", "unknown_field", "internal_error"}


class McpDriver(JsonDriver):
    def __init__(self, world: World | None = None) -> None:
        super().__init__(world, Surface.MCP)
        app = create_app(self.world.services, surface=Surface.MCP)
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        client = httpx.AsyncClient(transport=transport, base_url="http://tessera.test")
        self._backend = HttpBackend(client, "test app (in-process)", Credentials(None))
        self._stack = AsyncExitStack()
        self._clients: dict[str, Client] = {}

    async def _client(self, who: Who) -> Client:
        client = self._clients.get(who.principal_id)
        if client is None:
            key = Credentials(await self.world.key(self._records[who.principal_id]))
            server = build_server(self._backend, lambda _ctx: key)
            client = await self._stack.enter_async_context(Client(server))
            self._clients[who.principal_id] = client
        return client

    async def _act(self, who: Who, name: str, arguments: dict[str, Any]) -> Any:
        result = await (await self._client(who)).call_tool(name, arguments)
        if result.is_error:
            reason = result.structured_content["error"]["reason"]
            assert reason not in _REFUSALS_EXCLUDED, result.content
            raise Denied(reason)
        return result.structured_content

    async def close(self) -> None:
        await self._stack.aclose()
        await self._backend.close()
