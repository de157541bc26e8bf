"""Building the pieces the way the composition root does, without reading settings.

The benchmark needs two services (one per index) over one store, so it
wires ``MemoryService`` itself with the same adapters ``entrypoints.container``
picks by default.
"""

from application.memory_service import MemoryService
from application.ports import Embedder, MemoryStore, RetrievalIndex

__all__ = ["INDEX_NAMES", "make_index", "make_service", "make_store"]

INDEX_NAMES = ("inprocess", "surreal")


def make_store(url: str) -> MemoryStore:
    from adapters.surreal.memory_store import SurrealMemoryStore

    return SurrealMemoryStore(url)


def make_index(name: str, store: MemoryStore) -> RetrievalIndex:
    if name == "inprocess":
        from adapters.inprocess.index import InProcessIndex

        return InProcessIndex()
    if name == "surreal":
        from adapters.surreal.memory_store import SurrealMemoryStore
        from adapters.surreal.native_index import SurrealNativeIndex

        if not isinstance(store, SurrealMemoryStore):
            raise TypeError("the native index needs the SurrealDB store")
        return SurrealNativeIndex(store)
    raise ValueError(f"unknown index {name!r}; expected one of {INDEX_NAMES}")


def make_embedder() -> Embedder:
    from adapters.embedders.onnx_minilm import OnnxEmbedder

    return OnnxEmbedder()


def make_service(store: MemoryStore, index: RetrievalIndex, embedder: Embedder) -> MemoryService:
    """A fresh service: its in-process query-vector cache starts empty."""
    from adapters.system.clock import SystemClock
    from adapters.system.ids import TimeOrderedIds
    from adapters.tokenizers.tiktoken_counter import TiktokenCounter

    return MemoryService(
        store=store,
        index=index,
        embedder=embedder,
        tokens=TiktokenCounter(),
        clock=SystemClock(),
        ids=TimeOrderedIds(),
    )
