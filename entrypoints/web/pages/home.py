"""Memory home (``/memory``): the work first, and the quick actions.

Each list is one use case with the viewer's context: recent captures,
recalls and agents' reads (``ActivityFeed``, from the audit receipts the
viewer may see), imports (``ImportJobs.list_jobs``), candidates waiting for
review (``Reviewer.list_candidates``) and the spaces (``visible_spaces``).
"Remember a note" posts to ``MemoryService.remember`` and redirects.
"""

from typing import Any

from litestar import Request, Response, get, post
from litestar.datastructures import State
from litestar.response import Redirect, Template

from application.commands import RememberRequest
from application.enrichment.records import WaitFor
from domain.reflection.candidates import ReviewState
from domain.scopes import MemoryScope
from entrypoints.web.forms import posted
from entrypoints.web.render import page
from entrypoints.web.viewer import signed_in
from entrypoints.web.words import parse_space, space_value

__all__ = ["ROUTES"]

#: imports and candidates shown on the first screen
_SHOWN = 5


@get("/", name="web_home")
async def home(request: Request[Any, Any, State]) -> Template:
    viewer = await signed_in(request)
    services = viewer.services
    activity = await services.activity.recent(viewer.ctx)
    spaces = await services.inspector.visible_spaces(await viewer.context())
    imports = []
    if services.imports is not None:
        imports = (await services.imports.list_jobs(await viewer.context()))[:_SHOWN]
    candidates = []
    if services.review is not None:
        ctx = await viewer.context()
        listed = await services.review.list_candidates(
            ctx.org_id, ctx, ReviewState.PENDING, limit=_SHOWN
        )
        candidates = listed.candidates
    return page(
        "home.html",
        viewer,
        title="Memory",
        activity=activity,
        imports=imports,
        candidates=candidates,
        spaces=[(space_value(s.scope, s.scope_key), s) for s in spaces],
        done=request.query_params.get("done"),
    )


@post("/remember", status_code=303)
async def remember(request: Request[Any, Any, State]) -> Response[Any]:
    viewer = await signed_in(request)
    form = await posted(request, viewer)
    scope, key = parse_space(form.get("space"))
    result = await viewer.services.memory.remember(
        RememberRequest(
            org_id=viewer.ctx.org_id,
            content=form.get("content"),
            scope=scope or MemoryScope.PRIVATE,
            scope_key=key,
            wait=WaitFor.INDEXED,  # a person waits for one note: it is then found by meaning too
        ),
        viewer.ctx,
    )
    return Redirect(f"/memory/sources/{result.source_id}?done=remembered", status_code=303)


ROUTES = [home, remember]
