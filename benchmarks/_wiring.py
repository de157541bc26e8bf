"""The pieces the benchmark measures, built by the composition root's own factories.

The benchmark needs two services (one per index) over one store, so it calls
``entrypoints.container``'s factories directly instead of reading settings:
what it times is what ``tessera serve`` runs.
"""

from application.memory.service import MemoryService
from application.ports import Embedder, MemoryStore, RetrievalIndex
from application.services import Services
from domain.policy import Surface

__all__ = [
    "INDEX_NAMES",
    "make_index",
    "make_service",
    "make_services",
    "make_store",
    "native_search_for",
    "owner_key",
]

INDEX_NAMES = ("inprocess", "surreal")


def make_store(url: str, *, native_search: bool = True) -> MemoryStore:
    """``native_search=False`` drops SurrealDB's own search indexes, as ``tessera serve``
    does with the in-process index (adapters/surreal/search_indexes.py)."""
    from adapters.surreal.memory_store import SurrealMemoryStore

    return SurrealMemoryStore(url, native_search=native_search)


def native_search_for(index: str) -> bool:
    """Whether a benchmark opening a store for ``index`` keeps SurrealDB's own search indexes.

    As ``tessera serve``: only the native index reads them; with the in-process index
    the store drops them, so a benchmark keeping them would time (and at open, maybe
    build) engine indexes the product never has. ``both`` runs the two arms on one
    store, so it keeps them (the native arm would otherwise rebuild them at its open)."""
    if index not in (*INDEX_NAMES, "both"):
        raise ValueError(f"unknown index {index!r}; expected one of {INDEX_NAMES} or 'both'")
    return index != "inprocess"


def make_index(name: str, store: MemoryStore) -> RetrievalIndex:
    """``TESSERA_ANN_MIN_ROWS`` (a row count or ``off``) sets the in-process graph and
    ``TESSERA_BLAS_THREADS`` numpy's BLAS threads, as in ``tessera serve``: the latency
    benchmark runs with and without the graph."""
    from entrypoints.container import make_index as compose_index
    from entrypoints.settings import IndexKind, load_settings

    if name not in INDEX_NAMES:
        raise ValueError(f"unknown index {name!r}; expected one of {INDEX_NAMES}")
    settings = load_settings()
    ann = "off" if settings.ann_off else settings.ann_min_rows
    return compose_index(IndexKind(name), store, ann, blas_threads=settings.blas_threads)


def make_embedder() -> Embedder:
    from adapters.embedders.onnx_minilm import OnnxEmbedder

    return OnnxEmbedder()


def make_service(store: MemoryStore, index: RetrievalIndex, embedder: Embedder) -> MemoryService:
    """A fresh service from the composition root: its query-vector cache starts empty."""
    from entrypoints.container import make_service as compose_service

    return compose_service(store, index, embedder)


def make_services(
    store: MemoryStore, index: RetrievalIndex, embedder: Embedder, home_org_id: str
) -> Services:
    """Everything ``tessera serve`` runs, control plane and audit log on the same store."""
    from entrypoints.container import make_audit_log, make_control_store
    from entrypoints.container import make_services as compose_services

    return compose_services(
        store, index, embedder, make_control_store(store), make_audit_log(store), home_org_id
    )


async def owner_key(services: Services) -> str:
    """A fresh API key for the home organisation's owner (made at its first open)."""
    owner = await services.control.principal(services.home_org_id, "owner")
    issued = await services.control.create_key(
        services.home_org_id, owner.principal_id, None, Surface.CLI
    )
    return issued.key
