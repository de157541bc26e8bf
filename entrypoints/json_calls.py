"""What the CLI and the MCP server call the HTTP API through, whichever way it is reached.

One request answers the body's bytes (``_send``, each way its own); a JSON
value or text is read from them here, once for both ways.
"""

import json
from typing import Any

from entrypoints.credentials import Credentials

__all__ = ["Backend", "Json"]

Json = Any


class Backend:
    """A way to the HTTP API: a running service's socket, or the app in this process."""

    #: where the calls go, as a person reads it ("service at http://...")
    description: str

    async def call(
        self,
        method: str,
        path: str,
        body: Json = None,
        params: dict[str, Any] | None = None,
        credentials: Credentials | None = None,
    ) -> Json:
        """One request, as the backend's own key or as ``credentials`` when given."""
        return json.loads(await self._send(method, path, body, params, credentials))

    async def text(
        self,
        method: str,
        path: str,
        body: Json = None,
        params: dict[str, Any] | None = None,
        credentials: Credentials | None = None,
    ) -> str:
        """``call`` for a route that answers text (the export's JSON lines)."""
        return (await self._send(method, path, body, params, credentials)).decode("utf-8")

    async def close(self) -> None:
        """Idempotent: the MCP server closes on shutdown and again on the way out."""

    async def _send(
        self,
        method: str,
        path: str,
        body: Json,
        params: dict[str, Any] | None,
        credentials: Credentials | None,
    ) -> bytes:
        """The answer's body; a service error raised as the error it was."""
        raise NotImplementedError
