from domain.query_terms import meaningful_query
from domain.query_words import QueryWords, query_words
from domain.ranking.text import content_terms
from domain.withheld_match import mentions, query_terms


def test_the_question_is_read_into_the_words_each_stage_compares() -> None:
    read = query_words("When did Maya adopt the cats from the shelter?")
    assert read.text == "When did Maya adopt the cats from the shelter?"
    assert read.meaningful == "Maya adopt cats shelter"
    # stemmed as the ranker stems; folded as the redactions' stored words are
    assert read.terms == frozenset({"maya", "adopt", "cat", "shelter"})
    assert read.folded == frozenset({"maya", "adopt", "cat", "shelter"})


def test_the_read_words_are_those_each_stage_read_on_its_own() -> None:
    for question in ("What are Kate's hobbies?", "deploys of v2 keys", "Who was it?", "", "?!"):
        read = query_words(question)
        assert read.terms == frozenset(content_terms(meaningful_query(question)))
        assert read.folded == query_terms(question)


def test_stemming_and_folding_differ_where_their_rules_do() -> None:
    read = query_words("studies of the planning")
    assert read.terms == frozenset({"study", "plan"})
    assert read.folded == frozenset({"study", "plann"})
    assert mentions("a study of it", read.folded)


def test_a_question_already_read_is_not_read_again() -> None:
    read = query_words("the harbour ferry")
    assert query_words(read) is read
    assert isinstance(read, QueryWords)


def test_a_question_of_function_words_only_keeps_them() -> None:
    read = query_words("Who was it?")
    assert read.meaningful == "Who was it"
    assert read.terms == frozenset()
    assert read.folded == frozenset()
