"""The pure matcher behind the withheld-redaction count."""

from domain.withheld_match import fold, mentions, query_terms


def test_fold_takes_one_common_suffix_off_and_keeps_short_words() -> None:
    assert fold("Databases") == fold("database") == "databas"
    assert fold("classes") == fold("class") == "class"
    assert fold("stored") == fold("store") == fold("storing") == "stor"
    assert fold("deploys") == fold("deploy") == "deploy"
    assert fold("policies") == "policy"
    assert fold("deploying") == fold("deployed") == "deploy"
    assert fold("is") == "is" and fold("bus") == "bus"


def test_query_terms_drop_function_words() -> None:
    assert query_terms("What is the billing database?") == {"bill", "databas"}
    assert query_terms("what is it") == frozenset()  # nothing meaningful: nothing matches
    assert query_terms("") == frozenset()


def test_mentions_needs_a_shared_meaningful_word() -> None:
    terms = query_terms("which deploy keys exist")
    assert mentions("prod deploy key is [redacted]", terms)
    assert not mentions("the dentist appointment", terms)
    assert not mentions("anything at all", frozenset())
