"""Review (``/memory/review``): reflection candidates with their evidence; accept, reject, defer.

Use cases, with the viewer's context: ``Reviewer.list_candidates`` (only
candidates whose every source the viewer may read now), ``Reviewer.candidate``
(one of them) and ``Reviewer.review``, which asks the policy. The evidence is
each span's passage, read through ``MemoryInspector.inspect_source`` (so a
source the viewer may not read, or whose text is withheld, shows no text),
as the words around it (``entrypoints.web.evidence``: not the candidate's own
text again), under its source's title (``MemoryInspector.headings``).

Accept is two steps on the page: the promotion preview
(``PromotionPreviewer.preview``: of the target space's readers, how many would
see the records, and why not the others: hidden, redacted or denied sources;
per source, how many may read it), then the accept form, which posts the
preview's token so a source corrected in between is refused (409).
"""

from datetime import datetime
from typing import Any

import msgspec
from litestar import Request, Response, get, post
from litestar.datastructures import State
from litestar.params import FromPath
from litestar.response import Redirect, Template

from application.reflection.commands import CandidateView, ReviewRequest
from application.reflection.review import Reviewer
from domain.errors import InvalidInputError, NotFoundError
from domain.reasons import ReasonCode
from domain.reflection.candidates import ReviewAction, ReviewState, review_transition
from entrypoints.web.evidence import Passage, passage, repeats
from entrypoints.web.forms import posted
from entrypoints.web.render import page
from entrypoints.web.viewer import Viewer, signed_in
from entrypoints.web.words import parse_space, space_value

__all__ = ["ROUTES"]

_LIMIT = 50


class Evidence(msgspec.Struct, frozen=True, kw_only=True):
    source_id: str
    #: the source's title; None when the viewer may not read the source now, or when
    #: the title is the candidate's text again (a note's first line): then kind and date
    title: str | None
    kind: str | None = None
    when: datetime | None = None
    #: the cited words in their context, or None when the viewer may not see the text
    text: Passage | None


def _reviewer(viewer: Viewer) -> Reviewer:
    if viewer.services.review is None:
        raise NotFoundError(ReasonCode.NOT_FOUND, "reflection is not configured on this service")
    return viewer.services.review


async def _evidence(viewer: Viewer, candidates: list[CandidateView]) -> dict[str, list[Evidence]]:
    """Each candidate's spans as passages of its sources, read under the viewer's policy."""
    texts: dict[str, str | None] = {}
    for source_id in dict.fromkeys(s for c in candidates for s in c.source_ids):
        try:
            view = await viewer.services.inspector.inspect_source(await viewer.context(), source_id)
        except NotFoundError:
            texts[source_id] = None
            continue
        texts[source_id] = view.content
    readable = [s for s, text in texts.items() if text is not None]
    headings = await viewer.services.inspector.headings(await viewer.context(), readable)
    shown: dict[str, list[Evidence]] = {}
    for c in candidates:
        shown[c.id] = [
            Evidence(
                source_id=span.source_id,
                title=None
                if (heading := headings.get(span.source_id)) is None
                or repeats(heading.title, c.text)
                else heading.title,
                kind=heading.source_type if heading else None,
                when=(heading.occurred_at or heading.created_at) if heading else None,
                text=None
                if (whole := texts.get(span.source_id)) is None
                else passage(whole, span.start, span.end, c.text),
            )
            for span in c.spans
        ]
    return shown


def _state(value: str | None) -> ReviewState:
    try:
        return ReviewState(value or ReviewState.PENDING)
    except ValueError:
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, "unknown review state") from None


def _allowed(c: CandidateView) -> set[str]:
    return {str(a) for a in ReviewAction if review_transition(c.state, a) is not None}


@get("/review", name="web_review")
async def review(request: Request[Any, Any, State]) -> Template:
    viewer = await signed_in(request)
    state = _state(request.query_params.get("state"))
    ctx = await viewer.context()
    listed = await _reviewer(viewer).list_candidates(ctx.org_id, ctx, state, limit=_LIMIT)
    return page(
        "review.html",
        viewer,
        title="Review",
        state=str(state),
        states=[s.value for s in ReviewState],
        candidates=listed.candidates,
        evidence=await _evidence(viewer, listed.candidates),
        allowed={c.id: _allowed(c) for c in listed.candidates},
        done=request.query_params.get("done"),
    )


@get("/review/{candidate_id:str}/accept", name="web_review_accept")
async def accept_preview(
    request: Request[Any, Any, State], candidate_id: FromPath[str]
) -> Template:
    """Step one: what accepting writes, and where; the accept form."""
    viewer = await signed_in(request)
    ctx = await viewer.context()
    candidate = await _reviewer(viewer).candidate(ctx.org_id, candidate_id, ctx)
    chosen = request.query_params.get("space") or ""
    scope, key = parse_space(chosen)  # an unknown space is refused before the form is shown
    spaces = await viewer.services.inspector.visible_spaces(await viewer.context())
    counted = None
    if viewer.services.promotion_preview is not None and "accept" in _allowed(candidate):
        counted = await viewer.services.promotion_preview.preview(
            ctx.org_id, candidate_id, await viewer.context(), scope, key
        )
    return page(
        "review_accept.html",
        viewer,
        title="Accept a candidate: preview",
        c=candidate,
        evidence=(await _evidence(viewer, [candidate]))[candidate.id],
        may_accept="accept" in _allowed(candidate),
        chosen=chosen,
        spaces=[(space_value(s.scope, s.scope_key), s) for s in spaces if s.writes_enabled],
        preview=counted,
    )


async def _review(
    request: Request[Any, Any, State], candidate_id: str, action: ReviewAction
) -> str:
    viewer = await signed_in(request)
    form = await posted(request, viewer)
    scope, key = parse_space(form.get("space")) if action is ReviewAction.ACCEPT else (None, None)
    ctx = await viewer.context()
    done = await _reviewer(viewer).review(
        ReviewRequest(
            org_id=ctx.org_id,
            candidate_id=candidate_id,
            action=action,
            promote_to_scope=scope,
            scope_key=key if scope is not None else None,
            preview_token=form.optional("preview_token") if action is ReviewAction.ACCEPT else None,
        ),
        ctx,
    )
    return str(done.candidate.state)


@post("/review/{candidate_id:str}/accept", status_code=303)
async def accept(request: Request[Any, Any, State], candidate_id: FromPath[str]) -> Response[Any]:
    state = await _review(request, candidate_id, ReviewAction.ACCEPT)
    return Redirect(f"/memory/review?state={state}&done=accepted", status_code=303)


@post("/review/{candidate_id:str}/reject", status_code=303)
async def reject(request: Request[Any, Any, State], candidate_id: FromPath[str]) -> Response[Any]:
    await _review(request, candidate_id, ReviewAction.REJECT)
    return Redirect("/memory/review?done=rejected", status_code=303)


@post("/review/{candidate_id:str}/defer", status_code=303)
async def defer(request: Request[Any, Any, State], candidate_id: FromPath[str]) -> Response[Any]:
    await _review(request, candidate_id, ReviewAction.DEFER)
    return Redirect("/memory/review?done=deferred", status_code=303)


ROUTES = [review, accept_preview, accept, reject, defer]
