"""``tessera serve``: the HTTP service on the configured store.

Opens the store and warms the default organisation before listening, so a
locked data directory or a wrong embedder fails at once with a clear message,
and records where it listens so the CLI on this machine can reach it.
"""

import asyncio
import contextlib
import json
import logging
import os
import sys
from typing import TextIO

import uvicorn

from application.trust.keys import IssuedKey
from domain.policy import Surface
from entrypoints.container import build_container
from entrypoints.credentials import save_owner_key
from entrypoints.http.app import create_app
from entrypoints.http.slow_log import SlowRequestLog
from entrypoints.proxies import proxy_options
from entrypoints.request_log import ACCESS_LOGGER, AUDIT_LOGGER, apply_request_log
from entrypoints.settings import Settings

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


async def serve(settings: Settings) -> None:
    container = build_container(settings)
    services = container.services()
    apply_request_log(settings, AUDIT_LOGGER)
    try:
        _log.info("opening %s store and warming the retrieval index", settings.url_kind)
        issued = await services.open(Surface.API)
        url = f"http://{settings.host}:{settings.port}"
        if issued is not None:
            announce_owner_key(settings, issued, workspace=f"{url}/memory")
        service = services.memory
        # uvicorn re-raises SIGTERM/SIGINT after its graceful shutdown, so cleanup
        # that must happen on a signal runs in the app's shutdown hooks
        app = create_app(
            services,
            on_shutdown=[lambda: _remove_server_file(settings)],
            middleware=[SlowRequestLog(settings.slow_request_ms)],
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
        server = uvicorn.Server(config)
        if settings.url_kind in {"surrealkv", "file"}:
            _write_server_file(settings, url)
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
        await server.serve()
    finally:
        _remove_server_file(settings)
        await services.close()


def run(settings: Settings) -> None:
    asyncio.run(serve(settings))
