"""The behaviour every ``Reranker`` adapter owes the retrieval pipeline, as a pytest suite.

The pipeline relies on: a short name (it appears in reasons), exactly one
finite score per candidate with the candidates' own ids (none invented, none
dropped), reasons as a list of plain strings, the same answer twice for the
same input, no call at all needed for nothing to rank, and failing soft: a
model that fails keeps the input order instead of raising. Meaning cannot be
checked generically (the default adapter keeps the order on purpose), so
the suite pins the shape; each adapter's own tests check its judgement.

Usage: subclass it in a test module and provide two fixtures, ``reranker``
(a working adapter) and ``failing_reranker`` (the same adapter whose model
fails every call; the ``none`` adapter passes itself)::

    class TestMyReranker(RerankerContract):
        @pytest.fixture
        def reranker(self) -> Reranker: ...

        @pytest.fixture
        def failing_reranker(self) -> Reranker: ...
"""

import math
from datetime import date

from application.ports.rerank import RerankCandidate, Reranker, RerankScore

__all__ = ["CANDIDATES", "QUERY", "RerankerContract"]

QUERY = "What did Maya name the cat she adopted?"

CANDIDATES = [
    RerankCandidate(
        item_id="t1",
        text="Sam: Did you end up adopting the cat from the shelter?",
        speaker="Sam",
        role="user",
        day=date(2023, 5, 8),
    ),
    RerankCandidate(
        item_id="t2",
        text="Maya: Yes!! We called him Pixel, he's tiny.",
        speaker="Maya",
        role="assistant",
        day=date(2023, 5, 8),
    ),
    RerankCandidate(item_id="t3", text="The quarterly report is due on Friday.", role="user"),
    RerankCandidate(
        item_id="t4",
        text="Maya: I ran my first marathon last weekend! ☺ — 42 km",
        speaker="Maya",
        role="assistant",
        day=date(2023, 6, 12),
    ),
]


class RerankerContract:
    """Subclass (as ``Test...``) and provide ``reranker`` and ``failing_reranker`` fixtures."""

    def test_has_a_short_name(self, reranker: Reranker) -> None:
        assert isinstance(reranker, Reranker)
        assert reranker.name.strip() and len(reranker.name) <= 40

    async def test_scores_each_candidate_exactly_once(self, reranker: Reranker) -> None:
        scores = await reranker.rerank(QUERY, CANDIDATES)
        assert sorted(s.item_id for s in scores) == sorted(c.item_id for c in CANDIDATES)
        assert all(isinstance(s.score, float) and math.isfinite(s.score) for s in scores)
        assert all(isinstance(r, str) for s in scores for r in s.reasons)

    async def test_nothing_to_rank_gives_nothing(self, reranker: Reranker) -> None:
        assert await reranker.rerank(QUERY, []) == []

    async def test_one_candidate_gets_one_score(self, reranker: Reranker) -> None:
        scores = await reranker.rerank(QUERY, CANDIDATES[:1])
        assert [s.item_id for s in scores] == ["t1"]

    async def test_the_same_input_gets_the_same_order(self, reranker: Reranker) -> None:
        def order(scores: list[RerankScore]) -> list[str]:
            return [s.item_id for s in sorted(scores, key=lambda s: -s.score)]

        first = await reranker.rerank(QUERY, CANDIDATES)
        again = await reranker.rerank(QUERY, CANDIDATES)
        assert order(first) == order(again)

    async def test_undated_unnamed_and_long_candidates_are_scored(
        self, reranker: Reranker
    ) -> None:
        odd = [
            RerankCandidate(item_id="a", text="x " * 3000),
            RerankCandidate(item_id="b", text="ok"),
            RerankCandidate(item_id="c", text='{"not": "json"} ``` [1] ignore the list'),
        ]
        scores = await reranker.rerank("anything at all?", odd)
        assert {s.item_id for s in scores} == {"a", "b", "c"}

    async def test_a_failing_model_keeps_the_input_order(
        self, failing_reranker: Reranker
    ) -> None:
        scores = await failing_reranker.rerank(QUERY, CANDIDATES)
        ranked = sorted(scores, key=lambda s: -s.score)
        assert [s.item_id for s in ranked] == [c.item_id for c in CANDIDATES]
