"""What each found chunk says about the question: its similarity and the question words it holds.

Kept beside the rank so a context pack can tell a question memory is about
from one it is not (``domain.relevance_gate``); ranks alone cannot, since an
unrelated question still has a first, second and third candidate.
"""

from collections.abc import Iterable, Mapping, Sequence

from application.ports.records import IndexedText, ScoredId
from domain.ranking.text import term_hits, term_prefixes

__all__ = ["evidence_of"]


def evidence_of(
    words: frozenset[str],
    chunk_ids: Iterable[str],
    texts: Mapping[str, IndexedText],
    vector_legs: Sequence[Sequence[ScoredId]],
) -> dict[str, tuple[float | None, int]]:
    """Per chunk id: its best similarity over the vector legs (None if none found it) and
    how many distinct meaningful question ``words`` (stemmed) its text holds."""
    similarity: dict[str, float] = {}
    for leg in vector_legs:
        for hit in leg:
            best = similarity.get(hit.item_id)
            if best is None or hit.score > best:
                similarity[hit.item_id] = hit.score
    prefixes = term_prefixes(words)
    out: dict[str, tuple[float | None, int]] = {}
    for cid in chunk_ids:
        text = texts.get(cid)
        held = len(term_hits(text.text, words, prefixes)) if text is not None else 0
        out[cid] = (similarity.get(cid), held)
    return out
