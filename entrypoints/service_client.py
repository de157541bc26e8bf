"""Calls to a running ``tessera serve`` over its plain-HTTP socket on this machine.

Python's own ``http.client``, not httpx: a command that talks to the service
pays for its imports on every run, and httpx with httpcore, h11, anyio and a
TLS context was about a third of ``tessera recall``'s start-up
(docs/decisions/internals.md). One JSON request to a local socket needs none
of that. Each call opens its own connection in a worker thread, so calls may
run side by side (the MCP server's) and none blocks the event loop.
"""

import asyncio
import http.client
import json
from typing import Any
from urllib.parse import urlencode, urlsplit

from entrypoints.json_calls import Backend, Json

__all__ = ["ServiceBackend"]

#: how long a call may take: a large import or a reflection is slow, a dead socket is not
_CALL_TIMEOUT = 60.0
#: how long the check that a service listens waits to connect
_CONNECT_TIMEOUT = 3.0
#: and for the answer of one that accepted (a service still starting answers 503 at once)
_HEALTH_TIMEOUT = 30.0


def _query_value(value: object) -> str:
    # as the HTTP API reads them (and httpx writes them): true/false, not True/False
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


class ServiceBackend(Backend):
    """The HTTP API of a running service; ``call`` and ``text`` as ``Backend`` has them."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or parts.hostname is None:
            raise ValueError(f"a local service URL is plain http://host:port, not {url!r}")
        self._host = parts.hostname
        self._port = parts.port or 80
        self._prefix = parts.path.rstrip("/")
        self._headers = headers
        self.description = f"service at {url}"

    async def answers(self) -> bool:
        """False only when nothing accepts a connection there; a slow service still answers
        (one that is still starting answers 503 at once: the calls then wait for it)."""
        return await asyncio.to_thread(self._listens)

    _unreachable = (OSError, http.client.HTTPException)

    async def _exchange(
        self,
        method: str,
        path: str,
        body: Json,
        params: dict[str, Any] | None,
        headers: dict[str, str],
    ) -> tuple[int, bytes]:
        # each call its own connection in a worker thread: calls may run side by side
        return await asyncio.to_thread(self._request, method, path, body, params, headers)

    def _listens(self) -> bool:
        connection = http.client.HTTPConnection(self._host, self._port, timeout=_CONNECT_TIMEOUT)
        try:
            try:
                connection.connect()
            except OSError:
                return False
            if connection.sock is not None:
                connection.sock.settimeout(_HEALTH_TIMEOUT)
            try:
                connection.request("GET", self._prefix + "/api/health")
                connection.getresponse().read()
            except (OSError, http.client.HTTPException):
                pass  # it took the connection: a service is there, slow or failing
            return True
        finally:
            connection.close()

    def _request(
        self,
        method: str,
        path: str,
        body: Json,
        params: dict[str, Any] | None,
        headers: dict[str, str],
    ) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection(self._host, self._port, timeout=_CALL_TIMEOUT)
        try:
            target = self._prefix + path
            if params:
                target += "?" + urlencode({k: _query_value(v) for k, v in params.items()})
            sent = dict(headers)
            payload = None
            if body is not None:
                payload = json.dumps(body).encode("utf-8")
                sent["content-type"] = "application/json"
            connection.request(method, target, body=payload, headers=sent)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()
