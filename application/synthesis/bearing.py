"""Which snippets of the section packs bear on the question (``domain.synthesis.bearing``).

The drafters see only those (both of them: an LLM is not shown the off-topic
mail either), the sources left out are reported per section, and the
verifier fails a claim whose cited source does not bear on the question.
Similarities are the question's cosine to each snippet, from the store's
embedding cache where it holds them (every chunk's vector is there).
"""

from collections.abc import Sequence

import msgspec

from application.enrichment.embedding import embed_for_memory
from application.ports import Embedder, MemoryStore
from application.retrieval.relevance import relatedness_floors
from application.synthesis.records import LeftOut, SectionPack
from domain.query_words import query_words
from domain.synthesis.bearing import LeftOutReason, bears_on

__all__ = ["bearing_chunks", "screen_packs"]


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


async def bearing_chunks(
    store: MemoryStore,
    embedder: Embedder,
    org_id: str,
    question: str,
    packs: Sequence[SectionPack],
) -> set[str]:
    """The chunk ids of the packs' snippets that bear on the question."""
    snippets = [s for pack in packs for s in pack.snippets]
    if not snippets:
        return set()
    texts = list(dict.fromkeys([question, *(s.text for s in snippets)]))
    vectors, _ = await embed_for_memory(store, embedder, org_id, texts)
    vector = dict(zip(texts, vectors, strict=True))
    terms = query_words(question).terms
    floors = relatedness_floors(embedder.space.model)
    return {
        s.chunk_id
        for s in snippets
        if bears_on(terms, s.text, _dot(vector[question], vector[s.text]), floors)
    }


async def screen_packs(
    store: MemoryStore,
    embedder: Embedder,
    org_id: str,
    question: str,
    packs: Sequence[SectionPack],
) -> tuple[list[SectionPack], list[list[LeftOut]]]:
    """The packs with only the snippets that bear on the question, and per section the
    sources left out for not bearing on it (a source some of whose snippets bear stays)."""
    bearing = await bearing_chunks(store, embedder, org_id, question, packs)
    screened: list[SectionPack] = []
    left_out: list[list[LeftOut]] = []
    for pack in packs:
        kept = [s for s in pack.snippets if s.chunk_id in bearing]
        sources = list(dict.fromkeys(s.source_id for s in kept))
        off = dict.fromkeys(s.source_id for s in pack.snippets if s.source_id not in sources)
        screened.append(
            msgspec.structs.replace(
                pack,
                snippets=kept,
                source_ids=sources,
                derived_ids=[s.chunk_id for s in kept],
                stale_source_ids=[s for s in pack.stale_source_ids if s in sources],
            )
        )
        left_out.append([LeftOut.of(source, LeftOutReason.OFF_TOPIC) for source in off])
    return screened, left_out
