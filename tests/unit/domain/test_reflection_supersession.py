"""What a statement says it replaces: the cues, the name match, and the candidate rules."""

import pytest

from adapters.text.sentences import SentencexSegmenter
from domain.reflection.candidates import (
    CandidateType,
    Extracted,
    Span,
    auto_accept_problem,
)
from domain.reflection.rules import extract_by_rules
from domain.reflection.supersession import names_replaced, replaced_phrase
from tests.unit.domain.test_reflection_candidates import candidate

_SPLIT = SentencexSegmenter().sentences


def _rules(source_id: str, text: str) -> list[Extracted]:
    return extract_by_rules(source_id, text, _SPLIT)


@pytest.mark.parametrize(
    ("sentence", "phrase"),
    [
        ("We use Postgres instead of SurrealDB.", "SurrealDB"),
        ("We decided to go with Postgres instead of SurrealDB for storage.", "SurrealDB"),
        ("We no longer use Redis.", "Redis"),
        ("We switched from weekly releases to daily ones.", "weekly releases"),
        ("Replace the cron job with a queue.", "the cron job"),
        ("We moved from Berlin to Dublin last month.", "Berlin"),
        # no older thing named, or not a name
        ("We changed to Postgres.", None),
        ("Instead of that, let's wait.", None),
        ("We decided to go with SurrealDB.", None),
        ("Use it instead of the very long and winding thing we had built before now.", None),
    ],
)
def test_replaced_phrase(sentence: str, phrase: str | None) -> None:
    assert replaced_phrase(sentence) == phrase


def test_names_replaced_needs_every_meaningful_word() -> None:
    assert names_replaced("SurrealDB", "We decided to go with SurrealDB for storage.")
    assert names_replaced("the cron job", "Run the nightly cron job.")
    assert not names_replaced("weekly releases", "We release weekly.")  # "release" != "releases"
    assert not names_replaced("Redis", "We use Postgres.")
    assert not names_replaced("the", "the")  # nothing meaningful to match


def test_rules_mark_what_a_statement_replaces() -> None:
    text = "We decided to go with Postgres instead of SurrealDB. We no longer use Redis."
    found = _rules("s1", text)
    decisions = [f for f in found if f.type is CandidateType.DECISION]
    assert [(d.text, d.replaces) for d in decisions] == [
        ("We decided to go with Postgres instead of SurrealDB.", "SurrealDB"),
        ("We no longer use Redis.", "Redis"),  # a cue alone makes it a decision
    ]
    liking = _rules("s1", "I no longer like coffee.")
    assert [(f.type, f.replaces) for f in liking] == [(CandidateType.PREFERENCE, "coffee")]


def test_replacing_candidates_wait_for_a_person() -> None:
    span = Span(source_id="s1", start=0, end=5)
    with pytest.raises(ValueError):
        Extracted(type=CandidateType.DECISION, text="x", spans=(span,), confidence=1, replaces=" ")
    plain = candidate()
    assert auto_accept_problem(plain, frozenset({plain.extractor})) is None
    for change in ({"replaces": "SurrealDB"}, {"supersedes": ("e1",)}):
        replacing = candidate(**change)
        assert auto_accept_problem(replacing, frozenset({plain.extractor})) == (
            "replaces accepted memory"
        )
