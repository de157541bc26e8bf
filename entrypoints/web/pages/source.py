"""Source inspect (``/memory/sources/{id}``) and its corrections, preview then apply.

The page is ``MemoryInspector.inspect_source`` with the viewer's context: what
the source is, why the viewer sees it, what was derived from it, what they
may do next, and (owner, correctors) its history and receipts. A correction
is two forms: preview (``CorrectionService.preview``: what changes, recall
impact, whether it can be undone) and apply with the preview's token
(``CorrectionService.apply``). A preview gone stale answers 409 with its
reason and a button for a fresh preview.
"""

from typing import Any

from litestar import Request, Response, get, post
from litestar.datastructures import State
from litestar.params import FromPath
from litestar.response import Redirect, Template

from application.corrections.commands import CorrectionRequest
from domain.errors import ConflictError, InvalidInputError
from domain.lifecycle import CorrectionAction
from domain.reasons import ReasonCode
from entrypoints.web.aiming import AIMED, before_after, candidates, check_span, spans_of
from entrypoints.web.forms import Form, posted
from entrypoints.web.history import Receipt, history
from entrypoints.web.render import page
from entrypoints.web.viewer import Viewer, signed_in
from entrypoints.web.words import ACTION_LABELS, ACTION_WORDS, metadata_facts

__all__ = ["ROUTES"]

_STALE = {ReasonCode.SOURCE_CHANGED, ReasonCode.PREVIEW_STALE}


@get("/sources/{source_id:str}", name="web_source")
async def inspect(request: Request[Any, Any, State], source_id: FromPath[str]) -> Template:
    viewer = await signed_in(request)
    view = await viewer.services.inspector.inspect_source(viewer.ctx, source_id)
    # the sources it names (replacement, original, what it replaces, what cites it), by title
    named = [*view.linked_from, *view.cited_by, view.superseded_by, view.duplicate_of]
    headings = await viewer.services.inspector.headings(
        await viewer.context(), [s for s in named if s]
    )
    facts, ids = metadata_facts(view.metadata)
    receipts = [Receipt(r.action, r.surface, r.allowed, r.reason, r.at) for r in view.receipts]
    # the picker for supersede and mark-duplicate: a plain GET search, answered on this page
    params = request.query_params
    find, aim = (params.get("find") or "").strip(), params.get("for") or ""
    found = await candidates(viewer, source_id, find) if find and aim in AIMED else None
    return page(
        "source.html",
        viewer,
        title=view.title or "Source",
        view=view,
        labels=ACTION_LABELS,
        words=ACTION_WORDS,
        done=request.query_params.get("done"),
        headings=headings,
        facts=facts,
        ids=ids,
        events=history(view.corrections, receipts),
        find=find,
        aim=aim,
        found=found,
    )


def _request(form: Form) -> CorrectionRequest:
    try:
        action = CorrectionAction(form.get("action"))
    except ValueError:
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, "unknown correction") from None
    # a pasted id wins over a choice from the picker: the person typed it on purpose
    target = form.optional("target_id") or form.optional("target")
    if action in AIMED and target is None:
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST, "choose the other source, or paste its id"
        )
    spans = spans_of(form) if action is CorrectionAction.REDACT else []
    return CorrectionRequest(
        action=action,
        reason=form.optional("reason"),
        replacement_id=target if action is CorrectionAction.SUPERSEDE else None,
        canonical_id=target if action is CorrectionAction.MARK_DUPLICATE else None,
        spans=spans or None,
        summary=form.optional("summary") if action is CorrectionAction.REDACT else None,
    )


def _fields(correction: CorrectionRequest, form: Form) -> list[tuple[str, str]]:
    """What the next form posts again, the target resolved to one id, a start and an end
    per passage to remove."""
    spans = [(str(s.start), str(s.end)) for s in correction.spans or ()]
    return [
        ("action", correction.action),
        ("target", correction.target_id or ""),
        ("reason", form.get("reason")),
        ("summary", correction.summary or ""),
        *(pair for start, end in spans for pair in (("start", start), ("end", end))),
    ]


def _preview_page(
    viewer: Viewer, source_id: str, form: Form, correction: CorrectionRequest, **context: Any
) -> Template:
    return page(
        "correction.html",
        viewer,
        title="Preview a correction",
        source_id=source_id,
        correction=correction,
        label=ACTION_LABELS[correction.action],
        words=ACTION_WORDS[correction.action],
        fields=_fields(correction, form),
        **context,
    )


@post("/sources/{source_id:str}/preview", status_code=200)
async def preview(request: Request[Any, Any, State], source_id: FromPath[str]) -> Template:
    viewer = await signed_in(request)
    form = await posted(request, viewer)
    correction = _request(form)
    view = await viewer.services.inspector.inspect_source(viewer.ctx, source_id)
    check_span(correction, view.content)
    found = await viewer.services.corrections.preview(viewer.ctx, source_id, correction)
    target = None
    if correction.target_id:
        named = await viewer.services.inspector.headings(
            await viewer.context(), [correction.target_id]
        )
        target = named.get(correction.target_id)
    return _preview_page(
        viewer,
        source_id,
        form,
        correction,
        preview=found,
        stale=None,
        change=before_after(correction, view, target),
    )


@post("/sources/{source_id:str}/apply", status_code=303)
async def apply(request: Request[Any, Any, State], source_id: FromPath[str]) -> Response[Any]:
    viewer = await signed_in(request)
    form = await posted(request, viewer)
    correction = _request(form)
    try:
        await viewer.services.corrections.apply(
            viewer.ctx, source_id, correction, form.optional("preview_token")
        )
    except ConflictError as exc:
        if exc.reason not in _STALE:
            raise
        stale = _preview_page(
            viewer, source_id, form, correction, preview=None, stale=exc.reason, change=None
        )
        stale.status_code = 409
        return stale
    return Redirect(f"/memory/sources/{source_id}?done={correction.action}", status_code=303)


ROUTES = [inspect, preview, apply]
