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

from domain.policy import Surface
from entrypoints.credentials import Credentials, read_key
from entrypoints.json_calls import Backend
from entrypoints.settings import Settings

__all__ = ["Backend", "Credentials", "choose_backend", "running_server"]

_log = logging.getLogger("tessera.cli")


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


def _own(settings: Settings) -> Credentials:
    """The CLI's own credentials: its key and the agent it claims to be, if any."""
    return Credentials(read_key(settings), settings.agent)


async def _local(settings: Settings, surface: Surface) -> Backend:
    import httpx

    from entrypoints.container import build_container
    from entrypoints.http.app import create_app
    from entrypoints.http_backend import HttpBackend
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
        from entrypoints.service_client import ServiceBackend

        service = ServiceBackend(url, _own(settings).headers())
        if await service.answers():
            return service
        # a crash left server.json behind and its pid now belongs to someone else
        _log.warning(
            "no Tessera service answers at %s: removing the stale %s",
            url,
            settings.server_file.name,
        )
        with contextlib.suppress(FileNotFoundError):
            settings.server_file.unlink()
    return await _local(settings, surface)
