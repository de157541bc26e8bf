"""The search page's "Why here" in short plain words: one line, each thing once."""

from application.memory.results import Signals
from domain.explain import inclusion_reason
from domain.relevance_gate import WEAK_MATCH
from entrypoints.web.why import why, why_of


def _reason(ranks: dict[str, int], *rules: str) -> str:
    return "; ".join([inclusion_reason(ranks), *rules])


def test_signals_and_rules_become_one_short_line_each_said_once() -> None:
    ranks = {"lexical": 1, "vector": 3, "episode_lexical": 2, "episode_vector": 4}
    reason = _reason(
        ranks,
        "holds 80% of the question's weighted words",
        "has the question's words side by side",
        "said by Ana, whom the question names",
        "reranked from 5 to 1 by cross-encoder",
    )
    got = why_of(reason, ranks, turn=True)
    assert got.short == (
        "80% of your words · its conversation matches · similar meaning"
        " · your words side by side · said by Ana · moved up by the reranker"
    )
    assert "(rank" not in got.short and got.short.count("its conversation matches") == 1
    # the full list is kept, as the ranker gave it
    assert got.parts[0] == "matched the query's words (rank 1)"
    assert "reranked from 5 to 1 by cross-encoder" in got.parts and len(got.parts) == 8


def test_every_reason_the_learned_ranker_gives_has_words_on_the_page() -> None:
    ranks = {"lexical": 0}
    reasons = {
        "told in the first person": "in the speaker's own words",
        "reply to a matching turn": "a reply to a match",
        "happened when the question says": "at the time you asked about",
    }
    for said, words in reasons.items():
        assert why_of(_reason(ranks, said), ranks).short == f"Your words · {words}"


def test_lifecycle_weak_and_unknown_reasons() -> None:
    ranks = {"vector": 2}
    reason = _reason(
        ranks,
        WEAK_MATCH,
        "superseded by src-9: ranked below fresh evidence",
        "stale: ranked below fresh evidence",
        "reranked from 1 to 4 by llm",
        "a rule this page has no words for",
    )
    assert why_of(reason, ranks).short == (
        "Similar meaning · weak match · superseded, ranked lower · stale, ranked lower"
        " · moved down by the reranker · a rule this page has no words for"
    )
    assert why_of("no retrieval signal", {}).short == "No direct match"
    # a note's episode is the note itself, not a conversation
    assert why_of(inclusion_reason({"episode_lexical": 1}), {"episode_lexical": 1}).short == (
        "Its whole source matches"
    )


def test_from_a_hit_its_signals_give_the_ranks() -> None:
    class Hit:
        reason = _reason({"lexical": 2, "window": 1}, "happened when the question says")
        signals = Signals(lexical_rank=2, window_rank=1)

    assert why(Hit()).short == (
        "In a matching stretch of talk · your words · at the time you asked about"
    )
