"""Memory home (``/memory``): the work first, and the quick actions.

Each list is one use case with the viewer's context: recent captures,
recalls and agents' reads (``ActivityFeed``, from the audit receipts the
viewer may see), imports (``ImportJobs.list_jobs``), candidates waiting for
review (``Reviewer.list_candidates``), the spaces (``visible_spaces``), and
drafts with open gaps and sources to review (``FollowUpFeed.suggest``).
"Remember a note" posts to ``MemoryService.remember`` and redirects.

The scope switcher (``?space=``: one of the seven scopes, or one of the
viewer's spaces) narrows every list that has a space, through the use cases'
own ``within`` where they take one, and carries into the quick search. It
only narrows what the policy already let the viewer read.
"""

from collections.abc import Container
from pathlib import Path
from typing import Any, NamedTuple

from litestar import Request, Response, get, post
from litestar.datastructures import State
from litestar.response import Redirect, Template

from application.memory.commands import RememberRequest
from application.ports.writes import WaitFor
from application.workspace.activity import RecentRecall
from application.workspace.space_choice import SpaceChoice
from domain.reflection.candidates import ReviewState
from domain.scopes import MemoryScope
from entrypoints.web.forms import posted
from entrypoints.web.render import page
from entrypoints.web.viewer import signed_in
from entrypoints.web.words import parse_space, space_value

__all__ = ["ROUTES"]

#: imports and candidates shown on the first screen
_SHOWN = 5
#: pending candidates looked at when a space is chosen
_SCANNED = 50


class Recalls(NamedTuple):
    """A run of the same recall (the same words, through the same surface) as one line."""

    last: RecentRecall
    #: how many times: a search page's search and its context pack are one recall
    times: int
    #: a search among them (else only context packs)
    searched: bool


def _runs(recalls: list[RecentRecall], known: Container[str]) -> list[Recalls]:
    """Ten identical "search via api: 3 returned" lines read as one, with its count and the
    newest search's result. Recalls of words this session searched (``known``, by their
    hash) are one run whatever their kind, so a search page's search and pack read as one
    line; the others, whose words are not kept, by their kind and surface."""
    counted: dict[tuple[object, ...], dict[str, list[RecentRecall]]] = {}
    for r in recalls:  # newest first
        words = r.query_hash if r.query_hash in known else None
        key = (r.surface, words) if words else (r.action, r.surface)
        counted.setdefault(key, {}).setdefault(r.action, []).append(r)
    runs = []
    for by_action in counted.values():
        searches = by_action.get("search", [])
        shown = searches or next(iter(by_action.values()))
        times = max(len(found) for found in by_action.values())
        runs.append(Recalls(last=shown[0], times=times, searched=bool(searches)))
    return runs


def _note_space(chosen: str, writable: list[str]) -> str:
    """Where "Remember a note" keeps it: the space the home is narrowed to, when one is
    chosen and writable, else the viewer's private memory."""
    own = next((value for value in writable if value.startswith("private")), "private")
    return chosen if chosen in writable else own


def _choice(value: str) -> SpaceChoice | None:
    scope, key = parse_space(value)
    return None if scope is None else SpaceChoice(scope=scope, scope_key=key)


def _chosen(value: str) -> str:
    """The switcher's value as the select writes it (``project/apollo`` -> ``project:apollo``)."""
    scope, key = parse_space(value)
    return "" if scope is None else space_value(scope, key)


@get("/", name="web_home")
async def home(request: Request[Any, Any, State]) -> Template:
    viewer = await signed_in(request)
    services = viewer.services
    chosen = _chosen(request.query_params.get("space") or "")
    within = _choice(chosen)
    activity = await services.activity.recent(viewer.ctx, within)
    spaces = await services.inspector.visible_spaces(await viewer.context())
    imports = []
    if services.imports is not None:
        jobs = await services.imports.list_jobs(await viewer.context())
        imports = [
            j for j in jobs if within is None or within.holds(j.target.scope, j.target.scope_key)
        ]
    candidates = []
    if services.review is not None:
        ctx = await viewer.context()
        # a page of pending candidates, narrowed to those suggested for the chosen space
        listed = await services.review.list_candidates(
            ctx.org_id, ctx, ReviewState.PENDING, limit=_SHOWN if within is None else _SCANNED
        )
        candidates = [
            c for c in listed.candidates if within is None or within.holds_text(c.suggested_scope)
        ]
    follow_up = await services.follow_up.suggest(await viewer.context(), within)
    return page(
        "home.html",
        viewer,
        title="Memory",
        activity=activity,
        recalls=_runs(activity.recalls, viewer.session.queries),
        queries=viewer.session.queries,
        imports=[(j, Path(j.path).name) for j in imports[:_SHOWN]],
        candidates=candidates[:_SHOWN],
        follow_up=follow_up,
        chosen=chosen,
        spaces=[(space_value(s.scope, s.scope_key), s) for s in spaces],
        keyed_spaces=[(space_value(s.scope, s.scope_key), s) for s in spaces if s.scope_key],
        note_space=_note_space(
            chosen, [space_value(s.scope, s.scope_key) for s in spaces if s.writes_enabled]
        ),
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
