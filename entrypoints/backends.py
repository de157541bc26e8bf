"""How the CLI reaches memory: through a running service, or the store itself.

The embedded store locks its data directory, so while ``tessera serve``
runs, the CLI must go through its HTTP API; otherwise it opens the store
in-process. Both answer with the same JSON shapes as the HTTP API.
"""

import json
import os
import urllib.error
import urllib.request
from typing import Any, Protocol, TypeVar

import msgspec

from application.commands import ContextRequest, RememberRequest, SearchRequest
from domain.errors import InvalidInputError, StoreUnavailableError, TesseraError, UpstreamError
from domain.reasons import ReasonCode
from entrypoints.container import build_container
from entrypoints.settings import Settings

__all__ = ["Backend", "LocalBackend", "RemoteBackend", "choose_backend", "running_server"]

Json = dict[str, Any]
T = TypeVar("T")


class Backend(Protocol):
    description: str

    async def remember(self, body: Json) -> Json: ...
    async def search(self, body: Json) -> Json: ...
    async def context(self, body: Json) -> Json: ...
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


class LocalBackend:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._container = build_container(settings)
        self._service = self._container.service()
        self.description = f"store {settings.url_kind}:// (in-process)"

    async def remember(self, body: Json) -> Json:
        request = _convert(
            {**body, "org_id": self._settings.org_id, "actor_id": self._settings.actor_id},
            RememberRequest,
        )
        return _builtins(await self._service.remember(request))

    async def search(self, body: Json) -> Json:
        request = _convert({**body, "org_id": self._settings.org_id}, SearchRequest)
        return _builtins(await self._service.search(request))

    async def context(self, body: Json) -> Json:
        request = _convert({**body, "org_id": self._settings.org_id}, ContextRequest)
        return _builtins(await self._service.context_pack(request))

    async def close(self) -> None:
        await self._service.close()


def _convert(body: Json, kind: type[T]) -> T:
    try:
        return msgspec.convert(body, kind, strict=False)
    except msgspec.ValidationError as exc:
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, str(exc)) from None


def _builtins(value: object) -> Json:
    out: Json = msgspec.to_builtins(value)
    return out


class RemoteBackend:
    def __init__(self, base_url: str, timeout: float = 60.0) -> None:
        self._base = base_url.rstrip("/")
        self._timeout = timeout
        self.description = f"service at {self._base}"

    def _post(self, path: str, body: Json) -> Json:
        request = urllib.request.Request(  # noqa: S310 - our own loopback service URL
            self._base + path,
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:  # noqa: S310
                result: Json = json.loads(response.read())
                return result
        except urllib.error.HTTPError as exc:
            raise _remote_error(exc) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            raise StoreUnavailableError(
                ReasonCode.SERVICE_UNREACHABLE,
                f"the Tessera service at {self._base} did not answer ({type(exc).__name__})",
            ) from None

    async def remember(self, body: Json) -> Json:
        return self._post("/api/memory/remember", body)

    async def search(self, body: Json) -> Json:
        return self._post("/api/search", body)

    async def context(self, body: Json) -> Json:
        return self._post("/api/context/pack", body)

    async def close(self) -> None:
        return None


def _remote_error(exc: urllib.error.HTTPError) -> TesseraError:
    try:
        error = json.loads(exc.read())["error"]
        reason, detail = ReasonCode(error["reason"]), str(error["detail"])
    except (ValueError, KeyError, TypeError):
        reason, detail = ReasonCode.INTERNAL_ERROR, f"service answered HTTP {exc.code}"
    if 400 <= exc.code < 500:
        return InvalidInputError(reason, detail)
    if exc.code == 503:
        return StoreUnavailableError(reason, detail)
    return UpstreamError(reason, detail)


def choose_backend(settings: Settings) -> Backend:
    url = running_server(settings)
    if url is not None:
        return RemoteBackend(url)
    return LocalBackend(settings)
