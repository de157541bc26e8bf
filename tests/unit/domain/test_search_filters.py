"""The search filter rule: what each part matches, and the filters that cannot be built."""

import math
import re
from datetime import UTC, datetime, timedelta, timezone

import pytest

from domain.models import MetadataValue
from domain.scopes import MemoryScope, SourceType
from domain.search_filters import (
    MAX_FILTER_ENTRIES,
    MAX_FILTER_VALUE_CHARS,
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


def test_the_forms_of_a_recorded_participant_are_exactly_its_words_name_and_address() -> None:
    facets = source_facets(SourceType.EMAIL, {"from": ['"Pat Lee" <pat@x.org>']})
    assert {f for f in facets if f.startswith("from:")} == (
        {
            'from:"pat lee" <pat@x.org>',
            "from:pat lee",
            "from:pat",
            "from:lee",
            "from:pat@x.org",
            "from:x.org",
        }
    )
    # the address is the last bracket; a bare address has no name
    assert speaker_facets("A <b> <c@d.e>") == frozenset(
        {
            "speaker:a <b> <c@d.e>",
            "speaker:a <b>",
            "speaker:a",
            "speaker:b",
            "speaker:c@d.e",
            "speaker:c",
            "speaker:d.e",
        }
    )
    assert speaker_facets("bob@corp.org") == frozenset(
        {"speaker:bob@corp.org", "speaker:bob", "speaker:corp.org"}
    )
    # an "@" inside a name with spaces is not an address; nor is a lone "<" or ">"
    assert speaker_facets("Bo @ Home") == frozenset(
        {"speaker:bo @ home", "speaker:bo", "speaker:home"}
    )
    assert speaker_facets("<bob") == frozenset({"speaker:<bob", "speaker:bob"})
    assert speaker_facets("x@a@b.c") == frozenset({"speaker:x@a@b.c", "speaker:x", "speaker:a@b.c"})
    assert "speaker:xu" in speaker_facets("XU <xu@li.cn>")  # only quotes are trimmed
    blank = source_facets(SourceType.EMAIL, {"from": "   "})
    assert not any(f.startswith("from:") for f in blank)


def test_metadata_facets_spell_each_value_once() -> None:
    facets = source_facets(
        SourceType.NOTE, {"yes": True, "no": False, "half": 1.5, "whole": 2.0, "inf": math.inf}
    )
    assert facets == frozenset(
        {
            "type:note",
            "meta:yes=b:true",
            "meta:no=b:false",
            "meta:half=n:1.5",
            "meta:whole=n:2",
        }
    )


def test_one_sided_time_ranges() -> None:
    assert SearchFilters(occurred_from=MARCH).matches(_mail({}))
    assert not SearchFilters(occurred_from=MARCH + timedelta(days=1)).matches(_mail({}))
    assert SearchFilters(occurred_to=MARCH).matches(_mail({}))
    assert not SearchFilters(occurred_to=MARCH - timedelta(days=1)).matches(_mail({}))
    assert in_range(MARCH, MARCH, None) and in_range(MARCH, None, MARCH)
    assert not in_range(MARCH, None, MARCH - timedelta(microseconds=1))


def test_limits_are_inclusive() -> None:
    entries = tuple((f"k{n}", n) for n in range(MAX_FILTER_ENTRIES))
    assert len(SearchFilters(metadata=entries).metadata) == MAX_FILTER_ENTRIES
    assert SearchFilters(import_id="x" * MAX_FILTER_VALUE_CHARS).import_id is not None


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"scope_key": "x"}, "scope_key needs a scope"),
        (
            {"occurred_from": datetime(2024, 1, 1)},
            "occurred_at.from must include a timezone offset",
        ),
        (
            {"occurred_from": MARCH, "occurred_to": datetime(2024, 1, 1)},
            "occurred_at.to must include a timezone offset",
        ),
        (
            {"occurred_from": MARCH, "occurred_to": MARCH - timedelta(days=1)},
            "occurred_at.from is after occurred_at.to",
        ),
        ({"import_id": " "}, "filter values must contain non-whitespace text"),
        (
            {"scope": MemoryScope.PROJECT, "scope_key": " "},
            "filter values must contain non-whitespace text",
        ),
        ({"metadata": (("k", 1), ("k", 2))}, "a metadata key is given twice"),
        (
            {
                "participants": tuple(
                    (ParticipantRole.FROM, f"p{n}") for n in range(MAX_FILTER_ENTRIES + 1)
                )
            },
            f"at most {MAX_FILTER_ENTRIES} participants",
        ),
        (
            {"metadata": tuple((f"k{n}", n) for n in range(MAX_FILTER_ENTRIES + 1))},
            f"at most {MAX_FILTER_ENTRIES} metadata entries",
        ),
    ],
)
def test_filter_errors_say_exactly_what_is_wrong(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        SearchFilters(**fields)  # type: ignore[arg-type]
