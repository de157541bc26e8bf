"""The behaviour every ``RetrievalIndex`` adapter owes the use cases, as a reusable pytest suite.

Native indexes (SurrealDB's own BM25/HNSW) and derived ones (rebuilt in
process from the store) must return the same candidates, so the use cases
can switch between them by configuration. Every test writes through the
store first, then ``index.add`` + ``index.mark_ready``, exactly as the use
cases do.

Usage: subclass it in a test module and provide an async fixture ``pair``
yielding ``(store, index)``: a fresh, empty store (any MemoryStore, e.g. the
in-memory one for a derived index) and the index under test. Set
``native = True`` for an index that is always ready::

    class TestMyIndex(RetrievalIndexContract):
        @pytest.fixture
        async def pair(self) -> AsyncIterator[tuple[MemoryStore, RetrievalIndex]]:
            store = InMemoryMemoryStore()
            yield store, MyIndex()
            await store.close()

Lexical search is a candidate list: any query term may match (OR), and BM25
ranks documents matching more, rarer terms higher.
"""

import math
from collections.abc import Sequence
from typing import ClassVar

import pytest

from application.ports import MemoryStore, RetrievalIndex
from application.ports.records import CandidateFilter, IndexEntry, ScopeRef, ScoredId
from contracts.corrections import RetrievalIndexCorrectionContract
from contracts.embedding_queue import RetrievalIndexPendingContract
from contracts.retrieval_filters import RetrievalIndexFilterContract
from contracts.samples import SPACE, embedded, make_chunk, make_source, unit
from domain.scopes import LifecycleState, MemoryScope

__all__ = ["RetrievalIndexContract"]

Pair = tuple[MemoryStore, RetrievalIndex]
ALL = CandidateFilter()
A, B = "index-org-a", "index-org-b"
PRIVATE_U1 = ScopeRef(MemoryScope.PRIVATE, "u1")
TEAM_T1 = ScopeRef(MemoryScope.TEAM, "t1")
TEAM_T2 = ScopeRef(MemoryScope.TEAM, "t2")
ORGANIZATION = ScopeRef(MemoryScope.ORGANIZATION, None)

ON, OFF = LifecycleState.ACTIVE, LifecycleState.HIDDEN
#: id, text, vector, space, lifecycle
_CORPUS: list[tuple[str, str, list[float], ScopeRef, LifecycleState]] = [
    ("c0", "She runs every morning along the river", [1, 0, 0, 0], PRIVATE_U1, ON),
    ("c1", "The garden needs water before the tomato harvest", [1, 1, 0, 0], PRIVATE_U1, ON),
    ("c2", "Meeting notes about the quarterly budget review", [0, 1, 0, 0], PRIVATE_U1, ON),
    ("c3", "A recipe for lemon cake with fresh berries", [0.1, 0, 1, 0], PRIVATE_U1, ON),
    ("c4", "The garden fence was painted blue last spring", [-1, 0, 0, 0], TEAM_T1, ON),
    ("c5", "Flight booking confirmation for the Lisbon trip", [0, 0, 0, 1], TEAM_T1, ON),
    ("c6", "Notes on the new database migration plan", [-0.2, 0, 0, 1], TEAM_T2, ON),
    ("c7", "Notes: call the plumber about the kitchen sink leak", [0.5, 0, 0, 1], TEAM_T2, ON),
    ("c8", "Company holiday calendar for next year", [0, 1, 0.5, 0], ORGANIZATION, ON),
    ("c9", "Hidden running secrets", [1, 0.2, 0, 0], PRIVATE_U1, OFF),
]
QUERY_VECTOR = unit([1, 0.2, 0, 0])


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def _ids(hits: Sequence[ScoredId]) -> list[str]:
    return [h.item_id for h in hits]


async def load(store: MemoryStore, index: RetrievalIndex, org: str, ready: bool = True) -> None:
    """Write the corpus through the store, then into the index, as the use cases do."""
    await store.prepare(org, SPACE)
    source = make_source(f"{org}-src", org)
    chunks = [
        embedded(
            make_chunk(
                cid,
                source,
                text=text,
                ordinal=n,
                lifecycle=life,
                scope=space.scope,
                scope_key=space.scope_key,
            ),
            unit(vector),
        )
        for n, (cid, text, vector, space, life) in enumerate(_CORPUS)
    ]
    await store.save_memory(source, chunks)
    await index.add(org, [IndexEntry.of(c) for c in chunks])
    if ready:
        await index.mark_ready(org)


#: episode (source id), scope space, lifecycle, turns of (text, vector)
_EPISODES: list[tuple[str, ScopeRef, list[tuple[str, list[float], LifecycleState]]]] = [
    (
        "e1",
        PRIVATE_U1,
        [
            ("We planned the vegetable garden layout", [1, 0, 0, 0], ON),
            ("Tomatoes will grow by the south fence", [1, 0.1, 0, 0], ON),
            ("Hidden aside about compost secrets", [0.9, 0, 0.1, 0], OFF),
        ],
    ),
    (
        "e2",
        PRIVATE_U1,
        [
            ("The quarterly budget review is on Friday", [0, 1, 0, 0], ON),
            ("Bring the garden invoice to the review", [0, 1, 0.2, 0], ON),
        ],
    ),
    (
        "e3",
        TEAM_T2,
        [
            ("Team garden tomatoes compost planning", [1, 0, 0, 0.05], ON),
        ],
    ),
]


async def load_episodes(store: MemoryStore, index: RetrievalIndex, org: str) -> None:
    """Three conversations (one per source), each turn a chunk with role and turn index."""
    await store.prepare(org, SPACE)
    for episode, space, turns in _EPISODES:
        source = make_source(f"{org}-{episode}", org, scope=space.scope, scope_key=space.scope_key)
        chunks = [
            embedded(
                make_chunk(
                    f"{episode}-t{n}",
                    source,
                    text=text,
                    ordinal=n,
                    lifecycle=life,
                    role="user" if n % 2 == 0 else "assistant",
                    turn_index=n,
                ),
                unit(vector),
            )
            for n, (text, vector, life) in enumerate(turns)
        ]
        await store.save_memory(source, chunks)
        await index.add(org, [IndexEntry.of(c) for c in chunks])
    await index.mark_ready(org)


class RetrievalIndexContract(
    RetrievalIndexCorrectionContract, RetrievalIndexFilterContract, RetrievalIndexPendingContract
):
    """Subclass (as ``Test...``) and provide a ``pair`` fixture."""

    #: a native index is always ready; a derived one only after ``mark_ready``
    native: ClassVar[bool] = False

    @pytest.fixture
    def pair(self) -> Pair:
        raise NotImplementedError("provide a `pair` fixture yielding (store, index)")

    async def test_lexical_matches_stemmed_words(self, pair: Pair) -> None:
        store, index = pair
        await load(store, index, A)
        assert _ids(await index.lexical(A, "running", 10, ALL)) == ["c0"]  # c9 is hidden
        assert "c0" in _ids(await index.lexical(A, "RUN", 10, ALL))
        assert await index.lexical(A, "xylophone", 10, ALL) == []

    async def test_lexical_ranks_more_matching_terms_higher(self, pair: Pair) -> None:
        store, index = pair
        await load(store, index, A)
        hits = await index.lexical(A, "garden tomato harvest", 10, ALL)
        ids = _ids(hits)
        assert ids[0] == "c1"
        assert "c4" in ids  # shares one term: still a candidate
        assert ids.index("c1") < ids.index("c4")
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)

    async def test_lexical_returns_at_most_limit(self, pair: Pair) -> None:
        store, index = pair
        await load(store, index, A)
        assert len(await index.lexical(A, "notes", 2, ALL)) == 2
        assert len(await index.lexical(A, "notes", 10, ALL)) == 3

    async def test_vector_returns_nearest_first_by_cosine(self, pair: Pair) -> None:
        store, index = pair
        await load(store, index, A)
        hits = await index.vector(A, QUERY_VECTOR, 3, ALL)
        assert _ids(hits) == ["c0", "c1", "c7"]
        corpus = {cid: vector for cid, _, vector, _, _ in _CORPUS}
        for hit in hits:
            assert math.isclose(hit.score, _cosine(QUERY_VECTOR, corpus[hit.item_id]), abs_tol=1e-3)
        everything = await index.vector(A, QUERY_VECTOR, 20, ALL)
        assert _ids(everything) == ["c0", "c1", "c7", "c2", "c8", "c3", "c5", "c6", "c4"]

    async def test_filters_keep_to_visible_spaces(self, pair: Pair) -> None:
        store, index = pair
        await load(store, index, A)
        mine = CandidateFilter(visible=frozenset({PRIVATE_U1, TEAM_T1}))
        assert _ids(await index.lexical(A, "notes", 10, mine)) == ["c2"]
        assert set(_ids(await index.vector(A, QUERY_VECTOR, 20, mine))) == {
            "c0",
            "c1",
            "c2",
            "c3",
            "c4",
            "c5",
        }
        org_wide = CandidateFilter(visible=frozenset({ORGANIZATION}))
        assert _ids(await index.vector(A, QUERY_VECTOR, 3, org_wide)) == ["c8"]
        assert _ids(await index.lexical(A, "calendar holiday", 5, org_wide)) == ["c8"]
        nothing = CandidateFilter(visible=frozenset())
        assert await index.lexical(A, "notes", 10, nothing) == []
        assert await index.vector(A, QUERY_VECTOR, 10, nothing) == []

    async def test_inactive_chunks_are_never_candidates(self, pair: Pair) -> None:
        store, index = pair
        await load(store, index, A)
        assert "c9" not in _ids(await index.lexical(A, "hidden secrets running", 10, ALL))
        assert "c9" not in _ids(await index.vector(A, unit([1, 0.2, 0, 0]), 20, ALL))
        mine = CandidateFilter(visible=frozenset({PRIVATE_U1}))
        assert await index.lexical(A, "secrets", 10, mine) == []

    async def test_organisations_are_isolated(self, pair: Pair) -> None:
        store, index = pair
        await load(store, index, A)
        await store.prepare(B, SPACE)
        source = make_source("b-src", B)
        only = embedded(make_chunk("b1", source, text="Weekly garden chores"), unit([0, 0, 1, 1]))
        await store.save_memory(source, [only])
        await index.add(B, [IndexEntry.of(only)])
        await index.mark_ready(B)
        assert _ids(await index.lexical(B, "running garden", 10, ALL)) == ["b1"]
        assert _ids(await index.vector(B, QUERY_VECTOR, 10, ALL)) == ["b1"]
        assert await index.lexical("index-org-unknown", "garden", 10, ALL) == []
        assert await index.vector("index-org-unknown", QUERY_VECTOR, 10, ALL) == []

    async def test_dropping_an_organisation_empties_it(self, pair: Pair) -> None:
        store, index = pair
        await load(store, index, A)
        await load(store, index, B)
        await store.drop_organization(A)
        await index.drop(A)
        assert await index.lexical(A, "garden", 10, ALL) == []
        assert await index.vector(A, QUERY_VECTOR, 10, ALL) == []
        assert "c1" in _ids(await index.lexical(B, "garden", 10, ALL))

    async def test_readiness(self, pair: Pair) -> None:
        store, index = pair
        await load(store, index, A, ready=False)
        assert index.is_ready(A) is self.native
        await index.mark_ready(A)
        assert index.is_ready(A)
        await store.drop_organization(A)
        await index.drop(A)
        assert index.is_ready(A) is self.native
        assert index.name

    async def test_episode_lexical_reads_an_episode_as_one_text(self, pair: Pair) -> None:
        store, index = pair
        await load_episodes(store, index, A)
        mine = CandidateFilter(visible=frozenset({PRIVATE_U1}))
        hits = await index.episode_lexical(A, "vegetable garden tomatoes fence", 5, mine)
        assert _ids(hits)[0] == f"{A}-e1"  # its two turns hold all the words between them
        assert f"{A}-e3" not in _ids(hits)  # another space
        # a hidden turn never makes its episode match
        assert await index.episode_lexical(A, "compost", 5, mine) == []
        everyone = await index.episode_lexical(A, "compost", 5, ALL)
        assert _ids(everyone) == [f"{A}-e3"]
        assert (
            await index.episode_lexical(A, "garden", 5, CandidateFilter(visible=frozenset())) == []
        )

    async def test_episode_vector_ranks_the_closest_episode_first(self, pair: Pair) -> None:
        store, index = pair
        await load_episodes(store, index, A)
        mine = CandidateFilter(visible=frozenset({PRIVATE_U1}))
        hits = await index.episode_vector(A, unit([1, 0.05, 0, 0]), 5, mine)
        assert _ids(hits) == [f"{A}-e1", f"{A}-e2"]
        assert hits[0].score > hits[1].score
        assert _ids(await index.episode_vector(A, unit([1, 0, 0, 0.05]), 1, ALL))[0] in {
            f"{A}-e1",
            f"{A}-e3",
        }
        assert await index.episode_vector("index-org-unknown", QUERY_VECTOR, 5, ALL) == []

    async def test_episode_members_are_visible_turns_in_order(self, pair: Pair) -> None:
        store, index = pair
        await load_episodes(store, index, A)
        mine = CandidateFilter(visible=frozenset({PRIVATE_U1}))
        got = await index.episode_members(A, [f"{A}-e2", f"{A}-e1", f"{A}-e3", "nope"], mine)
        assert got == {f"{A}-e1": ["e1-t0", "e1-t1"], f"{A}-e2": ["e2-t0", "e2-t1"]}
        assert await index.episode_members(A, [], ALL) == {}
        assert await index.episode_members("index-org-unknown", [f"{A}-e1"], ALL) == {}

    async def test_candidate_texts_carry_what_the_ranker_reads(self, pair: Pair) -> None:
        store, index = pair
        await load_episodes(store, index, A)
        mine = CandidateFilter(visible=frozenset({PRIVATE_U1}))
        got = await index.candidate_texts(A, ["e1-t1", "e1-t2", "e3-t0", "nope", "e1-t1"], mine)
        assert set(got) == {"e1-t1"}  # e1-t2 is hidden, e3-t0 in another space
        text = got["e1-t1"]
        assert (text.source_id, text.text, text.role, text.turn_index) == (
            f"{A}-e1",
            "Tomatoes will grow by the south fence",
            "assistant",
            1,
        )
        assert text.occurred_at is None
        assert await index.candidate_texts(A, [], ALL) == {}
        assert await index.candidate_texts("index-org-unknown", ["e1-t1"], ALL) == {}

    async def test_the_ranker_reads_a_turns_speaker_the_searches_its_words(
        self, pair: Pair
    ) -> None:
        """The ranker sees "Maya: I ran ..."; BM25 and the vector see the words alone."""
        store, index = pair
        await store.prepare(A, SPACE)
        source = make_source(f"{A}-talk", A)
        said = [
            ("Maya", "I ran my first marathon last weekend"),
            ("Sam", "I keep saying I will start running"),
        ]
        chunks = [
            embedded(
                make_chunk(
                    f"talk-t{n}", source, text=text, ordinal=n, role="user", turn_index=n,
                    speaker=speaker,
                )
            )
            for n, (speaker, text) in enumerate(said)
        ]
        await store.save_memory(source, chunks)
        await index.add(A, [IndexEntry.of(c) for c in chunks])
        await index.mark_ready(A)
        assert await index.lexical(A, "maya", 10, ALL) == []
        assert _ids(await index.lexical(A, "marathon", 10, ALL)) == ["talk-t0"]
        got = await index.candidate_texts(A, ["talk-t0"], ALL)
        assert got["talk-t0"].speaker == "Maya"
        assert got["talk-t0"].text == "Maya: I ran my first marathon last weekend"
        # the store keeps the words verbatim
        stored = await store.get_chunks(A, ["talk-t0"])
        assert stored["talk-t0"].text == "I ran my first marathon last weekend"
