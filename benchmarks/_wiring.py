"""The pieces the benchmark measures, built by the composition root's own factories.

The benchmark needs two services (one per index) over one store, so it calls
``entrypoints.container``'s factories directly instead of reading settings:
what it times is what ``tessera serve`` runs.
"""

from application.memory_service import MemoryService
from application.ports import Embedder, MemoryStore, RetrievalIndex

__all__ = ["INDEX_NAMES", "make_index", "make_service", "make_store"]

INDEX_NAMES = ("inprocess", "surreal")


def make_store(url: str) -> MemoryStore:
    from adapters.surreal.memory_store import SurrealMemoryStore

    return SurrealMemoryStore(url)


def make_index(name: str, store: MemoryStore) -> RetrievalIndex:
    from entrypoints.container import make_index as compose_index
    from entrypoints.settings import IndexKind

    if name not in INDEX_NAMES:
        raise ValueError(f"unknown index {name!r}; expected one of {INDEX_NAMES}")
    return compose_index(IndexKind(name), store)


def make_embedder() -> Embedder:
    from adapters.embedders.onnx_minilm import OnnxEmbedder

    return OnnxEmbedder()


def make_service(store: MemoryStore, index: RetrievalIndex, embedder: Embedder) -> MemoryService:
    """A fresh service from the composition root: its query-vector cache starts empty."""
    from entrypoints.container import make_service as compose_service

    return compose_service(store, index, embedder)
