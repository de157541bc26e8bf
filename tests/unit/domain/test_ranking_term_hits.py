"""``term_hits``: the question terms' positions, as if every word had been stemmed.

The ranker reads candidates through ``term_hits`` instead of ``tokens``; its rules
see the same evidence only if, for every text and every set of terms, the positions
equal those ``tokens`` gives. Checked against ``tokens`` + ``term_positions``
(the ranker's former path) on generated texts full of the stemmer's edge cases.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.ranking.features import term_positions
from domain.ranking.text import (
    _words,
    fewer_words_than,
    read_ahead,
    term_hits,
    term_prefixes,
    tokens,
)
from domain.words import stem

#: words on every branch of ``stem``: suffixes, "ies"/"ied", doubled letters, kept "s",
#: "ed" after "e", final "e", apostrophes, short words, digits, capitals
_WORDS = [
    "plan",
    "planned",
    "planning",
    "plans",
    "party",
    "parties",
    "partied",
    "study",
    "studies",
    "studied",
    "studying",
    "bottle",
    "bottles",
    "speed",
    "need",
    "needed",
    "analysis",
    "previous",
    "glass",
    "make",
    "making",
    "makes",
    "go",
    "goes",
    "going",
    "they're",
    "don't",
    "it's",
    "y",
    "yes",
    "ye",
    "ies",
    "fly",
    "flies",
    "I",
    "Maya",
    "Maya's",
    "2023",
    "3rd",
    "a1b2",
    "hopping",
    "hoped",
    "hope",
    "hopes",
    "tried",
    "try",
    "trying",
    "filled",
    "fill",
    "fizz",
    "fizzing",
    "seeing",
    "see",
    "sees",
]
_SEPARATORS = [" ", "  ", ", ", ". ", "? ", "! ", "\n", "-", "'", " '", "' ", "(", ")"]

texts = st.lists(st.tuples(st.sampled_from(_WORDS), st.sampled_from(_SEPARATORS)), max_size=40).map(
    lambda parts: "".join(w + sep for w, sep in parts)
)
stems = st.sampled_from(_WORDS).map(lambda w: stem(w.lower()))
terms = st.sets(st.one_of(stems, st.text("aeiloprsty'", min_size=1, max_size=6)), max_size=6)


def _reference(text: str, wanted: set[str]) -> dict[str, list[int]]:
    return term_positions(wanted, tokens(text))


@given(texts, terms)
@settings(max_examples=400, deadline=None)
def test_term_hits_are_the_positions_tokens_give(text: str, wanted: set[str]) -> None:
    assert term_hits(text, wanted) == _reference(text, wanted)
    # the prefixes a caller made once for many texts read the same
    assert term_hits(text, wanted, term_prefixes(wanted)) == _reference(text, wanted)


@given(texts, terms)
@settings(max_examples=100, deadline=None)
def test_term_hits_takes_any_collection_of_terms(text: str, wanted: set[str]) -> None:
    assert term_hits(text, sorted(wanted)) == term_hits(text, frozenset(wanted))


def test_term_hits_finds_inflected_forms_at_their_token_positions() -> None:
    text = "We partied; the parties were planned. Studies? They're planning!"
    assert term_hits(text, {"party", "plan", "study", "they"}) == {
        "party": [1, 3],
        "plan": [5, 8],
        "study": [6],
        "they": [7],
    }
    assert term_hits(text, {"absent"}) == {}
    assert term_hits(text, set()) == {}


@given(texts)
@settings(max_examples=200, deadline=None)
def test_fewer_words_than_counts_tokens(text: str) -> None:
    for count in (0, 1, 6, 40):
        assert fewer_words_than(text, count) == (len(tokens(text)) < count)


def test_every_word_after_a_prefix_in_the_sorted_vocabulary_is_found() -> None:
    # "paint", "painted", "paints" sort after "aa" and "bb": each is read in turn
    assert term_hits("aa bb paint paints painted", ["paint"]) == {"paint": [2, 3, 4]}


def test_terms_come_in_the_order_the_text_first_holds_them() -> None:
    hits = term_hits("zebras then apples", ["appl", "zebra"])
    assert list(hits.items()) == [("zebra", [0]), ("appl", [2])]


def test_question_words_drop_what_follows_an_apostrophe_before_the_length_check() -> None:
    from domain.ranking.text import content_terms

    # "i'm" is "i" (one letter), "o'clock" is "o": neither is a term
    assert content_terms("I'm sure Maya's o'clock") == ["sur", "maya"]


def test_two_letter_words_are_terms() -> None:
    from domain.ranking.text import content_terms

    assert content_terms("which tv did the dj pick?") == ["tv", "dj", "pick"]


@settings(max_examples=200, deadline=None)
@given(texts, terms)
def test_reading_ahead_splits_exactly_the_texts_term_hits_splits(
    text: str, wanted: set[str]
) -> None:
    # read ahead for the terms, then ask: the text is found split, or was never split
    _words.cache_clear()
    read_ahead(wanted)(text)
    ahead = _words.cache_info().currsize
    _words.cache_clear()
    hits = term_hits(text, wanted)
    asked = _words.cache_info().currsize
    assert ahead == asked
    _words.cache_clear()
    read_ahead(wanted)(text)
    assert term_hits(text, wanted) == hits
    assert _words.cache_info().misses == ahead  # the ranker's split was the one read ahead


def test_reading_ahead_for_more_terms_covers_the_ranker_asking_for_fewer() -> None:
    # a question naming a speaker ranks without the name: a subset of the terms read for
    text = "Maya said the kayak trips were booked for May."
    _words.cache_clear()
    read_ahead({"maya", "kayak", "trip"})(text)
    term_hits(text, {"kayak", "trip"})
    assert _words.cache_info().misses == 1 and _words.cache_info().hits == 1
