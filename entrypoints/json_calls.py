"""What the CLI and the MCP server call the HTTP API through, whichever way it is reached.

Each way only exchanges one request for a status and the body's bytes
(``_exchange``); choosing the key, saying that the service did not answer,
raising a service error as the error it was, and reading JSON or text are
done here, once for both ways.
"""

import json
from typing import Any, ClassVar

from domain.errors import StoreUnavailableError
from domain.reasons import ReasonCode
from entrypoints.credentials import Credentials
from entrypoints.service_errors import error_of

__all__ = ["Backend", "Json"]

Json = Any


class Backend:
    """A way to the HTTP API: a running service's socket, or the app in this process."""

    #: where the calls go, as a person reads it ("service at http://...")
    description: str
    #: the way's own key, sent unless a call gives other credentials
    _headers: dict[str, str]
    #: what the way raises when nothing answers (a refused connection, a dropped one)
    _unreachable: ClassVar[tuple[type[Exception], ...]]

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
        headers = self._headers if credentials is None else credentials.headers()
        try:
            status, data = await self._exchange(method, path, body, params, headers)
        except self._unreachable as exc:
            raise StoreUnavailableError(
                ReasonCode.SERVICE_UNREACHABLE,
                f"the Tessera service did not answer ({type(exc).__name__})",
            ) from None
        if status >= 400:
            raise error_of(status, data)
        return data

    async def _exchange(
        self,
        method: str,
        path: str,
        body: Json,
        params: dict[str, Any] | None,
        headers: dict[str, str],
    ) -> tuple[int, bytes]:
        """One request: the answer's status and body, whatever the status."""
        raise NotImplementedError
