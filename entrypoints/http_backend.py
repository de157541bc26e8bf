"""Calls into the HTTP app through httpx: in this process (the store opened here), or in tests.

The in-process path runs the very same app over httpx's ASGI transport, so a
request meets the same authentication and policy as over a socket. A running
service is called with ``entrypoints.service_client`` instead, which costs
fewer imports.
"""

from typing import Any

import httpx

from domain.errors import StoreUnavailableError
from domain.reasons import ReasonCode
from entrypoints.credentials import Credentials
from entrypoints.json_calls import Backend, Json
from entrypoints.service_errors import error_of

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

    async def _send(
        self,
        method: str,
        path: str,
        body: Json,
        params: dict[str, Any] | None,
        credentials: Credentials | None,
    ) -> bytes:
        headers = self._headers if credentials is None else credentials.headers()
        try:
            response = await self._client.request(
                method, path, json=body, params=params, headers=headers
            )
        except httpx.TransportError as exc:
            raise StoreUnavailableError(
                ReasonCode.SERVICE_UNREACHABLE,
                f"the Tessera service did not answer ({type(exc).__name__})",
            ) from None
        if response.status_code >= 400:
            raise error_of(response.status_code, response.content)
        return response.content

    async def close(self) -> None:
        """Idempotent: the MCP server closes on shutdown and again on the way out."""
        await self._client.aclose()
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            await on_close()
