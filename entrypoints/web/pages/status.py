"""Service status (``/memory/status``): the operator diagnostics, for the install's owner.

One use case, ``StatusReporter.status`` (the same as ``GET /api/status``),
with the signed-in principal: it refuses anyone but the operator
(``admin_required``), which the error table turns into a 403 page. Counts,
names and the recent warnings only; no memory text.
"""

from typing import Any

from litestar import Request, get
from litestar.datastructures import State
from litestar.response import Template

from entrypoints.recent_errors import watch_recent_errors
from entrypoints.web.render import page
from entrypoints.web.viewer import signed_in

__all__ = ["ROUTES"]


@get("/status", name="web_status")
async def status(request: Request[Any, Any, State]) -> Template:
    viewer = await signed_in(request)
    found = await viewer.services.status.status(
        viewer.caller.principal, watch_recent_errors().newest_first()
    )
    return page("status.html", viewer, title="Service status", status=found)


ROUTES = [status]
