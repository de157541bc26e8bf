"""The Litestar application: thin handlers over MemoryService.

Handlers translate bodies into use-case requests and back; every rule lives
in the application and domain layers.
"""

from collections.abc import Awaitable, Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from litestar import Litestar, Request, Response, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, FromQuery, JSONBody

from application.memory.commands import ContextRequest, RememberRequest, SearchRequest
from application.memory.filters import parse_filters
from application.memory.limits import MAX_CONTENT_CHARS
from application.memory.results import ContextPack, RememberResult, SearchResults
from application.operations.inspection import AccessPreview, SourceView, SpaceView
from application.services import Services
from application.trust.records import AuditReceipt
from domain.errors import InvalidInputError, PolicyDeniedError
from domain.policy import MemoryPolicyContext, Surface
from domain.reasons import ReasonCode
from entrypoints.http.access_routes import ACCESS_ROUTES
from entrypoints.http.admin_routes import ADMIN_ROUTES
from entrypoints.http.auth import provide_caller, provide_policy, provide_services
from entrypoints.http.bodies import check_json_body
from entrypoints.http.bulk_routes import BULK_ROUTES
from entrypoints.http.correction_routes import CORRECTION_ROUTES
from entrypoints.http.error_handlers import EXCEPTION_HANDLERS
from entrypoints.http.import_routes import IMPORT_ROUTES
from entrypoints.http.methods import answer_options
from entrypoints.http.openapi import (
    StrictStructSchemas,
    docs_assets_router,
    document_errors,
    openapi_config,
)
from entrypoints.http.org_routes import ORG_ROUTES
from entrypoints.http.queries import check_query_integers
from entrypoints.http.reembed_routes import REEMBED_ROUTES
from entrypoints.http.reflection_routes import REFLECTION_ROUTES
from entrypoints.http.schemas import (
    AccessPreviewBody,
    ContextBody,
    Health,
    RememberBody,
    SearchBody,
)
from entrypoints.http.share_routes import SHARE_ROUTES
from entrypoints.http.status_routes import STATUS_ROUTES
from entrypoints.http.synthesis_routes import SYNTHESIS_ROUTES
from entrypoints.http.wake_routes import WAKE_ROUTES
from entrypoints.recent_errors import watch_recent_errors
from entrypoints.web.errors import find_viewer
from entrypoints.web.registry import web_routers
from entrypoints.web.render import template_config

__all__ = ["create_app"]

#: JSON escapes and multi-byte UTF-8 can make a body several times the character count
_MAX_BODY_BYTES = MAX_CONTENT_CHARS * 6 + 64_000
MAX_AUDIT_LIMIT = 1000


def _tessera_version() -> str:
    try:
        return version("tessera")
    except PackageNotFoundError:
        return "0+unknown"


@post("/api/memory/remember", status_code=201, summary="Remember raw text")
async def remember(
    data: JSONBody[RememberBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> RememberResult:
    """Keep the text verbatim as a source, chunk it, embed and index the chunks.

    Private memory without a scope key belongs to the key's principal.
    """
    return await services.memory.remember(
        RememberRequest(
            org_id=policy.org_id,
            content=data.content,
            scope=data.scope,
            scope_key=data.scope_key,
            source_type=data.source_type,
            source_uri=data.source_uri,
            metadata=data.metadata,
            occurred_at=data.occurred_at,
            turns=data.turns,
            wait=data.wait,
        ),
        policy,
    )


@post("/api/search", status_code=200, summary="Hybrid search over remembered text")
async def search(
    data: JSONBody[SearchBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> SearchResults:
    """BM25 and vector candidates from the spaces the key may read, fused with RRF (k = 60)."""
    return await services.memory.search(
        SearchRequest(
            org_id=policy.org_id,
            query=data.query,
            limit=data.limit,
            filters=parse_filters(data.filters),
        ),
        policy,
    )


@post("/api/context/pack", status_code=200, summary="A cited context pack within a token budget")
async def context_pack(
    data: JSONBody[ContextBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> ContextPack:
    """The best-ranked chunks that fit the budget (cl100k_base tokens), each with its reason."""
    return await services.memory.context_pack(
        ContextRequest(
            org_id=policy.org_id,
            query=data.query,
            token_budget=data.token_budget,
            filters=parse_filters(data.filters),
        ),
        policy,
    )


@get("/api/memory/sources/{source_id:str}", summary="Inspect one source")
async def inspect_source(
    source_id: FromPath[str],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> SourceView:
    """What the source is and why it is visible; its text only if its state allows."""
    return await services.inspector.inspect_source(policy, source_id)


@get("/api/memory/spaces", summary="The memory spaces the key may read")
async def list_spaces(
    services: NamedDependency[Services], policy: NamedDependency[MemoryPolicyContext]
) -> list[SpaceView]:
    return await services.inspector.visible_spaces(policy)


@post(
    "/api/memory/spaces/{space_id:str}/access-preview",
    status_code=200,
    summary="Who could recall what from a space",
)
async def access_preview(
    space_id: FromPath[str],
    data: JSONBody[AccessPreviewBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> AccessPreview:
    """The source ids a principal could recall from the space, hidden counts and deny reasons."""
    return await services.inspector.access_preview(policy, space_id, data.principal)


@get("/api/audit", summary="Recent audit receipts (organisation admins)")
async def audit(
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
    limit: FromQuery[int] = 100,
) -> list[AuditReceipt]:
    if not policy.org_role.administers or policy.is_agent:
        raise PolicyDeniedError(
            ReasonCode.ADMIN_REQUIRED, "the audit log is for organisation admins"
        )
    if not 1 <= limit <= MAX_AUDIT_LIMIT:
        raise InvalidInputError(
            ReasonCode.LIMIT_OUT_OF_RANGE, f"limit must be between 1 and {MAX_AUDIT_LIMIT}"
        )
    return await services.audit.recent(policy.org_id, limit)


@get("/api/health", summary="Liveness and configuration facts")
async def health(services: NamedDependency[Services]) -> Health:
    service = services.memory
    info = service.store_info()
    space = service.embedding_space
    return Health(
        status="ok",
        engine=info.engine,
        store_url_kind=info.url_kind,
        embedder_model=space.model,
        embedding_dimension=space.dimension,
        retrieval_index=service.index_name,
        version=_tessera_version(),
    )


async def _before_request(request: Request[Any, Any, Any]) -> Response[None] | None:
    answered = answer_options(request)
    if answered is None:
        await check_json_body(request)
        check_query_integers(request)
    return answered


def create_app(
    services: NamedDependency[Services],
    surface: Surface = Surface.API,
    on_shutdown: Sequence[Callable[[], Awaitable[None] | None]] = (),
    open_on_startup: bool = True,
    **litestar_options: Any,
) -> Litestar:
    """Build the app around the services; its startup opens them unless the caller opens
    them itself (``tessera serve``, beside the app's own start: ``open_on_startup=False``)."""

    async def _open() -> None:
        # idempotent: services opened already are not opened again
        await services.open(surface)

    async def _close() -> None:
        # flushes audit receipts and releases the embedded store's directory lock;
        # closing twice is harmless
        await services.close()

    route_handlers = [
        remember,
        search,
        context_pack,
        inspect_source,
        list_spaces,
        access_preview,
        audit,
        health,
        *ADMIN_ROUTES,
        *STATUS_ROUTES,
        *ORG_ROUTES,
        *REEMBED_ROUTES,
        *SYNTHESIS_ROUTES,
        *CORRECTION_ROUTES,
        *BULK_ROUTES,
        *IMPORT_ROUTES,
        *REFLECTION_ROUTES,
        *WAKE_ROUTES,
        *SHARE_ROUTES,
        *ACCESS_ROUTES,
    ]
    watch_recent_errors()  # from now on, warnings and errors show in GET /api/status
    document_errors(route_handlers)  # every status each route answers, and bearer auth
    return Litestar(
        # the memory workspace's pages (/memory): server-rendered, not in the OpenAPI schema
        route_handlers=[*route_handlers, docs_assets_router(), *web_routers()],
        template_config=template_config(),
        dependencies={
            "services": Provide(provide_services),
            "caller": Provide(provide_caller),
            "policy": Provide(provide_policy),
        },
        state=State({"services": services, "surface": surface}),
        exception_handlers=EXCEPTION_HANDLERS,  # type: ignore[arg-type]
        # OPTIONS from the routes; strict JSON bodies: a malformed one is a 4xx before
        # any parameter is parsed
        before_request=_before_request,
        # an error page of the workspace knows who is signed in (its navigation)
        after_exception=[find_viewer],
        request_max_body_size=_MAX_BODY_BYTES,
        openapi_config=openapi_config(_tessera_version()),
        plugins=[StrictStructSchemas()],
        on_startup=[_open] if open_on_startup else [],
        # the caller's hooks first: they may still need the service
        on_shutdown=[*on_shutdown, _close],
        logging_config=None,  # logging is configured once, by the CLI
        **litestar_options,
    )
