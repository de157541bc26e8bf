"""Each ranker rule on a made-up memory, so the rule is checked as a general question shape."""

from datetime import UTC, date, datetime

from domain.fusion import fuse_with_episodes
from domain.ranking.dates import DateWindow, date_window
from domain.ranking.features import (
    best_segment,
    coverage,
    idf_weights,
    phrase_adjacency,
    term_positions,
)
from domain.ranking.question import profile_question, subject_phrase
from domain.ranking.ranker import Candidate, RankWeights, rank_candidates
from domain.ranking.text import content_terms, tokens
from domain.words import stem

WEDNESDAY = datetime(2031, 7, 16, 18, 0, tzinfo=UTC)


def _ids(ranked: list) -> list[str]:  # type: ignore[type-arg]
    return [r.item_id for r in ranked]


# -- words -------------------------------------------------------------------


def test_tokens_are_the_stemmed_words_in_order() -> None:
    assert tokens("Paddled the kayaks!") == ("paddl", "the", "kayak")


def test_question_terms_drop_function_words() -> None:
    assert content_terms("Where did I leave the spare kayak paddles?") == [
        "leav",
        "spar",
        "kayak",
        "paddl",
    ]


# -- dates -------------------------------------------------------------------


def test_last_weekday_points_at_that_day() -> None:
    window = date_window("What did I bake last Sunday?", WEDNESDAY)
    assert window is not None and window.start <= date(2031, 7, 13) <= window.end


def test_weeks_ago_points_near_that_many_weeks_back() -> None:
    window = date_window("Who did I meet three weeks ago?", WEDNESDAY)
    assert window is not None and window.distance_days(date(2031, 6, 25)) == 0
    assert window.distance_days(date(2031, 5, 1)) > 30


def test_named_day_is_the_latest_one_not_after_the_question() -> None:
    window = date_window("what happened on 2nd of September?", WEDNESDAY)
    assert window is not None and window.start.year == 2030


def test_named_month_covers_the_month() -> None:
    window = date_window("Which plays did I see in April?", WEDNESDAY)
    assert window == DateWindow(start=date(2031, 4, 1), end=date(2031, 4, 30), confidence=0.6)


def test_no_date_phrase_no_window() -> None:
    assert date_window("Which plays do I like?", WEDNESDAY) is None
    assert date_window("Who did I meet two weeks ago?", None) is None


# -- question shapes ---------------------------------------------------------


def test_counting_and_ordering_shapes() -> None:
    counting = profile_question("How many pottery classes have I taken in total?")
    assert counting.counting and counting.multi_episode and not counting.ordering
    ordering = profile_question("Which did I finish first, the quilt or the birdhouse?")
    assert ordering.ordering and ordering.parts == [["quilt"], [stem("birdhouse")]]


def test_asking_what_the_assistant_said_is_past_tense() -> None:
    said = profile_question("Which hiking boots did you recommend to me last time?")
    assert said.asks_assistant and not said.preference
    advice = profile_question("Can you suggest a board game I would enjoy?")
    assert advice.preference and not advice.asks_assistant and advice.personal


# -- features ----------------------------------------------------------------


def test_rare_words_weigh_more_in_coverage() -> None:
    docs = [frozenset({"go", "harp"}), frozenset({"go", "market"}), frozenset({"go"})]
    idf = idf_weights(["go", "harp"], docs)
    assert idf["harp"] > idf["go"]
    assert coverage(["go", "harp"], {"harp"}, idf) > coverage(["go", "harp"], {"go"}, idf)


def test_phrase_adjacency_needs_the_words_close_and_in_order() -> None:
    pairs = [("sourdough", "starter")]
    words = ["sourdough", "starter"]
    near = term_positions(words, tokens("my sourdough starter is bubbly"))
    assert phrase_adjacency(pairs, near) == 1.0
    reversed_order = term_positions(words, tokens("a starter for the sourdough"))
    assert phrase_adjacency(pairs, reversed_order) == 0.0


def test_best_segment_rewards_words_found_together() -> None:
    idf = {"violin": 1.0, "teacher": 1.0}
    together = tokens("my violin teacher moved")
    apart = tokens("violin " + "filler " * 40 + "teacher")
    terms = ["violin", "teacher"]
    assert best_segment(terms, term_positions(terms, together), idf) == 1.0
    assert best_segment(terms, term_positions(terms, apart), idf) == 0.5


# -- ranker rules ------------------------------------------------------------


def _cand(
    item: str, text: str, fused: float, episode: str | None = None, **kw: object
) -> Candidate:
    return Candidate(item_id=item, episode_id=episode or f"e-{item}", text=text, fused=fused, **kw)  # type: ignore[arg-type]


def test_coverage_lifts_the_turn_that_holds_the_rare_words() -> None:
    profile = profile_question("Where did I store the camping lantern?")
    ranked = rank_candidates(
        profile,
        [
            _cand("a", "I went camping with friends, it was great", 0.033),
            _cand("b", "The camping lantern is stored in the garage loft", 0.030),
            _cand("c", "Lunch was good", 0.020),
        ],
        weights=RankWeights(window=0),
    )
    assert _ids(ranked)[0] == "b"


def test_speaker_rule_prefers_the_assistant_for_what_you_said() -> None:
    profile = profile_question("What marinade did you suggest for the tofu?")
    text = "tofu marinade with soy and ginger"
    ranked = rank_candidates(
        profile,
        [
            _cand("user", text, 0.03, role="user"),
            _cand("assistant", text, 0.03, role="assistant"),
        ],
        weights=RankWeights(window=0),
    )
    assert _ids(ranked)[0] == "assistant"
    assert any("assistant" in r for r in ranked[0].reasons)


def test_speaker_rule_prefers_the_person_for_their_own_facts() -> None:
    profile = profile_question("What colour is my bicycle?")
    text = "the bicycle colour is teal"
    ranked = rank_candidates(
        profile,
        [
            _cand("assistant", text, 0.03, role="assistant"),
            _cand("user", text, 0.03, role="user"),
        ],
        weights=RankWeights(window=0),
    )
    assert _ids(ranked)[0] == "user"


def test_date_rule_prefers_the_episode_inside_the_named_window() -> None:
    profile = profile_question("What did I cook last Sunday?")
    window = date_window("What did I cook last Sunday?", WEDNESDAY)
    ranked = rank_candidates(
        profile,
        [
            _cand("old", "I cooked a stew", 0.03, episode_date=date(2031, 5, 4)),
            _cand("sunday", "I cooked a stew", 0.03, episode_date=date(2031, 7, 13)),
        ],
        window,
        RankWeights(window=0),
    )
    assert _ids(ranked)[0] == "sunday"


def test_ordering_question_lifts_each_alternative_on_its_own() -> None:
    profile = profile_question("Which did I repair first, the fence or the mailbox?")
    ranked = rank_candidates(
        profile,
        [
            _cand("noise", "repair work is tiring", 0.034),
            _cand("fence", "the fence was fixed", 0.030),
            _cand("mailbox", "the mailbox got a new hinge", 0.029),
        ],
        weights=RankWeights(window=0),
    )
    assert set(_ids(ranked)[:2]) == {"fence", "mailbox"}


def test_episode_coverage_joins_words_spread_over_turns() -> None:
    profile = profile_question("What breed is the puppy my neighbour adopted?")
    ranked = rank_candidates(
        profile,
        [
            _cand("lone", "a puppy video", 0.031, episode="e1"),
            _cand("t1", "my neighbour adopted a puppy", 0.030, episode="e2"),
            _cand("t2", "it is a beagle breed", 0.029, episode="e2"),
        ],
        weights=RankWeights(window=0),
    )
    assert _ids(ranked)[0] == "t1"


def test_stabiliser_keeps_the_fused_top_window_without_a_clear_margin() -> None:
    profile = profile_question("quilt pattern")
    cands = [_cand("top", "quilt", 0.05), _cand("outsider", "quilt pattern", 0.049)]
    timid = rank_candidates(profile, cands, weights=RankWeights(window=1, margin=10.0))
    assert _ids(timid) == ["top", "outsider"]
    bold = rank_candidates(profile, cands, weights=RankWeights(window=1, margin=0.0))
    assert _ids(bold) == ["outsider", "top"]
    assert any("clear margin" in r for r in bold[0].reasons)


def test_no_candidates_no_ranking() -> None:
    assert rank_candidates(profile_question("anything"), []) == []


# -- fusion with episodes ----------------------------------------------------


def test_items_take_their_episode_votes_and_expansion_items_are_scored() -> None:
    hits = fuse_with_episodes(
        {"lexical": ["a1", "b1"]},
        {"episode_lexical": ["B", "A"]},
        {"a1": "A", "b1": "B", "b2": "B"},
    )
    by_id = {h.item_id: h for h in hits}
    assert by_id["b2"].ranks == {"episode_lexical": 1}
    assert by_id["b1"].ranks == {"episode_lexical": 1, "lexical": 2}
    assert by_id["a1"].score == by_id["b1"].score  # 1/61 + 1/62 both
    assert [h.item_id for h in hits][-1] == "b2"


def test_spread_puts_each_episodes_best_turns_before_third_turns() -> None:
    from domain.ranking.spread import spread_over_episodes

    ranked = ["a1", "a2", "a3", "a4", "b1", "c1", "b2", "b3"]
    spread = spread_over_episodes(ranked, lambda item: item[0], per_episode=2)
    assert spread == ["a1", "a2", "b1", "c1", "b2", "a3", "a4", "b3"]
    assert spread_over_episodes([], lambda item: item) == []


def test_last_n_units_covers_the_span_up_to_the_question() -> None:
    window = date_window("Which concerts did I go to in the last 2 months?", WEDNESDAY)
    assert window is not None and window.end == WEDNESDAY.date()
    assert window.distance_days(date(2031, 5, 20)) == 0 and window.distance_days(date(2031, 4, 1))


def test_conversation_framing_is_not_the_subject() -> None:
    profile = profile_question("In our previous chat you suggested a lasagne recipe; what cheese?")
    assert profile.asks_assistant
    assert profile.terms == [stem("lasagne"), stem("recipe"), stem("cheese")]


def test_advice_requests_lean_on_fusion_more_than_on_shared_words() -> None:
    profile = profile_question("Can you suggest a hobby for my evenings?")
    assert profile.preference
    cands = [
        _cand("wordy", "evening hobby ideas list", 0.030, role="assistant"),
        _cand("about-me", "I love woodworking after dinner", 0.034, role="user"),
    ]
    plain = rank_candidates(profile, cands, weights=RankWeights(window=0, advice_words=1.0))
    advice = rank_candidates(profile, cands, weights=RankWeights(window=0))

    def gap(ranked: list) -> float:  # type: ignore[type-arg]
        score = {r.item_id: r.score for r in ranked}
        return float(score["wordy"] - score["about-me"])

    assert gap(advice) < gap(plain)


def test_the_subject_of_a_question_keeps_its_words_as_written_without_the_frame() -> None:
    assert subject_phrase("How many pottery classes did I take last spring?") == (
        "pottery classes take spring"
    )
    assert subject_phrase("What is the total number of cousins I have?") == "cousins"
    assert subject_phrase("How many kites, kites and more kites?") == "kites"
    assert subject_phrase("How many did I?") == ""
