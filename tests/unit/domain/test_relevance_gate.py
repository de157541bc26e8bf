"""The relevance gate: is anything in memory about the question."""

import pytest

from domain.relevance_gate import Evidence, Floors, about_the_question, words_needed

FLOORS = Floors(near=0.22, alone=0.45)


def test_two_shared_words_or_all_of_fewer_show_a_candidate_is_about_the_question() -> None:
    assert words_needed(0) == 1
    assert words_needed(1) == 1
    assert words_needed(2) == 2
    assert words_needed(7) == 2


def test_near_in_meaning_with_no_shared_word_is_not_evidence() -> None:
    # nonsense lands near the relatedness floor against chatty text: meaning alone needs more
    far, near = Evidence(similarity=0.1, words=0), Evidence(similarity=0.34, words=0)
    assert not about_the_question([far, near], 3, FLOORS)
    assert about_the_question([far, Evidence(similarity=0.45, words=0)], 3, FLOORS)


def test_one_shared_word_counts_only_on_a_candidate_near_in_meaning() -> None:
    assert not about_the_question([Evidence(similarity=0.05, words=1)], 4, FLOORS)
    assert about_the_question([Evidence(similarity=0.22, words=1)], 4, FLOORS)
    # the word and the nearness must be one candidate's
    split = [Evidence(similarity=0.05, words=1), Evidence(similarity=0.3, words=0)]
    assert not about_the_question(split, 4, FLOORS)


def test_two_shared_words_are_evidence_whatever_the_meaning() -> None:
    assert about_the_question([Evidence(similarity=0.05, words=2)], 4, FLOORS)
    # a one-word question: holding that word is enough
    assert about_the_question([Evidence(similarity=0.05, words=1)], 1, FLOORS)


def test_a_question_without_meaningful_words_is_judged_by_meaning_alone() -> None:
    assert not about_the_question([Evidence(similarity=0.3, words=3)], 0, FLOORS)
    assert about_the_question([Evidence(similarity=0.5, words=0)], 0, FLOORS)


def test_no_floors_or_no_measurement_never_gates() -> None:
    far = Evidence(similarity=0.0, words=0)
    assert about_the_question([far], 3, None)
    assert about_the_question([Evidence()], 3, FLOORS)
    assert about_the_question([Evidence(words=None, similarity=None), far], 3, FLOORS)
    # a single-signal mode measures similarity only: the words rules cannot be applied
    assert about_the_question([Evidence(similarity=0.0, words=None)], 3, FLOORS)


def test_a_candidate_found_only_by_words_is_judged_by_its_words() -> None:
    assert not about_the_question([Evidence(similarity=None, words=1)], 3, FLOORS)
    assert about_the_question([Evidence(similarity=None, words=3)], 3, FLOORS)


def test_no_candidates_is_nothing_about_the_question() -> None:
    assert not about_the_question([], 3, FLOORS)


def test_negative_word_counts_and_inverted_floors_are_refused() -> None:
    with pytest.raises(ValueError, match=r"^words cannot be negative$"):
        Evidence(words=-1)
    with pytest.raises(
        ValueError, match=r"^the floor for meaning alone cannot be under the near floor$"
    ):
        Floors(near=0.5, alone=0.2)
    assert Floors(near=0.3, alone=0.3).alone == 0.3


def test_while_vectors_are_pending_one_shared_word_on_an_unmeasured_candidate_counts() -> None:
    # "kayak colour" just after remembering "Rival's kayak is green.": found by its word only
    fresh = Evidence(similarity=None, words=1)
    assert not about_the_question([fresh], 2, FLOORS)
    assert about_the_question([fresh], 2, FLOORS, meaning_pending=True)
    # a candidate whose nearness was measured is judged by it, backlog or not
    far = Evidence(similarity=0.05, words=1)
    assert not about_the_question([far], 2, FLOORS, meaning_pending=True)
    # nonsense shares no word: a backlog does not open it
    assert not about_the_question(
        [Evidence(similarity=None, words=0)], 3, FLOORS, meaning_pending=True
    )


def test_what_a_person_is_told_counts_the_matches_held_back() -> None:
    from domain.relevance_gate import NOTHING_RELEVANT_TEXT, nothing_relevant_words

    assert nothing_relevant_words(1) == (
        f"Nothing relevant: {NOTHING_RELEVANT_TEXT} (1 weak match held back)."
    )
    assert nothing_relevant_words(3) == (
        f"Nothing relevant: {NOTHING_RELEVANT_TEXT} (3 weak matches held back)."
    )
