"""The Litestar application: thin handlers over MemoryService.

Handlers translate bodies into use-case requests and back; every rule lives
in the application and domain layers.
"""

from collections.abc import Awaitable, Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from litestar import Litestar, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.openapi import OpenAPIConfig
from litestar.params import JSONBody

from application.commands import ContextRequest, RememberRequest, SearchRequest
from application.limits import MAX_CONTENT_CHARS
from application.memory_service import MemoryService
from application.results import ContextPack, RememberResult, SearchResults
from entrypoints.http.error_handlers import EXCEPTION_HANDLERS
from entrypoints.http.schemas import ContextBody, Health, RememberBody, SearchBody
from entrypoints.settings import Settings

__all__ = ["create_app"]

#: JSON escapes and multi-byte UTF-8 can make a body several times the character count
_MAX_BODY_BYTES = MAX_CONTENT_CHARS * 6 + 64_000


def _tessera_version() -> str:
    try:
        return version("tessera")
    except PackageNotFoundError:
        return "0+unknown"


async def _service(state: State) -> MemoryService:
    service: MemoryService = state.service
    return service


async def _settings(state: State) -> Settings:
    settings: Settings = state.settings
    return settings


@post("/api/memory/remember", status_code=201, summary="Remember raw text")
async def remember(
    data: JSONBody[RememberBody],
    service: NamedDependency[MemoryService],
    settings: NamedDependency[Settings],
) -> RememberResult:
    """Keep the text verbatim as a source, chunk it, embed and index the chunks."""
    return await service.remember(
        RememberRequest(
            org_id=settings.org_id,
            actor_id=settings.actor_id,
            content=data.content,
            scope=data.scope,
            scope_key=data.scope_key,
            source_type=data.source_type,
            source_uri=data.source_uri,
            metadata=data.metadata,
            occurred_at=data.occurred_at,
            turns=data.turns,
        )
    )


@post("/api/search", status_code=200, summary="Hybrid search over remembered text")
async def search(
    data: JSONBody[SearchBody],
    service: NamedDependency[MemoryService],
    settings: NamedDependency[Settings],
) -> SearchResults:
    """BM25 and vector candidates fused with reciprocal rank fusion (k = 60)."""
    return await service.search(
        SearchRequest(org_id=settings.org_id, query=data.query, limit=data.limit)
    )


@post("/api/context/pack", status_code=200, summary="A cited context pack within a token budget")
async def context_pack(
    data: JSONBody[ContextBody],
    service: NamedDependency[MemoryService],
    settings: NamedDependency[Settings],
) -> ContextPack:
    """The best-ranked chunks that fit the budget (cl100k_base tokens), each with its reason."""
    return await service.context_pack(
        ContextRequest(org_id=settings.org_id, query=data.query, token_budget=data.token_budget)
    )


@get("/api/health", summary="Liveness and configuration facts")
async def health(service: NamedDependency[MemoryService]) -> Health:
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


def create_app(
    service: MemoryService,
    settings: Settings,
    on_shutdown: Sequence[Callable[[], Awaitable[None] | None]] = (),
    **litestar_options: Any,
) -> Litestar:
    """Build the app around an already-constructed service (the container owns its lifecycle)."""

    async def _open() -> None:
        await service.open(settings.org_id)

    async def _close() -> None:
        # releases the embedded store's directory lock; closing twice is harmless
        await service.close()

    return Litestar(
        route_handlers=[remember, search, context_pack, health],
        dependencies={"service": Provide(_service), "settings": Provide(_settings)},
        state=State({"service": service, "settings": settings}),
        exception_handlers=EXCEPTION_HANDLERS,  # type: ignore[arg-type]
        request_max_body_size=_MAX_BODY_BYTES,
        openapi_config=OpenAPIConfig(title="Tessera", version=_tessera_version()),
        on_startup=[_open],
        # the caller's hooks first: they may still need the service
        on_shutdown=[*on_shutdown, _close],
        logging_config=None,  # logging is configured once, by the CLI
        **litestar_options,
    )
