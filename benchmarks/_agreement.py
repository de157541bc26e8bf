"""Does a derived index agree with the store it was built from? (the crash benchmark's check)

The store is the truth, the in-process index a cache of it: after a
crash and a restart, every chunk the store holds open to readers must be a
candidate of the index, none may be extra, and exactly the stored chunks with a
vector must be vector candidates. The store is read in pages of ids (vectors
dropped at once), so the check runs at 300k chunks without holding every vector
twice. ``searchable`` then asks the index itself, through its query methods,
for a sample of chunks: by their words and by their vectors.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from application.ports import MemoryStore, RetrievalIndex
from application.ports.records import CandidateFilter, IndexEntry
from domain.lifecycle import RECALL_OPEN

__all__ = ["Agreement", "Searchable", "check_agreement", "index_rows", "searchable"]

_PAGE = 5000
#: ids quoted per disagreement (the counts are complete)
_QUOTED = 5
#: how deep a chunk's own words or vector must find it: identical texts tie, the older first
LEXICAL_DEPTH = 50
VECTOR_DEPTH = 10
#: cosine this close to 1: an identical vector
_SAME = 1e-5


@dataclass(frozen=True)
class Agreement:
    stored_chunks: int
    stored_open: int
    stored_with_vector: int
    index_live: int
    index_live_with_vector: int
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    vector_missing: list[str] = field(default_factory=list)
    vector_extra: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def agrees(self) -> bool:
        return not (self.missing or self.extra or self.vector_missing or self.vector_extra)


def index_rows(index: RetrievalIndex, org_id: str) -> tuple[set[str], set[str]]:
    """The in-process index's live rows for every reader, and those with a vector.

    Reads the index's own columns (no query method lists every row); the
    integration crash test reads them the same way."""
    held = getattr(index, "_orgs", {}).get(org_id)
    if held is None:
        return set(), set()
    mask = held.live(CandidateFilter())
    live = {held.ids[r] for r in range(held.size) if mask[r]}
    with_vector = {held.ids[r] for r in range(held.size) if mask[r] and held.has_vector[r]}
    return live, with_vector


async def check_agreement(store: MemoryStore, index: RetrievalIndex, org_id: str) -> Agreement:
    stored = 0
    open_ids: set[str] = set()
    vector_ids: set[str] = set()
    after: str | None = None
    while True:
        page = await store.scan_index_entries(org_id, after, _PAGE)
        if not page:
            break
        stored += len(page)
        for entry in page:
            if entry.recall_key == RECALL_OPEN:
                open_ids.add(entry.chunk_id)
                if entry.vector is not None:
                    vector_ids.add(entry.chunk_id)
        after = page[-1].chunk_id
        del page  # the vectors of one page at a time
    live, live_vectors = index_rows(index, org_id)
    missing, extra = open_ids - live, live - open_ids
    vector_missing, vector_extra = vector_ids - live_vectors, live_vectors - vector_ids
    return Agreement(
        stored_chunks=stored,
        stored_open=len(open_ids),
        stored_with_vector=len(vector_ids),
        index_live=len(live),
        index_live_with_vector=len(live_vectors),
        missing=sorted(missing)[:_QUOTED],
        extra=sorted(extra)[:_QUOTED],
        vector_missing=sorted(vector_missing)[:_QUOTED],
        vector_extra=sorted(vector_extra)[:_QUOTED],
        counts={
            "missing": len(missing),
            "extra": len(extra),
            "vector_missing": len(vector_missing),
            "vector_extra": len(vector_extra),
        },
    )


@dataclass(frozen=True)
class Searchable:
    asked: int
    by_words: int
    with_vector: int
    by_vector: int
    #: not in the list, which was full of chunks with the very same text (words) or an
    #: identical vector: ties with duplicates, settled by row order (the older first)
    tied_with_duplicates_by_words: int
    tied_with_duplicates_by_vector: int
    lost_by_words: int
    lost_by_vector: int
    not_found_by_words: list[str]
    not_found_by_vector: list[str]

    @property
    def all_found(self) -> bool:
        return not (self.lost_by_words or self.lost_by_vector)


async def searchable(
    index: RetrievalIndex, org_id: str, entries: Sequence[IndexEntry]
) -> Searchable:
    """Each open chunk found by its own words (BM25, top ``LEXICAL_DEPTH``) and, if it has
    one, by its own vector (top ``VECTOR_DEPTH``), through the index's query methods; a
    chunk crowded out by exact duplicates of itself is counted apart, not as lost."""
    every = CandidateFilter()
    asked = by_words = with_vector = by_vector = tied_words = tied_vector = 0
    lost_words: list[str] = []
    lost_vector: list[str] = []
    for entry in entries:
        if entry.recall_key != RECALL_OPEN or not entry.text.strip():
            continue
        asked += 1
        hits = await index.lexical(org_id, entry.text, LEXICAL_DEPTH, every)
        if any(h.item_id == entry.chunk_id for h in hits):
            by_words += 1
        elif await _all_same_text(index, org_id, [h.item_id for h in hits], entry.text):
            tied_words += 1
        else:
            lost_words.append(entry.chunk_id)
        if entry.vector is not None:
            with_vector += 1
            near = await index.vector(org_id, entry.vector, VECTOR_DEPTH, every)
            if any(h.item_id == entry.chunk_id for h in near):
                by_vector += 1
            elif len(near) == VECTOR_DEPTH and min(h.score for h in near) >= 1 - _SAME:
                tied_vector += 1
            else:
                lost_vector.append(entry.chunk_id)
    return Searchable(
        asked=asked,
        by_words=by_words,
        with_vector=with_vector,
        by_vector=by_vector,
        tied_with_duplicates_by_words=tied_words,
        tied_with_duplicates_by_vector=tied_vector,
        lost_by_words=len(lost_words),
        lost_by_vector=len(lost_vector),
        not_found_by_words=lost_words[:_QUOTED],
        not_found_by_vector=lost_vector[:_QUOTED],
    )


async def _all_same_text(index: RetrievalIndex, org_id: str, ids: list[str], text: str) -> bool:
    if len(ids) < LEXICAL_DEPTH:
        return False  # room was left in the list: a tie cannot have pushed it out
    texts = await index.candidate_texts(org_id, ids, CandidateFilter())
    return all(found.text == text for found in texts.values()) and len(texts) == len(ids)
