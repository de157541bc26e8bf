"""Search ``filters`` inside a RetrievalIndex's queries: the capability every index owes.

Mixed into ``RetrievalIndexContract`` (contracts/retrieval_index.py), so an
adapter author gets it by subclassing that suite. The rule each index must
implement is ``SearchFilters.matches`` (domain.search_filters); these tests
hold every candidate list to it on a small corpus of mail, notes, a
conversation and a document, and check that a selective filter still fills
``limit`` from the matching chunks when better non-matching ones exist.
"""

from datetime import UTC, datetime

import msgspec
import pytest

from application.ports import MemoryStore, RetrievalIndex
from application.ports.records import CandidateFilter, EmbeddedChunk, IndexEntry, ScopeRef
from contracts.samples import SPACE, embedded, make_chunk, make_source, unit
from domain.models import MetadataValue, Source
from domain.scopes import MemoryScope, SourceType
from domain.search_filters import FilterFacts, ParticipantRole, SearchFilters, source_facets

__all__ = ["FILTER_CASES", "RetrievalIndexFilterContract", "load_filter_corpus"]

ORG = "filter-org"
U1 = ScopeRef(MemoryScope.PRIVATE, "u1")
T1 = ScopeRef(MemoryScope.TEAM, "t1")
T2 = ScopeRef(MemoryScope.TEAM, "t2")
READER = CandidateFilter(visible=frozenset({U1, T1, T2}))
ALICE = "Alice Smith <alice@example.com>"
BOB = "Bob <bob@corp.org>"
QUERY_VECTOR = unit([0, 0, 0, 1])


def _at(month: int, day: int) -> datetime:
    return datetime(2024, month, day, 9, 30, tzinfo=UTC)


#: source id, type, space, metadata, occurred_at, turns of (text, speaker, vector)
_SOURCES: list[
    tuple[
        str,
        SourceType,
        ScopeRef,
        dict[str, MetadataValue],
        datetime | None,
        list[tuple[str, str | None, list[float]]],
    ]
] = [
    (
        "m1",
        SourceType.EMAIL,
        U1,
        {"from": [ALICE], "to": [BOB], "labels": ["work", "budget"], "import_id": "imp1"},
        _at(3, 10),
        [("Budget plan for the spring quarter", None, [1, 0, 0, 0])],
    ),
    (
        "m2",
        SourceType.EMAIL,
        U1,
        {"from": [BOB], "to": [ALICE], "import_id": "imp1"},
        _at(3, 20),
        [("Re: budget plan, numbers attached, budget budget", None, [0.9, 0.1, 0, 0.3])],
    ),
    (
        "m3",
        SourceType.EMAIL,
        U1,
        {"from": [ALICE], "import_id": "imp2"},
        _at(4, 2),
        [("The budget was approved, budget budget budget", None, [0.5, 0, 0, 0.8])],
    ),
    (
        "n1",
        SourceType.NOTE,
        U1,
        {"project": "apollo", "priority": 2},
        None,
        [("Budget notes for apollo, budget budget", None, [0, 1, 0, 0.5])],
    ),
    (
        "c1",
        SourceType.CONVERSATION,
        T1,
        {},
        _at(3, 15),
        [
            ("I booked the budget hotel", "Maya", [0, 0, 1, 0.9]),
            ("Great budget choice, budget budget", "Sam", [0, 0.2, 1, 0.9]),
        ],
    ),
    (
        "d1",
        SourceType.DOCUMENT,
        T2,
        {"draft": True},
        _at(3, 5),
        [("Annual budget document, budget budget budget", None, [0, 0, 0.1, 1])],
    ),
]

#: (name, filter, the chunk ids it admits among what READER may read), worked out by hand
FILTER_CASES: list[tuple[str, SearchFilters, set[str]]] = [
    ("email", SearchFilters(source_types=frozenset({SourceType.EMAIL})), {"m1-0", "m2-0", "m3-0"}),
    (
        "from alice",
        SearchFilters(participants=((ParticipantRole.FROM, "alice"),)),
        {"m1-0", "m3-0"},
    ),
    (
        "alice anywhere",
        SearchFilters(participants=((ParticipantRole.ANY, "Alice@Example.com"),)),
        {"m1-0", "m2-0", "m3-0"},
    ),
    ("speaker maya", SearchFilters(participants=((ParticipantRole.SPEAKER, "maya"),)), {"c1-0"}),
    ("anyone maya", SearchFilters(participants=((ParticipantRole.ANY, "MAYA"),)), {"c1-0"}),
    (
        "march",
        SearchFilters(occurred_from=_at(3, 1), occurred_to=_at(3, 31)),
        {"m1-0", "m2-0", "c1-0", "c1-1", "d1-0"},
    ),
    ("inclusive bounds", SearchFilters(occurred_from=_at(3, 10), occurred_to=_at(3, 10)), {"m1-0"}),
    ("import imp1", SearchFilters(import_id="imp1"), {"m1-0", "m2-0"}),
    ("label work", SearchFilters(metadata=(("labels", "work"),)), {"m1-0"}),
    ("priority 2", SearchFilters(metadata=(("priority", 2.0),)), {"n1-0"}),
    ("draft", SearchFilters(metadata=(("draft", True),)), {"d1-0"}),
    ("team", SearchFilters(scope=MemoryScope.TEAM), {"c1-0", "c1-1", "d1-0"}),
    ("team t1", SearchFilters(scope=MemoryScope.TEAM, scope_key="t1"), {"c1-0", "c1-1"}),
    (
        "mail from alice in march",
        SearchFilters(
            source_types=frozenset({SourceType.EMAIL}),
            participants=((ParticipantRole.FROM, "alice"),),
            occurred_from=_at(3, 1),
            occurred_to=_at(3, 31),
        ),
        {"m1-0"},
    ),
    ("nobody", SearchFilters(participants=((ParticipantRole.FROM, "carol"),)), set()),
]


def _facts(source: Source, chunk: EmbeddedChunk) -> FilterFacts:
    return FilterFacts(
        scope=chunk.chunk.scope,
        scope_key=chunk.chunk.scope_key,
        source_type=source.source_type,
        metadata=source.metadata,
        occurred_at=chunk.chunk.occurred_at,
        speaker=chunk.chunk.speaker,
    )


async def load_filter_corpus(
    store: MemoryStore, index: RetrievalIndex
) -> dict[str, FilterFacts]:
    """Write the corpus through the store, then the index; each chunk's facts by id."""
    await store.prepare(ORG, SPACE)
    facts: dict[str, FilterFacts] = {}
    for sid, kind, space, metadata, when, turns in _SOURCES:
        source = msgspec.structs.replace(
            make_source(
                sid,
                ORG,
                scope=space.scope,
                scope_key=space.scope_key,
                metadata=metadata,
                occurred_at=when,
            ),
            source_type=kind,
        )
        chunks = [
            embedded(
                make_chunk(
                    f"{sid}-{n}",
                    source,
                    text=text,
                    ordinal=n,
                    speaker=speaker,
                    role="user" if speaker else None,
                    turn_index=n if speaker else None,
                ),
                unit(vector),
            )
            for n, (text, speaker, vector) in enumerate(turns)
        ]
        await store.save_memory(source, chunks)
        await index.add(ORG, [IndexEntry.of(c, source=source) for c in chunks])
        facts.update({c.chunk.chunk_id: _facts(source, c) for c in chunks})
    await index.mark_ready(ORG)
    return facts


def _narrowed(narrow: SearchFilters) -> CandidateFilter:
    return msgspec.structs.replace(READER, narrow=narrow)


class RetrievalIndexFilterContract:
    """Needs the ``pair`` fixture of ``RetrievalIndexContract``."""

    @pytest.mark.parametrize(("name", "narrow", "expected"), FILTER_CASES, ids=lambda v: v)
    async def test_every_candidate_list_keeps_exactly_the_matching_chunks(
        self,
        pair: tuple[MemoryStore, RetrievalIndex],
        name: str,
        narrow: SearchFilters,
        expected: set[str],
    ) -> None:
        store, index = pair
        facts = await load_filter_corpus(store, index)
        assert {cid for cid, f in facts.items() if narrow.matches(f)} == expected, name
        where = _narrowed(narrow)
        lexical = await index.lexical(ORG, "budget", 50, where)
        assert {h.item_id for h in lexical} == expected
        vector = await index.vector(ORG, QUERY_VECTOR, 50, where)
        assert {h.item_id for h in vector} == expected
        texts = await index.candidate_texts(ORG, list(facts), where)
        assert set(texts) == expected
        sources = {cid.split("-")[0] for cid in expected}
        episodes = await index.episode_lexical(ORG, "budget", 50, where)
        assert {h.item_id for h in episodes} == sources
        members = await index.episode_members(ORG, [s for s, *_ in _SOURCES], where)
        assert {cid for ids in members.values() for cid in ids} == expected

    async def test_filtered_order_is_the_unfiltered_order_among_matching_chunks(
        self, pair: tuple[MemoryStore, RetrievalIndex]
    ) -> None:
        store, index = pair
        facts = await load_filter_corpus(store, index)
        for _, narrow, _expected in FILTER_CASES:
            where = _narrowed(narrow)
            everything = await index.lexical(ORG, "budget", 50, READER)
            kept = [h.item_id for h in everything if narrow.matches(facts[h.item_id])]
            assert [h.item_id for h in await index.lexical(ORG, "budget", 50, where)] == kept

    async def test_a_selective_filter_still_fills_the_limit(
        self, pair: tuple[MemoryStore, RetrievalIndex]
    ) -> None:
        """The matching chunks rank last unfiltered; a filter over-fetch would lose them."""
        store, index = pair
        await load_filter_corpus(store, index)
        from_alice = SearchFilters(participants=((ParticipantRole.FROM, "alice"),))
        unfiltered = await index.vector(ORG, QUERY_VECTOR, 2, READER)
        assert {h.item_id for h in unfiltered}.isdisjoint({"m1-0"})
        lexical = await index.lexical(ORG, "budget", 2, _narrowed(from_alice))
        assert {h.item_id for h in lexical} == {"m1-0", "m3-0"}
        vector = await index.vector(ORG, QUERY_VECTOR, 2, _narrowed(from_alice))
        assert [h.item_id for h in vector] == ["m3-0", "m1-0"]

    async def test_a_filter_never_widens_what_the_policy_admits(
        self, pair: tuple[MemoryStore, RetrievalIndex]
    ) -> None:
        store, index = pair
        await load_filter_corpus(store, index)
        only_u1 = CandidateFilter(
            visible=frozenset({U1}), narrow=SearchFilters(scope=MemoryScope.TEAM)
        )
        assert await index.lexical(ORG, "budget", 50, only_u1) == []
        assert await index.vector(ORG, QUERY_VECTOR, 50, only_u1) == []
        email = SearchFilters(source_types=frozenset({SourceType.EMAIL}))
        email_in_t1 = CandidateFilter(visible=frozenset({T1}), narrow=email)
        assert await index.lexical(ORG, "budget", 50, email_in_t1) == []

    async def test_the_store_rebuilds_entries_with_their_source_facets(
        self, pair: tuple[MemoryStore, RetrievalIndex]
    ) -> None:
        """A derived index is rebuilt from ``scan_index_entries``: the facets must survive it."""
        store, index = pair
        facts = await load_filter_corpus(store, index)
        entries = await store.scan_index_entries(ORG, None, 100)
        assert {e.chunk_id for e in entries} == set(facts)
        for entry in entries:
            fact = facts[entry.chunk_id]
            assert entry.facets == source_facets(fact.source_type, fact.metadata)
        by_id = {e.chunk_id: e for e in entries}
        assert "from:alice" in by_id["m1-0"].facets
        assert "type:email" in by_id["m1-0"].facets
        assert "meta:labels=s:work" in by_id["m1-0"].facets
        assert "type:conversation" in by_id["c1-0"].facets
