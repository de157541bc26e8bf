"""Ranking reasons are values with a code; each code has one sentence, the one a hit's
``reason`` has always said (the API's ``reason`` is pinned, word for word)."""

import pytest

from domain.explain import inclusion_reason
from domain.ranking.reasons import RankCode, RankReason, found_by
from domain.ranking.sentences import SENTENCES, reason_text, sentence
from domain.relevance_gate import WEAK_MATCH

_SAID = [
    (
        RankReason(code=RankCode.FOUND_BY, signal="vector", rank=3),
        "close in meaning to the query (rank 3)",
    ),
    (RankReason(code=RankCode.NO_SIGNAL), "no retrieval signal"),
    (RankReason(code=RankCode.COVERAGE, share=0.804), "holds 80% of the question's weighted words"),
    (RankReason(code=RankCode.PHRASE), "has the question's words side by side"),
    (
        RankReason(code=RankCode.ROLE_ASKED, who="assistant"),
        "said by the assistant, whom the question asks about",
    ),
    (RankReason(code=RankCode.SPEAKER_NAMED, who="Maya"), "said by Maya, whom the question names"),
    (RankReason(code=RankCode.DATE), "happened when the question says"),
    (RankReason(code=RankCode.COMPARED_EVENT), "matches one of the events the question compares"),
    (RankReason(code=RankCode.REPLY), "reply to a matching turn"),
    (RankReason(code=RankCode.FIRST_PERSON), "told in the first person"),
    (RankReason(code=RankCode.CLEAR_MARGIN), "moved up past the fused order by a clear margin"),
    (
        RankReason(code=RankCode.RERANKED, before=7, after=2, by="llm"),
        "reranked from 7 to 2 by llm",
    ),
    (RankReason(code=RankCode.RERANKER_NOTE, note="cross-encoder 0.512"), "cross-encoder 0.512"),
    (
        RankReason(code=RankCode.SUPERSEDED, who="src-9"),
        "superseded by src-9: ranked below fresh evidence",
    ),
    (RankReason(code=RankCode.STALE), "stale: ranked below fresh evidence"),
    (RankReason(code=RankCode.WEAK_MATCH), WEAK_MATCH),
]


def test_every_code_has_a_sentence() -> None:
    assert set(SENTENCES) == set(RankCode)
    assert {reason.code for reason, _ in _SAID} == set(RankCode)


@pytest.mark.parametrize(("reason", "said"), _SAID, ids=[r.code for r, _ in _SAID])
def test_each_code_says_its_sentence(reason: RankReason, said: str) -> None:
    assert sentence(reason) == said


def test_the_signals_come_first_best_rank_first_then_the_rules() -> None:
    ranks = {"vector": 3, "lexical": 1, "window": 3}
    reasons = [*found_by(ranks), RankReason(code=RankCode.DATE)]
    assert reason_text(reasons) == (
        "matched the query's words (rank 1); close in meaning to the query (rank 3); "
        "inside a window of turns that matched (rank 3); happened when the question says"
    )
    assert inclusion_reason({}) == "no retrieval signal"
    assert found_by({}) == [RankReason(code=RankCode.NO_SIGNAL)]
