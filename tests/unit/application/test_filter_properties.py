"""Property: a filtered candidate list is the unfiltered one with the non-matching chunks taken out.

Hypothesis draws corpora (sources of every type in three spaces, with mail
participants, labels, numbers, flags, imports, times or none, conversation
turns with speakers) and filters (any mix of scope, key, types, import,
participants in every role, a time range, metadata equalities), writes the
corpus through the in-memory store into the in-process index, and checks, for
BM25 and vector search, under a reader who sees two of the three spaces:

- the filtered list, asked deep enough for everything, is exactly the
  unfiltered list in the same order, kept where ``SearchFilters.matches``
  (the rule in plain words) holds;
- asked for k, the filtered list is that list's first k: a selective filter
  never leaves a result list short while matching chunks exist.
"""

import asyncio
import os
from datetime import UTC, datetime, timedelta

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.index import InProcessIndex
from application.ports.records import CandidateFilter, IndexEntry, ScopeRef
from contracts.samples import SPACE, embedded, make_chunk, make_source, unit
from domain.models import MetadataValue
from domain.scopes import MemoryScope, SourceType
from domain.search_filters import FilterFacts, ParticipantRole, SearchFilters

EXAMPLES = int(os.environ.get("TESSERA_FILTER_EXAMPLES", "200"))
ORG = "org-props"
SPACES = [
    ScopeRef(MemoryScope.PRIVATE, "u1"),
    ScopeRef(MemoryScope.PROJECT, "apollo"),
    ScopeRef(MemoryScope.PROJECT, "zeus"),
]
READER = CandidateFilter(visible=frozenset(SPACES[:2]))
PEOPLE = ["Alice Smith <alice@example.com>", "Bob <bob@corp.org>", "carol@example.com", "Dan"]
NAMES = ["alice", "Alice Smith", "bob", "example.com", "dan", "maya", "Sam"]
WORDS = ["budget", "plan", "hotel", "garden", "review"]
BASE = datetime(2024, 3, 1, tzinfo=UTC)
TYPES = [SourceType.EMAIL, SourceType.NOTE, SourceType.CONVERSATION, SourceType.DOCUMENT]

_time = st.one_of(st.none(), st.integers(0, 2).map(lambda d: BASE + timedelta(days=d)))
_metadata: st.SearchStrategy[dict[str, MetadataValue]] = st.fixed_dictionaries(
    {},
    optional={
        "from": st.lists(st.sampled_from(PEOPLE), min_size=1, max_size=2),
        "to": st.lists(st.sampled_from(PEOPLE), min_size=1, max_size=2),
        "cc": st.sampled_from(PEOPLE),
        "labels": st.lists(st.sampled_from(["work", "home", "budget"]), max_size=2),
        "priority": st.integers(1, 3),
        "urgent": st.booleans(),
        "import_id": st.sampled_from(["imp1", "imp2"]),
    },
)
_turn = st.tuples(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
    st.one_of(st.none(), st.sampled_from(["Maya", "Sam"])),
    st.lists(st.floats(-1, 1), min_size=4, max_size=4).filter(
        lambda v: sum(x * x for x in v) > 0.01
    ),
)
_source = st.tuples(
    st.sampled_from(TYPES),
    st.sampled_from(SPACES),
    _metadata,
    _time,
    st.lists(_turn, min_size=1, max_size=3),
)
_PARTS = ["space", "types", "import", "people", "time", "metadata"]
_participant = st.tuples(st.sampled_from(list(ParticipantRole)), st.sampled_from(NAMES))


@st.composite
def _filters(draw: st.DrawFn) -> SearchFilters:
    """One to three parts, so that a fair share of the corpus matches."""
    parts = set(draw(st.lists(st.sampled_from(_PARTS), min_size=1, max_size=3)))
    fields: dict[str, object] = {}
    if "space" in parts:
        space = draw(st.sampled_from(SPACES))
        fields["scope"] = space.scope
        if draw(st.booleans()):
            fields["scope_key"] = space.scope_key
    if "types" in parts:
        fields["source_types"] = frozenset(
            draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=2))
        )
    if "import" in parts:
        fields["import_id"] = draw(st.sampled_from(["imp1", "imp2"]))
    if "people" in parts:
        fields["participants"] = tuple(draw(st.lists(_participant, min_size=1, max_size=2)))
    if "time" in parts:
        start, end = draw(_time), draw(_time)
        if start and end and start > end:
            start, end = end, start
        fields["occurred_from"], fields["occurred_to"] = start, end
    if "metadata" in parts:
        key = draw(st.sampled_from(["labels", "priority", "urgent", "import_id"]))
        value = draw(
            st.one_of(st.sampled_from(["work", "budget", "imp1"]), st.integers(1, 3), st.booleans())
        )
        fields["metadata"] = ((key, value),)
    return SearchFilters(**fields)  # type: ignore[arg-type]


async def _check(
    sources: list[tuple[SourceType, ScopeRef, dict[str, MetadataValue], datetime | None, list]],
    narrow: SearchFilters,
    query: str,
    vector: list[float],
    k: int,
) -> None:
    store, index = InMemoryMemoryStore(), InProcessIndex()
    await store.prepare(ORG, SPACE)
    facts: dict[str, FilterFacts] = {}
    for n, (kind, space, metadata, when, turns) in enumerate(sources):
        source = msgspec.structs.replace(
            make_source(
                f"s{n}",
                ORG,
                scope=space.scope,
                scope_key=space.scope_key,
                metadata=metadata,
                occurred_at=when,
            ),
            source_type=kind,
        )
        chunks = [
            embedded(make_chunk(f"s{n}-{t}", source, text=text, ordinal=t, speaker=who), unit(v))
            for t, (text, who, v) in enumerate(turns)
        ]
        await store.save_memory(source, chunks)
        await index.add(ORG, [IndexEntry.of(c, source=source) for c in chunks])
        for c in chunks:
            facts[c.chunk.chunk_id] = FilterFacts(
                scope=space.scope,
                scope_key=space.scope_key,
                source_type=kind,
                metadata=metadata,
                occurred_at=when,
                speaker=c.chunk.speaker,
            )
    await index.mark_ready(ORG)
    where = msgspec.structs.replace(READER, narrow=narrow)
    everything = len(facts) + 1
    for search, probe in ((index.lexical, query), (index.vector, vector)):
        unfiltered = [h.item_id for h in await search(ORG, probe, everything, READER)]  # type: ignore[arg-type]
        kept = [cid for cid in unfiltered if narrow.matches(facts[cid])]
        filtered = [h.item_id for h in await search(ORG, probe, everything, where)]  # type: ignore[arg-type]
        assert filtered == kept
        top = [h.item_id for h in await search(ORG, probe, k, where)]  # type: ignore[arg-type]
        assert top == kept[:k]


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    sources=st.lists(_source, min_size=1, max_size=12),
    narrow=_filters(),
    query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=2).map(" ".join),
    vector=st.lists(st.floats(-1, 1), min_size=4, max_size=4).filter(
        lambda v: sum(x * x for x in v) > 0.01
    ),
    k=st.integers(1, 5),
)
def test_filtered_results_are_unfiltered_results_that_match(
    sources: list[tuple[SourceType, ScopeRef, dict[str, MetadataValue], datetime | None, list]],
    narrow: SearchFilters,
    query: str,
    vector: list[float],
    k: int,
) -> None:
    asyncio.run(_check(sources, narrow, query, unit(vector), k))
