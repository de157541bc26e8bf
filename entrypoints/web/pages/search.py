"""Search (``/memory/search?q=``): ranked hits with their reasons, and the pack for the query.

Two use cases with the viewer's context: ``MemoryService.search`` (hits,
each re-checked by the policy, with the ranker's reason and lifecycle) and
``MemoryService.context_pack`` (what an agent would be handed: items, token
count, and how many were withheld). A question nothing in memory is about
is answered in words ("Nothing relevant: ..."), not with a list. Filters are
the API's own ``FiltersSpec``, parsed by ``parse_filters``.

Each hit shows a title line (``MemoryInspector.headings``: one batched read for
the page, not one per hit) and a snippet around the query's words
(``entrypoints.web.snippets``), not its whole chunk.
"""

from pathlib import Path
from typing import Any

from litestar import Request, get
from litestar.datastructures import State
from litestar.response import Template

from application.memory.commands import ContextRequest, SearchRequest
from application.memory.filters import FiltersSpec, OccurredRange, parse_filters
from domain.errors import InvalidInputError
from domain.hashing import content_hash
from domain.ranking.reasons import RankReason
from domain.reasons import ReasonCode
from domain.relevance_gate import nothing_relevant_words, weak_pack_words
from domain.scopes import SourceType
from entrypoints.web.render import page
from entrypoints.web.snippets import snippet
from entrypoints.web.viewer import Viewer, signed_in
from entrypoints.web.words import parse_space, space_value

__all__ = ["ROUTES"]

_LIMIT = 20
_PACK_BUDGET = 1_000


def _filters(params: Any) -> FiltersSpec | None:
    scope, key = parse_space(params.get("space"))
    kind = params.get("kind") or None
    try:
        kinds = [SourceType(kind)] if kind else None
    except ValueError:
        raise InvalidInputError(ReasonCode.INVALID_FILTER, "unknown source kind") from None
    start, end = params.get("from") or None, params.get("to") or None
    spec = FiltersSpec(
        scope=scope,
        scope_key=key,
        source_type=kinds,
        import_id=params.get("import") or None,
        occurred_at=OccurredRange(start=start, end=end) if start or end else None,
    )
    return None if spec == FiltersSpec() else spec


async def _imports(viewer: Viewer) -> list[tuple[str, str]]:
    """The viewer's imports as (id, words) for the filter: the archive's name and day."""
    if viewer.services.imports is None:
        return []
    jobs = await viewer.services.imports.list_jobs(await viewer.context())
    return [(j.id, f"{Path(j.path).name} ({j.created_at:%Y-%m-%d})") for j in jobs]


@get("/search", name="web_search")
async def search(request: Request[Any, Any, State]) -> Template:
    viewer = await signed_in(request)
    params = request.query_params
    query = (params.get("q") or "").strip()
    spaces = await viewer.services.inspector.visible_spaces(viewer.ctx)
    results = pack = None
    #: each hit's and each pack item's reasons, by chunk id: the page says them shortly
    reasons: dict[str, list[RankReason]] = {}
    pack_reasons: dict[str, list[RankReason]] = {}
    headings: dict[str, Any] = {}
    if query:
        filters = parse_filters(_filters(params))
        ctx = await viewer.context()
        found = await viewer.services.memory.search_explained(
            SearchRequest(org_id=ctx.org_id, query=query, limit=_LIMIT, filters=filters), ctx
        )
        ctx = await viewer.context()
        packed = await viewer.services.memory.context_pack_explained(
            ContextRequest(
                org_id=ctx.org_id, query=query, token_budget=_PACK_BUDGET, filters=filters
            ),
            ctx,
        )
        results, reasons = found.results, found.reasons
        pack, pack_reasons = packed.pack, packed.reasons
        viewer.session.searched(content_hash(query), query)
        shown = [h.source_id for h in results.results] + [i.source_id for i in pack.items]
        headings = await viewer.services.inspector.headings(await viewer.context(), shown)
    return page(
        "search.html",
        viewer,
        title="Search",
        query=query,
        results=results,
        pack=pack,
        reasons=reasons,
        pack_reasons=pack_reasons,
        headings=headings,
        snippet=snippet,
        imports=await _imports(viewer),
        chosen={name: params.get(name) or "" for name in ("space", "kind", "from", "to", "import")},
        kinds=[k.value for k in SourceType],
        spaces=[(space_value(s.scope, s.scope_key), s) for s in spaces],
        nothing_relevant=nothing_relevant_words,
        weak_pack=weak_pack_words,
    )


ROUTES = [search]
