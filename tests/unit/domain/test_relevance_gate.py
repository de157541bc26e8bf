"""The context pack's gate: is anything in memory about the question (issue 14, finding 5)."""

import pytest

from domain.relevance_gate import Evidence, about_the_question, words_needed


def test_two_shared_words_or_all_of_fewer_show_a_candidate_is_about_the_question() -> None:
    assert words_needed(0) == 1
    assert words_needed(1) == 1
    assert words_needed(2) == 2
    assert words_needed(7) == 2


def test_a_near_candidate_is_evidence() -> None:
    far, near = Evidence(similarity=0.1, words=0), Evidence(similarity=0.3, words=0)
    assert not about_the_question([far], 3, floor=0.22)
    assert about_the_question([far, near], 3, floor=0.22)
    assert about_the_question([Evidence(similarity=0.22, words=0)], 3, floor=0.22)


def test_one_common_word_is_not_evidence_but_two_are() -> None:
    one = Evidence(similarity=0.05, words=1)
    assert not about_the_question([one], 4, floor=0.22)
    assert about_the_question([Evidence(similarity=0.05, words=2)], 4, floor=0.22)
    # a one-word question: holding that word is enough
    assert about_the_question([one], 1, floor=0.22)


def test_no_floor_or_no_measurement_never_gates() -> None:
    far = Evidence(similarity=0.0, words=0)
    assert about_the_question([far], 3, floor=None)
    assert about_the_question([Evidence()], 3, floor=0.22)
    assert about_the_question([Evidence(words=None, similarity=None), far], 3, floor=0.22)


def test_a_candidate_found_only_by_words_is_judged_by_its_words() -> None:
    assert not about_the_question([Evidence(similarity=None, words=1)], 3, floor=0.22)
    assert about_the_question([Evidence(similarity=None, words=3)], 3, floor=0.22)


def test_no_candidates_is_nothing_about_the_question() -> None:
    assert not about_the_question([], 3, floor=0.22)


def test_negative_word_counts_are_refused() -> None:
    with pytest.raises(ValueError):
        Evidence(words=-1)
