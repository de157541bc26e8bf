"""The search filter rule: what each part matches, and the filters that cannot be built."""

from datetime import UTC, datetime, timedelta, timezone

import pytest

from domain.models import MetadataValue
from domain.scopes import MemoryScope, SourceType
from domain.search_filters import (
    MAX_FILTER_ENTRIES,
    FilterFacts,
    ParticipantRole,
    SearchFilters,
    in_range,
    source_facets,
    speaker_facets,
)

MARCH = datetime(2024, 3, 10, tzinfo=UTC)


def _mail(metadata: dict[str, MetadataValue], **extra: object) -> FilterFacts:
    fields: dict[str, object] = {
        "scope": MemoryScope.PRIVATE,
        "scope_key": "u1",
        "source_type": SourceType.EMAIL,
        "metadata": metadata,
        "occurred_at": MARCH,
        **extra,
    }
    return FilterFacts(**fields)  # type: ignore[arg-type]


def _from(name: str) -> SearchFilters:
    return SearchFilters(participants=((ParticipantRole.FROM, name),))


@pytest.mark.parametrize(
    "name",
    [
        "alice",
        "ALICE",
        "smith",
        "Alice Smith",
        " alice   smith ",
        "alice@example.com",
        "example.com",
    ],
)
def test_a_sender_is_found_by_a_word_of_the_name_the_address_or_its_domain(name: str) -> None:
    facts = _mail({"from": ["Alice Smith <alice@example.com>"]})
    assert _from(name).matches(facts)


@pytest.mark.parametrize("name", ["al", "ali", "alice smithson", "bob", "example"])
def test_fragments_and_other_names_do_not_match(name: str) -> None:
    assert not _from(name).matches(_mail({"from": ["Alice Smith <alice@example.com>"]}))


def test_a_bare_address_and_a_quoted_name_are_both_read() -> None:
    assert _from("bob").matches(_mail({"from": "bob@corp.org"}))
    assert _from("o'neil").matches(_mail({"from": ['"Pat O\'Neil" <pat@x.org>']}))


def test_roles_are_kept_apart_and_any_means_a_header_or_the_speaker() -> None:
    facts = _mail({"from": ["Bob <bob@corp.org>"], "to": ["alice@example.com"]})
    assert not _from("alice").matches(facts)
    assert SearchFilters(participants=((ParticipantRole.TO, "alice"),)).matches(facts)
    assert SearchFilters(participants=((ParticipantRole.ANY, "alice"),)).matches(facts)
    turn = FilterFacts(
        scope=MemoryScope.PRIVATE,
        scope_key="u1",
        source_type=SourceType.CONVERSATION,
        speaker="Maya Lee",
    )
    assert SearchFilters(participants=((ParticipantRole.SPEAKER, "maya"),)).matches(turn)
    assert SearchFilters(participants=((ParticipantRole.ANY, "maya lee"),)).matches(turn)
    assert not _from("maya").matches(turn)


def test_every_part_must_hold() -> None:
    both = SearchFilters(
        participants=((ParticipantRole.FROM, "alice"), (ParticipantRole.TO, "bob"))
    )
    assert both.matches(_mail({"from": ["alice@x.org"], "to": ["bob@x.org"]}))
    assert not both.matches(_mail({"from": ["alice@x.org"], "to": ["carol@x.org"]}))


def test_source_types_are_any_of() -> None:
    mail_or_note = SearchFilters(source_types=frozenset({SourceType.EMAIL, SourceType.NOTE}))
    assert mail_or_note.matches(_mail({}))
    assert not mail_or_note.matches(_mail({}, source_type=SourceType.DOCUMENT))


@pytest.mark.parametrize(
    ("metadata", "wanted", "expected"),
    [
        ({"project": "apollo"}, ("project", "apollo"), True),
        ({"project": "apollo"}, ("project", "Apollo"), False),  # values compare exactly
        ({"labels": ["work", "budget"]}, ("labels", "budget"), True),  # a list contains it
        ({"priority": 2}, ("priority", 2.0), True),
        ({"priority": 2}, ("priority", "2"), False),
        ({"urgent": True}, ("urgent", True), True),
        ({"urgent": True}, ("urgent", 1), False),  # True is not 1
        ({"ratio": 0.5}, ("ratio", 0.5), True),
        ({"note": None}, ("note", "none"), False),
        ({}, ("project", "apollo"), False),
    ],
)
def test_metadata_equality(
    metadata: dict[str, MetadataValue], wanted: tuple[str, str | int | float | bool], expected: bool
) -> None:
    assert SearchFilters(metadata=(wanted,)).matches(_mail(metadata)) is expected


def test_import_id_is_the_imported_sources_metadata() -> None:
    assert SearchFilters(import_id="imp1").matches(_mail({"import_id": "imp1"}))
    assert not SearchFilters(import_id="imp1").matches(_mail({"import_id": "imp2"}))


def test_space_and_scope() -> None:
    facts = _mail({}, scope=MemoryScope.PROJECT, scope_key="apollo")
    assert SearchFilters(scope=MemoryScope.PROJECT).matches(facts)
    assert SearchFilters(scope=MemoryScope.PROJECT, scope_key="apollo").matches(facts)
    assert not SearchFilters(scope=MemoryScope.PROJECT, scope_key="zeus").matches(facts)
    assert not SearchFilters(scope=MemoryScope.PRIVATE).matches(facts)


def test_time_range_is_inclusive_and_unknown_times_are_outside_it() -> None:
    assert in_range(MARCH, MARCH, MARCH)
    assert not in_range(MARCH, MARCH + timedelta(microseconds=1), None)
    assert not in_range(None, None, MARCH)
    assert in_range(None, None, None)
    other_offset = MARCH.astimezone(timezone(timedelta(hours=-5)))
    window = SearchFilters(occurred_from=other_offset, occurred_to=other_offset)
    assert window.matches(_mail({}))
    assert not window.matches(_mail({}, occurred_at=None))


def test_facets_of_a_source_and_a_speaker() -> None:
    facets = source_facets(
        SourceType.EMAIL, {"from": ["A B <a@b.c>"], "labels": ["x"], "size": 3, "gone": None}
    )
    assert {"type:email", "from:a", "from:a b", "from:a@b.c", "from:b.c"} <= facets
    assert {"meta:labels=s:x", "meta:size=n:3"} <= facets
    assert not any(f.startswith("meta:gone") for f in facets)
    assert speaker_facets("Maya") == frozenset({"speaker:maya"})
    assert speaker_facets(None) == frozenset()


def test_an_empty_filter_matches_everything() -> None:
    assert SearchFilters().is_empty
    assert SearchFilters().matches(_mail({}, occurred_at=None))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"scope_key": "x"}, "needs a scope"),
        ({"scope": MemoryScope.ORGANIZATION, "scope_key": "x"}, "takes no scope_key"),
        ({"occurred_from": datetime(2024, 1, 1)}, "timezone offset"),
        (
            {"occurred_from": MARCH, "occurred_to": MARCH - timedelta(days=1)},
            "after occurred_at.to",
        ),
        ({"participants": ((ParticipantRole.FROM, " "),)}, "non-whitespace"),
        ({"import_id": "x" * 201}, "at most 200"),
        ({"metadata": (("k", float("nan")),)}, "finite"),
        ({"metadata": (("k", 1), ("k", 2))}, "twice"),
        (
            {"metadata": tuple((f"k{n}", n) for n in range(MAX_FILTER_ENTRIES + 1))},
            "at most",
        ),
    ],
)
def test_filters_that_cannot_be_built(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SearchFilters(**fields)  # type: ignore[arg-type]
