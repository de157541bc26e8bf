"""A small organisation written to a store and an index the way the use cases write them.

The snapshot tests (tests/integration/test_index_snapshots.py, the crash test)
fill a store, write more, and compare what a restored index answers with what
a full rebuild from the same store answers, over a fixed set of queries.
"""

import random
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import msgspec

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inprocess.index import InProcessIndex
from application.indexing.readiness import OrgReadiness
from application.ports import MemoryStore, RetrievalIndex
from application.ports.records import CandidateFilter, IndexEntry, ScopeRef
from application.ports.writes import MemoryWrite
from contracts.samples import CREATED, make_chunk, make_source
from domain.lifecycle import admitted_keys
from domain.models import Source, chunk_recall
from domain.scopes import LifecycleState, MemoryScope

__all__ = ["ORG", "World", "answers", "queries", "rebuilt_answers", "without_history"]

ORG = "snapshot-org"
_WORDS = [
    "river",
    "mountain",
    "ledger",
    "invoice",
    "kettle",
    "harbour",
    "violin",
    "orchard",
    "lantern",
    "copper",
    "meadow",
    "glacier",
    "pepper",
    "saddle",
    "thunder",
    "quartz",
    "beacon",
    "falcon",
    "walnut",
    "cinder",
    "marble",
    "tundra",
    "ember",
    "canyon",
    "parsley",
    "lagoon",
    "bramble",
    "cobalt",
    "juniper",
    "basil",
]
_ALL = 100_000
FILTERS = (
    CandidateFilter(),
    CandidateFilter(visible=frozenset({ScopeRef(MemoryScope.PRIVATE, "u1")})),
    CandidateFilter(recall=admitted_keys(["u1"])),
)


class World:
    """Writes to ``store`` and, like the use cases, through to ``index`` (when given)."""

    def __init__(self, store: MemoryStore, index: RetrievalIndex | None, seed: int = 7) -> None:
        self.store = store
        self.index = index
        self.embedder = HashingEmbedder(dimension=32)
        self.rng = random.Random(seed)
        self.made = 0

    def _text(self) -> str:
        return " ".join(self.rng.choice(_WORDS) for _ in range(self.rng.randint(3, 9)))

    async def add(self, sources: int, *, embedded: bool = True) -> list[str]:
        writes = []
        for _ in range(sources):
            n = self.made = self.made + 1
            sid = f"s{n:05d}"
            texts = [self._text() for _ in range(self.rng.randint(1, 4))]
            source = make_source(
                sid, ORG, content=" ".join(texts), scope_key=self.rng.choice(["u1", "u2"])
            )
            source = msgspec.structs.replace(source, occurred_at=CREATED + timedelta(days=n))
            chunks = [
                make_chunk(f"{sid}-{k}", source, text=t, ordinal=k, turn_index=k)
                for k, t in enumerate(texts)
            ]
            vectors = await self.embedder.embed(texts) if embedded else []
            known = {c.chunk_id: v for c, v in zip(chunks, vectors, strict=False)}
            writes.append(MemoryWrite(source=source, chunks=chunks, vectors=known))
        await self.store.save_memories(writes)
        if self.index is not None:
            await self.index.add(
                ORG,
                [
                    IndexEntry.of_chunk(
                        c, w.vectors.get(c.chunk_id), chunk_recall(w.source, c), w.source
                    )
                    for w in writes
                    for c in w.chunks
                ],
            )
        return [w.source.source_id for w in writes]

    async def attach_pending(self) -> int:
        pending = await self.store.pending_embeddings(ORG, 1000)
        vectors = await self.embedder.embed([p.text for p in pending])
        got = {p.chunk_id: v for p, v in zip(pending, vectors, strict=True)}
        attached = await self.store.attach_vectors(ORG, self.embedder.space.model, got)
        if self.index is not None:
            await self.index.attach_vectors(ORG, {c: got[c] for c in attached})
        return len(attached)

    async def correct(self, source_id: str, state: LifecycleState) -> None:
        source = await self.store.get_source(ORG, source_id)
        assert source is not None
        new: Source = msgspec.structs.replace(source, version=source.version + 1, lifecycle=state)
        drop = state in (LifecycleState.REDACTED, LifecycleState.DELETED)
        await self.store.update_source(new, expected_version=source.version, drop_text=drop)
        if self.index is None:
            return
        if drop:
            await self.index.remove(ORG, source_id)
        else:
            await self.index.update(ORG, source_id, new.lifecycle, new.recall)


async def answers(index: RetrievalIndex, queries: Sequence[str]) -> dict[str, Any]:
    """What the index answers to every query and filter, scores rounded, ties by id.

    Chunk-level BM25 keeps the term counts of removed rows (bm25.py), so its scores
    depend on the history an index saw; ``lex`` is every matching chunk id, and
    ``lex-scored`` the scored top ten, which only indexes with one history share.
    """
    embedder = HashingEmbedder(dimension=32)
    out: dict[str, Any] = {}

    def ranked(hits: Sequence[Any]) -> list[tuple[str, float]]:
        return sorted(((h.item_id, round(h.score, 4)) for h in hits), key=lambda x: (-x[1], x[0]))

    for n, where in enumerate(FILTERS):
        for query in queries:
            (vector,) = await embedder.embed([query])
            key = f"{n}:{query}"
            out["lex " + key] = sorted(
                h.item_id for h in await index.lexical(ORG, query, _ALL, where)
            )
            out["lex-scored " + key] = ranked(await index.lexical(ORG, query, 10, where))
            # every candidate, not a top k: rows in another order break ties at a cut otherwise
            out["vec " + key] = ranked(await index.vector(ORG, vector, _ALL, where))
            out["elex " + key] = ranked(await index.episode_lexical(ORG, query, _ALL, where))
            out["evec " + key] = ranked(await index.episode_vector(ORG, vector, _ALL, where))
            episodes = [item for item, _ in out["evec " + key][:5]]
            out["members " + key] = await index.episode_members(ORG, episodes, where)
            chunks = [item for item, _ in out["vec " + key][:10]]
            out["texts " + key] = await index.candidate_texts(ORG, chunks, where)
    return out


async def rebuilt_answers(store: MemoryStore, queries: Sequence[str]) -> dict[str, Any]:
    """The same answers from a plain in-process index rebuilt from every chunk of ``store``."""
    index = InProcessIndex()
    await OrgReadiness(store, index, HashingEmbedder(dimension=32)).ensure(ORG)
    return without_history(await answers(index, queries))


def without_history(found: dict[str, Any]) -> dict[str, Any]:
    """``answers`` less what depends on the history an index saw (to compare with a rebuild)."""
    return {k: v for k, v in found.items() if not k.startswith("lex-scored ")}


def queries(rng: random.Random, n: int = 12) -> list[str]:
    return [" ".join(rng.sample(_WORDS, 2)) for _ in range(n)]
