"""The fill phase: plan, vectors, bulk write; the store is closed when it returns."""

from dataclasses import dataclass
from pathlib import Path

from application.ports import Embedder, MemoryStore, RetrievalIndex
from benchmarks._fill import FillStalledError, plan_fill, write_fill
from benchmarks._stats import progress
from benchmarks._vectors import VectorCache, fill_vectors
from benchmarks._wiring import make_embedder, make_index, make_service, make_store

__all__ = ["FillConfig", "fill_store"]


@dataclass(frozen=True)
class FillConfig:
    url: str
    org_id: str
    index: str
    chunks: int
    embed_real: int
    sigma: float
    concurrency: int
    reopen_every: int
    vector_dir: Path
    #: keep SurrealDB's own search indexes (``_wiring.native_search_for``)
    native_search: bool = True


class _Holder:
    """The store currently open: reopening replaces it."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store


async def fill_store(config: FillConfig, turns: list[str]) -> dict[str, object]:
    embedder = make_embedder()
    held = _Holder(make_store(config.url, native_search=config.native_search))
    try:
        # counted before any index opens: on a filled store (a 1M one) opening the
        # service here would rebuild the whole index only to learn the fill is skipped
        await held.store.prepare(config.org_id, embedder.space)
        existing = await held.store.count_chunks(config.org_id)
        if existing:
            progress(f"store already holds {existing} chunks: fill skipped")
            result: dict[str, object] = {"reused_store_chunks": existing}
        else:
            index = make_index(config.index, held.store)
            service = make_service(held.store, index, embedder)
            await service.open(config.org_id)
            await service.lane.stop()  # the fill writes indexed chunks; no lane needed here
            result = await _fill_new(config, turns, held, index, embedder)
    except FillStalledError:
        raise  # closing a hung engine would hang as well
    except BaseException:
        await held.store.close()
        raise
    await held.store.close()
    return result


async def _fill_new(
    config: FillConfig, turns: list[str], held: _Holder, index: RetrievalIndex, embedder: Embedder
) -> dict[str, object]:
    plan = plan_fill(turns, config.chunks)
    progress(f"fill plan: {config.chunks} chunks from {plan.turns_used} turns")
    cache = VectorCache(config.vector_dir, embedder.space.model, embedder.space.dimension)
    vectors = await fill_vectors(embedder, cache, plan.chunk_texts, config.embed_real, config.sigma)
    progress(
        f"vectors: {vectors.real} real ({vectors.embedded_now} embedded now), "
        f"{vectors.perturbed} perturbed; writing"
    )

    async def reopen(old: MemoryStore) -> MemoryStore:
        await old.close()
        fresh = make_store(config.url, native_search=config.native_search)
        await fresh.prepare(config.org_id, embedder.space)
        progress("  store closed and reopened")
        return fresh

    timing, held.store = await write_fill(
        held.store,
        index,
        embedder,
        config.org_id,
        plan,
        vectors.matrix,
        config.concurrency,
        reopen_every=config.reopen_every,
        reopen=reopen,
    )
    total = timing.write_seconds + timing.reopen_seconds
    return {
        "embedded_real": vectors.real,
        "perturbed": vectors.perturbed,
        "perturb_sigma": config.sigma,
        "real_from_disk_cache": vectors.from_disk_cache,
        "real_embedded_this_run": vectors.embedded_now,
        "embed_seconds_this_run": vectors.embed_seconds,
        "sources": plan.turns_used,
        "write_seconds": round(timing.write_seconds, 1),
        "bulk_chunks_per_s": round(config.chunks / timing.write_seconds, 1),
        "written_through_index": index.name,
        "bulk_rate_note": "the one write path (MemoryWriter: one store transaction per "
        "batch of sources + index) with precomputed vectors; excludes model time; "
        "embedding cache table not filled",
        "concurrency": config.concurrency,
        "reopen_every_chunks": config.reopen_every,
        "reopens": timing.reopens,
        "reopen_seconds": round(timing.reopen_seconds, 1),
        "bulk_chunks_per_s_incl_reopens": round(config.chunks / total, 1),
    }
