"""Synthesize (``/memory/synthesize``): a cited document from memory, stage by stage.

Use cases, with the viewer's context: ``SynthesisService.plan`` (query,
output type, audience → an outline; an edited outline plans a new run),
``sections`` (the section packs with hidden and withheld counts), ``draft``
(every sentence cites its sources; each citation links to the source page),
``verify`` (coverage, support, gaps, a status) and ``remember`` (the artifact
as memory, through the write policy). ``SynthesisRunList`` lists the
viewer's runs and shows one run's plan, so a run is resumed after a restart.

Plan and remember post and redirect. Packs, draft and verification are the
answer to the form that runs the stage: each stage re-checks its packs under
the viewer's policy now, so memory hidden since a draft was written is never
shown from a stored copy. Verify writes the draft again first (the same
extractive drafter as "Write the draft") so the draft shown beside "Remember
the document" is the one verified, read under the policy now. A remembered
run shows its document, read through ``MemoryInspector.inspect_source``.
Packs are folded per section, each passage a snippet around the query's
words under its source's title.
"""

from typing import Any

from litestar import Request, Response, get, post
from litestar.datastructures import State
from litestar.params import FromPath
from litestar.response import Redirect, Template

from application.synthesis.commands import PlanRequest
from application.synthesis.run_list import RunSummary
from domain.errors import InvalidInputError, NotFoundError
from domain.reasons import ReasonCode
from domain.synthesis.outline import OutputType
from entrypoints.web.documents import blocks
from entrypoints.web.forms import Form, posted
from entrypoints.web.render import page
from entrypoints.web.snippets import snippet
from entrypoints.web.viewer import Viewer, signed_in
from entrypoints.web.words import parse_space, space_value

__all__ = ["ROUTES"]

_RUNS_SHOWN = 20


async def _audiences(viewer: Viewer) -> list[tuple[str, str]]:
    """(value, label) of the audiences offered: the viewer's readable spaces."""
    spaces = await viewer.services.inspector.visible_spaces(await viewer.context())
    shown = []
    for s in spaces:
        ref = s.scope if not s.scope_key else f"{s.scope}/{s.scope_key}"
        shown.append((f"space:{ref}", f"Readers of {s.name}"))
    return shown


@get("/synthesize", name="web_synthesize")
async def start(request: Request[Any, Any, State]) -> Template:
    viewer = await signed_in(request)
    ctx = await viewer.context()
    runs = await viewer.services.synthesis_runs.recent(ctx.org_id, ctx, _RUNS_SHOWN)
    return page(
        "synthesize.html",
        viewer,
        title="Synthesize",
        runs=runs,
        types=[t.value for t in OutputType],
        audiences=await _audiences(viewer),
    )


def _plan_request(org_id: str, form: Form) -> PlanRequest:
    try:
        output_type = OutputType(form.get("output_type") or OutputType.OVERVIEW)
    except ValueError:
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, "unknown output type") from None
    titles = [line.strip() for line in form.get("outline").splitlines() if line.strip()]
    return PlanRequest(
        org_id=org_id,
        query=form.get("query").strip(),
        output_type=output_type,
        audience=form.optional("audience"),
        outline=titles or None,
    )


@post("/synthesize/plan", status_code=303)
async def plan(request: Request[Any, Any, State]) -> Response[Any]:
    viewer = await signed_in(request)
    form = await posted(request, viewer)
    ctx = await viewer.context()
    planned = await viewer.services.synthesis.plan(_plan_request(ctx.org_id, form), ctx)
    return Redirect(f"/memory/synthesize/runs/{planned.run_id}", status_code=303)


async def _run_page(viewer: Viewer, run_id: str, **stage: Any) -> Template:
    ctx = await viewer.context()
    run: RunSummary = await viewer.services.synthesis_runs.run(ctx.org_id, run_id, ctx)
    spaces = await viewer.services.inspector.visible_spaces(await viewer.context())
    context: dict[str, Any] = {"sections": None, "draft": None, "verification": None}
    context.update(stage)
    # a draft's citations are numbered in order of first use, each named by its title
    cited: dict[str, int] = {}
    named: list[str] = []
    found = context["draft"]
    for section in found.sections if found is not None else []:
        for sentence in section.sentences:
            for source_id in sentence.citations:
                cited.setdefault(source_id, len(cited) + 1)
        named += [x.source_id for x in section.left_out]
    for pack in context["sections"] or []:
        named += [s.source_id for s in pack.snippets]
    document = await _document(viewer, run)
    if document is not None:
        named += list(document["numbers"])
    named = list(dict.fromkeys([*cited, *named]))
    headings = await viewer.services.inspector.headings(ctx, named) if named else {}
    return page(
        "synthesize_run.html",
        viewer,
        title="Synthesize: " + run.output_type,
        run=run,
        cited=cited,
        headings=headings,
        document=document,
        snippet=snippet,
        spaces=[(space_value(s.scope, s.scope_key), s) for s in spaces if s.writes_enabled],
        **context,
    )


async def _document(viewer: Viewer, run: RunSummary) -> dict[str, Any] | None:
    """The remembered document as the viewer may read it now; None before it is remembered."""
    if not run.artifact_source_id:
        return None
    try:
        view = await viewer.services.inspector.inspect_source(
            await viewer.context(), run.artifact_source_id
        )
    except NotFoundError:
        return {
            "source_id": run.artifact_source_id,
            "blocks": None,
            "numbers": {},
            "withheld": None,
        }
    found, numbers = blocks(view.content) if view.content is not None else (None, {})
    return {
        "source_id": view.source_id,
        "blocks": found,
        "numbers": numbers,
        "withheld": view.withheld_reason,
    }


@get("/synthesize/runs/{run_id:str}", name="web_synthesis_run")
async def resume(request: Request[Any, Any, State], run_id: FromPath[str]) -> Template:
    return await _run_page(await signed_in(request), run_id)


@post("/synthesize/runs/{run_id:str}/sections", status_code=200)
async def sections(request: Request[Any, Any, State], run_id: FromPath[str]) -> Template:
    viewer = await signed_in(request)
    await posted(request, viewer)
    ctx = await viewer.context()
    found = await viewer.services.synthesis.sections(ctx.org_id, run_id, ctx)
    return await _run_page(viewer, run_id, sections=found.sections)


@post("/synthesize/runs/{run_id:str}/draft", status_code=200)
async def draft(request: Request[Any, Any, State], run_id: FromPath[str]) -> Template:
    viewer = await signed_in(request)
    await posted(request, viewer)
    ctx = await viewer.context()
    found = await viewer.services.synthesis.draft(ctx.org_id, run_id, ctx)
    return await _run_page(viewer, run_id, draft=found)


@post("/synthesize/runs/{run_id:str}/verify", status_code=200)
async def verify(request: Request[Any, Any, State], run_id: FromPath[str]) -> Template:
    viewer = await signed_in(request)
    await posted(request, viewer)
    ctx = await viewer.context()
    written = await viewer.services.synthesis.draft(ctx.org_id, run_id, ctx)
    found = await viewer.services.synthesis.verify(ctx.org_id, run_id, await viewer.context())
    return await _run_page(viewer, run_id, draft=written, verification=found)


@post("/synthesize/runs/{run_id:str}/remember", status_code=303)
async def remember(request: Request[Any, Any, State], run_id: FromPath[str]) -> Response[Any]:
    viewer = await signed_in(request)
    form = await posted(request, viewer)
    scope, key = parse_space(form.get("space"))
    ctx = await viewer.context()
    kept = await viewer.services.synthesis.remember(ctx.org_id, run_id, ctx, scope, key)
    return Redirect(f"/memory/sources/{kept.source_id}?done=remembered", status_code=303)


ROUTES = [start, plan, resume, sections, draft, verify, remember]
