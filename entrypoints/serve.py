"""``tessera serve``: the HTTP service on the configured store.

A restart costs the longer of two things, not their sum: the store opens,
the index restores and the embedder's model loads (in its own thread) while
the HTTP app is imported, built and starts listening. Until the store is
open, ``/api/health`` answers ``starting`` and other requests wait
(``entrypoints.http.start_gate``). A locked data directory or a wrong
embedder still fails the start with a clear message and exit code; where it
listens is recorded once it is open, so the CLI on this machine can reach it.
"""

import asyncio
import contextlib
import json
import logging
import os
import sys
from typing import TYPE_CHECKING, Any, TextIO

from application.trust.keys import IssuedKey
from domain.policy import Surface
from entrypoints.container import build_container
from entrypoints.credentials import save_owner_key
from entrypoints.request_log import ACCESS_LOGGER, AUDIT_LOGGER, apply_request_log
from entrypoints.settings import Settings

if TYPE_CHECKING:
    from application.services import Services

__all__ = ["announce_owner_key", "serve"]

_log = logging.getLogger("tessera.serve")


def _write_server_file(settings: Settings, url: str) -> None:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    tmp = settings.server_file.with_suffix(".tmp")
    tmp.write_text(json.dumps({"pid": os.getpid(), "url": url}))
    tmp.replace(settings.server_file)


def _remove_server_file(settings: Settings) -> None:
    with contextlib.suppress(FileNotFoundError, ValueError):
        info = json.loads(settings.server_file.read_text())
        if info.get("pid") == os.getpid():
            settings.server_file.unlink()


def announce_owner_key(
    settings: Settings,
    issued: IssuedKey,
    stream: TextIO | None = None,
    workspace: str | None = None,
) -> None:
    """Show the first owner key once and keep it where the local CLI finds it."""
    path = save_owner_key(settings, issued.key)
    where = "" if workspace is None else f"\nSign in with it to the memory workspace: {workspace}"
    print(
        f"Created organisation {issued.org_id!r} and its owner. The owner's API key is shown "
        f"once here and saved (readable only by you) to {path}:\n{issued.key}{where}",
        file=stream or sys.stdout,
        flush=True,
    )


def _server(settings: Settings, services: "Services") -> tuple[Any, Any]:
    """The uvicorn server around the HTTP app, and the app's start gate (imported here:
    this runs in a thread while the store opens)."""
    import uvicorn

    from entrypoints.http.app import create_app
    from entrypoints.http.slow_log import SlowRequestLog
    from entrypoints.http.start_gate import StartGate
    from entrypoints.proxies import proxy_options

    gate = StartGate()
    # uvicorn re-raises SIGTERM/SIGINT after its graceful shutdown, so cleanup
    # that must happen on a signal runs in the app's shutdown hooks
    app = create_app(
        services,
        on_shutdown=[lambda: _remove_server_file(settings)],
        middleware=[gate, SlowRequestLog(settings.slow_request_ms)],
        open_on_startup=False,
    )
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        lifespan="on",
        **proxy_options(settings),
    )
    apply_request_log(settings, ACCESS_LOGGER)  # uvicorn.Config set it up anew
    return uvicorn.Server(config), gate


async def _listening(server: Any, serving: "asyncio.Task[None]") -> None:
    """Wait until uvicorn listens, or until it stopped (a port in use)."""
    while not server.started and not serving.done():  # noqa: ASYNC110 - uvicorn has only a flag
        await asyncio.sleep(0.01)


async def serve(settings: Settings) -> None:
    container = build_container(settings)
    services = container.services()
    apply_request_log(settings, AUDIT_LOGGER)
    url = f"http://{settings.host}:{settings.port}"
    try:
        _log.info("opening %s store and warming the retrieval index", settings.url_kind)
        opening = asyncio.create_task(services.open(Surface.API, load_model=True))
        try:
            server, gate = await asyncio.to_thread(_server, settings, services)
        except BaseException:
            opening.cancel()
            raise
        serving = asyncio.create_task(server.serve())
        try:
            issued = await opening
        except BaseException:
            server.should_exit = True  # the store's failure is the start's answer
            await serving
            raise
        gate.open()
        if issued is not None:
            announce_owner_key(settings, issued, workspace=f"{url}/memory")
        await _listening(server, serving)
        if settings.url_kind in {"surrealkv", "file"} and server.started:
            _write_server_file(settings, url)
        service = services.memory
        space = service.embedding_space
        _log.info(
            "Tessera on %s: store %s://, embedder %s (%d dims), index %s",
            url,
            settings.url_kind,
            space.model,
            space.dimension,
            service.index_name,
        )
        _log.info("the memory workspace: %s/memory (sign in with your API key)", url)
        await serving
    finally:
        _remove_server_file(settings)
        await services.close()


def run(settings: Settings) -> None:
    asyncio.run(serve(settings))
