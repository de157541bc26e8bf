"""How the CLI reaches memory: through a running service, or the store itself.

The embedded store locks its data directory, so while ``tessera serve``
runs, the CLI goes through its HTTP API; otherwise it opens the store and
runs the very same HTTP app in-process (no socket). Either way a request
carries the CLI's key and meets the same authentication and policy.
"""

import contextlib
import json
import logging
import os
import sys
from typing import Any, NamedTuple, Protocol

import httpx

from domain.errors import (
    AuthenticationError,
    ConflictError,
    InvalidInputError,
    NotFoundError,
    PolicyDeniedError,
    StoreUnavailableError,
    TesseraError,
    UpstreamError,
)
from domain.policy import Surface
from domain.reasons import ReasonCode
from entrypoints.credentials import read_key
from entrypoints.headers import AGENT_HEADER
from entrypoints.settings import Settings

__all__ = ["Backend", "Credentials", "HttpBackend", "choose_backend", "running_server"]

Json = Any

_log = logging.getLogger("tessera.cli")

_ERRORS: dict[int, type[TesseraError]] = {
    401: AuthenticationError,
    403: PolicyDeniedError,
    404: NotFoundError,
    409: ConflictError,
    503: StoreUnavailableError,
}


class Credentials(NamedTuple):
    """Who a call is made as: an API key, and the agent the caller claims to be (if any)."""

    key: str | None
    agent: str | None = None

    def headers(self) -> dict[str, str]:
        headers = {"authorization": f"Bearer {self.key}"} if self.key else {}
        if self.agent:
            headers[AGENT_HEADER] = self.agent
        return headers


class Backend(Protocol):
    description: str

    async def call(
        self,
        method: str,
        path: str,
        body: Json = None,
        params: dict[str, Any] | None = None,
        credentials: Credentials | None = None,
    ) -> Json: ...

    async def text(
        self,
        method: str,
        path: str,
        body: Json = None,
        params: dict[str, Any] | None = None,
        credentials: Credentials | None = None,
    ) -> str:
        """A route that answers text rather than one JSON value (the JSON-lines export)."""
        ...

    async def close(self) -> None: ...


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running_server(settings: Settings) -> str | None:
    """The base URL of a live ``tessera serve`` on this data directory, if any."""
    try:
        info = json.loads(settings.server_file.read_text())
        pid, url = int(info["pid"]), str(info["url"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return url if _pid_alive(pid) else None


def _error_of(response: httpx.Response) -> TesseraError:
    try:
        error = response.json()["error"]
        reason, detail = ReasonCode(error["reason"]), str(error["detail"])
    except (ValueError, KeyError, TypeError):
        reason, detail = ReasonCode.INTERNAL_ERROR, f"service answered HTTP {response.status_code}"
    kind = _ERRORS.get(response.status_code)
    if kind is None:
        kind = InvalidInputError if response.status_code < 500 else UpstreamError
    return kind(reason, detail)


class HttpBackend:
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

    async def call(
        self,
        method: str,
        path: str,
        body: Json = None,
        params: dict[str, Any] | None = None,
        credentials: Credentials | None = None,
    ) -> Json:
        """One request, as the backend's own key or as ``credentials`` when given."""
        response = await self._send(method, path, body, params, credentials)
        return response.json()

    async def text(
        self,
        method: str,
        path: str,
        body: Json = None,
        params: dict[str, Any] | None = None,
        credentials: Credentials | None = None,
    ) -> str:
        """``call`` for a route that answers text (the export's JSON lines)."""
        response = await self._send(method, path, body, params, credentials)
        return response.text

    async def _send(
        self,
        method: str,
        path: str,
        body: Json,
        params: dict[str, Any] | None,
        credentials: Credentials | None,
    ) -> httpx.Response:
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
            raise _error_of(response)
        return response

    async def close(self) -> None:
        """Idempotent: the MCP server closes on shutdown and again on the way out."""
        await self._client.aclose()
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            await on_close()


def _own(settings: Settings) -> Credentials:
    """The CLI's own credentials: its key and the agent it claims to be, if any."""
    return Credentials(read_key(settings), settings.agent)


async def _local(settings: Settings, surface: Surface) -> HttpBackend:
    from entrypoints.container import build_container
    from entrypoints.http.app import create_app
    from entrypoints.serve import announce_owner_key

    container = build_container(settings)
    # the CLI in its own process imports any path its user can read; MCP stays under the root
    container.imports_anywhere.override(surface is Surface.CLI)
    services = container.services()
    try:
        issued = await services.open(surface)
    except BaseException:
        await services.close()
        raise
    if issued is not None:
        # stderr: the command's own output (maybe --json) stays clean on stdout
        announce_owner_key(settings, issued, sys.stderr)
    app = create_app(services, surface=surface)
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    # in-process: no network, so only the work itself bounds the time
    client = httpx.AsyncClient(transport=transport, base_url="http://tessera.local", timeout=600)
    return HttpBackend(
        client, f"store {settings.url_kind}:// (in-process)", _own(settings), services.close
    )


async def choose_backend(settings: Settings, surface: Surface = Surface.CLI) -> Backend:
    """The running service on this data directory, else the store opened in-process.

    ``surface`` names the entrypoint in audit receipts of in-process calls; a
    running service records its own (``api``).
    """
    url = running_server(settings)
    if url is not None:
        # one client for the check and the calls: the check's connection is reused. The
        # URL is plain HTTP on this machine (serve writes it), so no TLS context is built
        client = httpx.AsyncClient(base_url=url, timeout=60.0, verify=False)  # noqa: S501
        if await _answers(client):
            return HttpBackend(client, f"service at {url}", _own(settings))
        await client.aclose()
        # a crash left server.json behind and its pid now belongs to someone else
        _log.warning(
            "no Tessera service answers at %s: removing the stale %s",
            url,
            settings.server_file.name,
        )
        with contextlib.suppress(FileNotFoundError):
            settings.server_file.unlink()
    return await _local(settings, surface)


async def _answers(client: httpx.AsyncClient) -> bool:
    """False only when nothing accepts a connection there; a slow service still answers
    (one that is still starting answers 503 at once: the calls then wait for it)."""
    try:
        await client.get("/api/health", timeout=httpx.Timeout(30.0, connect=3.0))
    except (httpx.ConnectError, httpx.ConnectTimeout):
        return False
    except httpx.HTTPError:
        return True
    return True
