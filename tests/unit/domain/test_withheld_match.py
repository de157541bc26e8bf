"""The pure matcher behind the withheld-redaction count."""

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.withheld_match import (
    REDACTED_MARK,
    mentions,
    query_terms,
    remainder_terms,
    stand_in,
    without_marks,
)

#: words whose folds collide or nearly do ("ies" -> "y", "ss", a final "e")
_SUFFIXED = (
    "policies", "policy", "classes", "class", "deploys", "deploying", "stored", "store",
    "databases", "database", "redacted", "keys", "key", "bus", "is", "yes",
)


def test_query_terms_drop_function_words() -> None:
    assert query_terms("What is the billing database?") == {"bill", "databas"}
    assert query_terms("what is it") == frozenset()  # nothing meaningful: nothing matches
    assert query_terms("") == frozenset()


def test_mentions_needs_a_shared_meaningful_word() -> None:
    terms = query_terms("which deploy keys exist")
    assert mentions("prod deploy key is [redacted]", terms)
    assert not mentions("the dentist appointment", terms)
    assert not mentions("anything at all", frozenset())


def test_remainder_terms_fold_every_word_and_leave_the_mark_out() -> None:
    assert remainder_terms("Prod deploy keys: [redacted] policies") == {
        "prod",
        "deploy",
        "key",
        "policy",
    }
    assert remainder_terms(REDACTED_MARK) == frozenset()  # the mark is no word
    assert remainder_terms("") == frozenset()


def test_a_summary_stands_in_for_a_span_inside_the_mark() -> None:
    assert stand_in(None) == stand_in("") == REDACTED_MARK
    assert stand_in("a wifi password") == "[redacted: a wifi password]"
    remainder = f"guest network key: {stand_in('a wifi password')} (ask Ola)"
    # the summary's words count, the mark's word does not
    words = {"guest", "network", "key", "a", "wifi", "password", "ask", "ola"}
    assert remainder_terms(remainder) == words
    assert "redact" not in remainder_terms(remainder)
    assert without_marks("[redacted] and [redacted: x]").split() == ["and", "x]"]


_WORDISH = st.text(
    alphabet=st.sampled_from(list("abcdeilnorsty AEIS019_-.,'[]\u00e9\u00df")), max_size=40
)


@settings(max_examples=500, deadline=None)
@given(
    remainder=st.lists(
        st.one_of(
            _WORDISH, st.sampled_from([REDACTED_MARK, "[redacted: "]), st.sampled_from(_SUFFIXED)
        ),
        max_size=6,
    ).map("".join),
    query=st.lists(st.one_of(_WORDISH, st.sampled_from(_SUFFIXED)), max_size=4).map(" ".join),
)
def test_a_stored_term_set_matches_exactly_when_mentions_does(remainder: str, query: str) -> None:
    """The stored set (computed once at redaction) decides as ``mentions`` on the text."""
    terms = query_terms(query)
    by_text = mentions(without_marks(remainder), terms)
    assert by_text == (not remainder_terms(remainder).isdisjoint(terms))
