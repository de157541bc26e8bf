from domain.query_terms import meaningful_query


def test_function_words_are_dropped_and_content_words_kept_in_order() -> None:
    assert meaningful_query("When is the dentist?") == "dentist"
    assert meaningful_query("What did I say about Ana's birthday") == "say Ana birthday"


def test_a_query_of_only_function_words_is_kept_whole() -> None:
    assert meaningful_query("Who was it?") == "Who was it"


def test_numbers_and_unicode_words_survive() -> None:
    assert meaningful_query("the 2024 budget für München") == "2024 budget für München"


def test_empty_and_punctuation_only() -> None:
    assert meaningful_query("") == ""
    assert meaningful_query("?!") == ""
