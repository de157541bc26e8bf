"""The behaviour every ``CandidateStore`` adapter owes reflection and review.

Candidates read back equal to what went in (nested spans, relations, scope
refs, timezone-aware datetimes); adding a known id keeps the stored one (so
reflecting twice leaves reviews alone); a review replaces the candidate
whole; lists page in id order and filter by state; organisations never see
each other's candidates.

Usage: subclass it and provide a ``candidates`` fixture::

    class TestMyCandidates(CandidateStoreContract):
        @pytest.fixture
        def candidates(self) -> CandidateStore: ...
"""

from datetime import UTC, datetime, timedelta

import msgspec

from application.ports.reflection import CandidateStore
from domain.reflection.candidates import (
    CandidateType,
    ReflectionCandidate,
    Relation,
    ReviewState,
    Span,
)
from domain.scopes import MemoryScope, ScopeRef

__all__ = ["CandidateStoreContract", "sample_candidate"]

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
ANA = ScopeRef(MemoryScope.PRIVATE, "ana")


def sample_candidate(
    candidate_id: str = "c1", org_id: str = "org-a", **changes: object
) -> ReflectionCandidate:
    base = ReflectionCandidate(
        candidate_id=candidate_id,
        org_id=org_id,
        type=CandidateType.RELATIONSHIP,
        text="Maya decided: go with SurrealDB",
        source_ids=("s1", "s2"),
        source_hashes={"s1": "h1", "s2": "h2"},
        spans=(Span(source_id="s1", start=3, end=40), Span(source_id="s2", start=0, end=5)),
        extractor="rules",
        extractor_version="1",
        confidence=0.8,
        suggested_scope=ANA,
        input_scopes=(ANA, ScopeRef(MemoryScope.PROJECT, "alpha")),
        created_by="ana",
        created_at=T0,
        relation=Relation(
            subject="Maya",
            subject_type=CandidateType.PERSON,
            predicate="decided",
            object="go with SurrealDB",
            object_type=CandidateType.DECISION,
        ),
        sensitive=True,
        contradicts=("c0",),
    )
    return msgspec.structs.replace(base, **changes)


def _accepted(candidate: ReflectionCandidate) -> ReflectionCandidate:
    return msgspec.structs.replace(
        candidate,
        state=ReviewState.ACCEPTED,
        reviewed_by="bob",
        reviewed_at=T0 + timedelta(hours=2),
        promoted_ids=("c1s", "c1o", "c1r"),
        promoted_scope=ScopeRef(MemoryScope.PROJECT, "alpha"),
    )


class CandidateStoreContract:
    """Subclass (as ``Test...``) and provide a ``candidates`` fixture."""

    async def test_candidates_read_back_equal(self, candidates: CandidateStore) -> None:
        c = sample_candidate()
        assert await candidates.add_candidates([c]) == ["c1"]
        back = (await candidates.get_candidates("org-a", ["c1", "nope"]))["c1"]
        assert back == c and back.created_at.utcoffset() == timedelta(0)
        assert back.relation is not None and back.relation.object_type is CandidateType.DECISION
        assert back.suggested_scope == ANA and back.state is ReviewState.PENDING
        assert await candidates.get_candidates("org-a", []) == {}

    async def test_adding_a_known_id_keeps_the_stored_one(self, candidates: CandidateStore) -> None:
        await candidates.add_candidates([sample_candidate()])
        reviewed = _accepted(sample_candidate())
        await candidates.save_candidate(reviewed)
        again = [sample_candidate(), sample_candidate("c2")]
        assert await candidates.add_candidates(again) == ["c2"]
        assert (await candidates.get_candidates("org-a", ["c1"]))["c1"] == reviewed
        assert await candidates.add_candidates([]) == []

    async def test_lists_page_in_id_order_and_filter_by_state(
        self, candidates: CandidateStore
    ) -> None:
        await candidates.add_candidates([sample_candidate(f"c{n}") for n in (3, 1, 2, 4)])
        await candidates.save_candidate(_accepted(sample_candidate("c2")))
        everything = await candidates.list_candidates("org-a", None, None, 10)
        assert [c.candidate_id for c in everything] == ["c1", "c2", "c3", "c4"]
        page = await candidates.list_candidates("org-a", None, "c1", 2)
        assert [c.candidate_id for c in page] == ["c2", "c3"]
        pending = await candidates.list_candidates("org-a", ReviewState.PENDING, None, 10)
        assert [c.candidate_id for c in pending] == ["c1", "c3", "c4"]
        accepted = await candidates.list_candidates("org-a", ReviewState.ACCEPTED, None, 10)
        assert [c.promoted_ids for c in accepted] == [("c1s", "c1o", "c1r")]

    async def test_forgetting_a_source_removes_the_candidates_citing_it(
        self, candidates: CandidateStore
    ) -> None:
        await candidates.add_candidates(
            [
                sample_candidate("c1"),  # cites s1 and s2
                sample_candidate(
                    "c2",
                    source_ids=("s2",),
                    source_hashes={"s2": "h2"},
                    spans=(),
                    input_scopes=(ANA,),
                ),
            ]
        )
        await candidates.add_candidates([sample_candidate("c3", org_id="org-b")])
        assert await candidates.forget_source("org-a", "s1") == 1
        assert list(await candidates.get_candidates("org-a", ["c1", "c2"])) == ["c2"]
        assert await candidates.forget_source("org-a", "s1") == 0
        assert list(await candidates.get_candidates("org-b", ["c3"])) == ["c3"]

    async def test_organisations_are_isolated(self, candidates: CandidateStore) -> None:
        await candidates.add_candidates([sample_candidate()])
        assert await candidates.get_candidates("org-b", ["c1"]) == {}
        assert await candidates.list_candidates("org-b", None, None, 10) == []
        await candidates.add_candidates([sample_candidate(org_id="org-b")])
        await candidates.drop_candidates("org-a")
        assert await candidates.list_candidates("org-a", None, None, 10) == []
        assert list(await candidates.get_candidates("org-b", ["c1"])) == ["c1"]
