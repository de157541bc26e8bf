"""Evidence as context: the cited words marked, left out where they are the candidate's text."""

from entrypoints.web.evidence import passage

TEXT = "Monday standup. We decided to go with SurrealDB for the ledger. Bea disagreed."


def test_a_passage_that_is_the_candidate_is_not_repeated_only_its_context_shown() -> None:
    start = TEXT.index("We decided")
    end = TEXT.index(" Bea")
    shown = passage(TEXT, start, end, "We decided to go with SurrealDB for the ledger.")
    assert shown.cited is None
    assert (shown.before, shown.after) == ("Monday standup. ", " Bea disagreed.")


def test_a_candidate_inside_a_longer_span_keeps_the_rest_of_the_span_as_context() -> None:
    shown = passage(TEXT, 0, len(TEXT), "go with SurrealDB for the ledger")
    assert shown.cited is None
    assert shown.before.endswith("We decided to ") and shown.after.startswith(". Bea")


def test_a_span_that_says_something_else_is_shown_marked() -> None:
    start = TEXT.index("Bea")
    shown = passage(TEXT, start, len(TEXT), "Bea prefers Postgres")
    assert shown.cited == "Bea disagreed." and shown.after == ""


def test_the_whole_text_and_long_context_cut_at_a_space() -> None:
    assert passage("Ship it.", 0, 8, "ship it").whole
    long = "word " * 100 + "CITED" + " more" * 100
    shown = passage(long, 500, 505, "other", width=20)
    assert shown.before.startswith("…") and shown.before.endswith("word ")
    assert shown.after.endswith("…") and shown.cited == "CITED"
    assert passage("abc", 5, 9, "x").cited == ""  # a span past the end cites nothing
