"""The search page's "Why here" in short plain words: one line, each thing once."""

from domain.ranking.reasons import RankCode, RankReason, found_by
from domain.ranking.sentences import reason_text
from entrypoints.web.why import WORDS, why, why_of, words


def _reasons(ranks: dict[str, int], *rules: RankReason) -> list[RankReason]:
    return [*found_by(ranks), *rules]


def test_signals_and_rules_become_one_short_line_each_said_once() -> None:
    ranks = {"lexical": 1, "vector": 3, "episode_lexical": 2, "episode_vector": 4}
    reasons = _reasons(
        ranks,
        RankReason(code=RankCode.COVERAGE, share=0.8),
        RankReason(code=RankCode.PHRASE),
        RankReason(code=RankCode.SPEAKER_NAMED, who="Ana"),
        RankReason(code=RankCode.RERANKED, before=5, after=1, by="cross-encoder"),
    )
    got = why_of(reasons, turn=True)
    assert got.short == (
        "80% of your words · its conversation matches · similar meaning"
        " · your words side by side · said by Ana · moved up by the reranker"
    )
    assert "(rank" not in got.short and got.short.count("its conversation matches") == 1
    # the full list is kept, as the hit's reason says it
    assert got.parts[0] == "matched the query's words (rank 1)"
    assert "reranked from 5 to 1 by cross-encoder" in got.parts and len(got.parts) == 8
    assert "; ".join(got.parts) == reason_text(reasons)


def test_every_reason_the_learned_ranker_gives_has_words_on_the_page() -> None:
    ranks = {"lexical": 0}
    reasons = {
        RankCode.FIRST_PERSON: "in the speaker's own words",
        RankCode.REPLY: "a reply to a match",
        RankCode.DATE: "at the time you asked about",
    }
    for code, said in reasons.items():
        assert why_of(_reasons(ranks, RankReason(code=code))).short == f"Your words · {said}"


def test_lifecycle_weak_and_reranker_reasons() -> None:
    reasons = _reasons(
        {"vector": 2},
        RankReason(code=RankCode.WEAK_MATCH),
        RankReason(code=RankCode.SUPERSEDED, who="src-9"),
        RankReason(code=RankCode.STALE),
        RankReason(code=RankCode.RERANKED, before=1, after=4, by="llm"),
        RankReason(code=RankCode.RERANKER_NOTE, note="cross-encoder 0.512"),
    )
    assert why_of(reasons).short == (
        "Similar meaning · weak match · superseded, ranked lower · stale, ranked lower"
        " · moved down by the reranker · cross-encoder 0.512"
    )
    assert why_of(found_by({})).short == "No direct match"
    # a note's episode is the note itself, not a conversation
    assert why_of(found_by({"episode_lexical": 1})).short == "Its whole source matches"
    # the role a question asks about is said without its article, as before
    asked = RankReason(code=RankCode.ROLE_ASKED, who="assistant")
    assert words(asked) == "said by assistant"


def test_every_code_has_short_words() -> None:
    assert set(WORDS) == set(RankCode)
    for code in RankCode:
        reason = RankReason(
            code=code, signal="lexical", rank=1, share=0.5, who="Ana", before=2, after=1, note="n"
        )
        assert words(reason).strip()


def test_a_hit_says_conversation_for_a_turn() -> None:
    reasons = _reasons({"lexical": 2, "window": 1, "episode_vector": 3})
    turn = why(_Turn(3), reasons)
    note = why(_Turn(None), reasons)
    assert turn.short == "In a matching stretch of talk · your words · its conversation matches"
    assert note.short.endswith("its whole source matches")


class _Turn:
    def __init__(self, turn_index: int | None) -> None:
        self.turn_index = turn_index
