"""``GET /api/status``: operator diagnostics (the install's owner only)."""

import msgspec
from litestar import get
from litestar.di import NamedDependency

from application.operations.diagnostics import ServiceStatus
from application.services import Services
from application.trust.access import Caller
from entrypoints.recent_errors import watch_recent_errors

__all__ = ["STATUS_ROUTES"]


@get("/api/status", summary="Operator diagnostics: organisations, index, queues, recent errors")
async def service_status(
    services: NamedDependency[Services], caller: NamedDependency[Caller]
) -> ServiceStatus:
    """Counts per organisation (no text), the index and embedder, audit receipts waiting to
    be written, and the process's recent warnings and errors."""
    status = await services.status.status(caller.principal, watch_recent_errors().newest_first())
    progress = services.reembed.progress()
    return status if progress is None else msgspec.structs.replace(status, reembed=progress)


STATUS_ROUTES = [service_status]
