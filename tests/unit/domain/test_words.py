"""The word splits and suffix rules every stage that compares words shares."""

from domain.words import (
    class_tokens,
    fold,
    iter_ranker_words,
    name_words,
    ranker_words,
    stem,
    word_tokens,
)


def test_word_tokens_keep_any_script_and_digits_whole() -> None:
    assert word_tokens("Zoë's utf8 café_bar, 2024!") == ["Zoë", "s", "utf8", "café", "bar", "2024"]


def test_class_tokens_split_letters_from_digits() -> None:
    assert class_tokens("v2 utf8 Zoë_x 10km") == ["v", "2", "utf", "8", "Zoë", "x", "10", "km"]


def test_ranker_words_are_lowercase_ascii_with_an_apostrophes_tail() -> None:
    assert ranker_words("Ana's café, Zoë's 2 kayaks") == ["ana's", "caf", "zo", "s", "2", "kayaks"]
    assert list(iter_ranker_words("Ana's café")) == ranker_words("Ana's café")


def test_name_words_keep_an_apostrophe_or_hyphen_inside_a_part() -> None:
    assert name_words("Jean-Luc O'Neill, Zoë") == ["Jean-Luc", "O'Neill", "Zoë"]


def test_light_stemmer_meets_plural_and_past_forms() -> None:
    assert stem("kayaks") == stem("kayak")
    assert stem("painted") == stem("paint")
    assert stem("berries") == "berry"
    assert stem("planned") == "plan"
    assert stem("making") == stem("make")
    assert stem("previous") == "previous" and stem("speed") == "speed"


def test_fold_takes_one_common_suffix_off_and_keeps_short_words() -> None:
    assert fold("Databases") == fold("database") == "databas"
    assert fold("classes") == fold("class") == "class"
    assert fold("stored") == fold("store") == fold("storing") == "stor"
    assert fold("deploys") == fold("deploy") == "deploy"
    assert fold("policies") == "policy"
    assert fold("deploying") == fold("deployed") == "deploy"
    assert fold("is") == "is" and fold("bus") == "bus"


def test_a_final_e_goes_only_from_words_longer_than_three_letters() -> None:
    assert fold("cake") == "cak"
    assert fold("ace") == "ace"
