"""Calls into the HTTP app through httpx: in this process (the store opened here), or in tests.

The in-process path runs the very same app over httpx's ASGI transport, so a
request meets the same authentication and policy as over a socket. A running
service is called with ``entrypoints.service_client`` instead, which costs
fewer imports.
"""

from typing import Any

import httpx

from entrypoints.credentials import Credentials
from entrypoints.json_calls import Backend, Json

__all__ = ["HttpBackend"]


class HttpBackend(Backend):
    """Calls the HTTP API, over a socket or straight into an in-process app."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        description: str,
        credentials: Credentials,
        on_close: Any = None,
    ) -> None:
        self._client = client
        self._headers = credentials.headers()
        self._on_close = on_close
        self.description = description

    _unreachable = (httpx.TransportError,)

    async def _exchange(
        self,
        method: str,
        path: str,
        body: Json,
        params: dict[str, Any] | None,
        headers: dict[str, str],
    ) -> tuple[int, bytes]:
        response = await self._client.request(
            method, path, json=body, params=params, headers=headers
        )
        return response.status_code, response.content

    async def close(self) -> None:
        """Idempotent: the MCP server closes on shutdown and again on the way out."""
        await self._client.aclose()
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            await on_close()
