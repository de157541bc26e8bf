"""The ``filters`` object as surfaces send it, read into the domain's SearchFilters."""

from datetime import UTC, datetime, timedelta, timezone

import msgspec
import pytest

from application.memory.filters import FiltersSpec, parse_filters, parse_moment
from domain.errors import InvalidInputError
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope, SourceType
from domain.search_filters import ParticipantRole


def _spec(raw: str) -> FiltersSpec:
    return msgspec.json.decode(raw, type=FiltersSpec)


def test_every_part_is_read() -> None:
    filters = parse_filters(
        _spec(
            '{"scope": "project", "scope_key": "apollo", "source_type": ["email", "note"],'
            ' "import_id": "imp1", "participants": {"from": "alice", "any": "bob"},'
            ' "occurred_at": {"from": "2024-03-01", "to": "2024-03-31T18:00:00+02:00"},'
            ' "metadata": {"labels": "work", "priority": 2, "urgent": true}}'
        )
    )
    assert filters is not None
    assert (filters.scope, filters.scope_key) == (MemoryScope.PROJECT, "apollo")
    assert filters.source_types == {SourceType.EMAIL, SourceType.NOTE}
    assert filters.import_id == "imp1"
    assert set(filters.participants) == {
        (ParticipantRole.FROM, "alice"),
        (ParticipantRole.ANY, "bob"),
    }
    assert filters.occurred_from == datetime(2024, 3, 1, tzinfo=UTC)
    assert filters.occurred_to == datetime(2024, 3, 31, 18, tzinfo=timezone(timedelta(hours=2)))
    assert dict(filters.metadata) == {"labels": "work", "priority": 2, "urgent": True}


def test_a_date_alone_is_its_whole_day() -> None:
    assert parse_moment("2024-03-31", "to", end=True) == datetime(
        2024, 3, 31, 23, 59, 59, 999999, tzinfo=UTC
    )
    assert parse_moment("2024-03-31", "from", end=False) == datetime(2024, 3, 31, tzinfo=UTC)


def test_nothing_to_narrow_is_no_filter() -> None:
    assert parse_filters(None) is None
    assert parse_filters(_spec("{}")) is None
    assert parse_filters(_spec('{"participants": {}, "metadata": {}}')) is None


def test_unknown_keys_are_refused_by_the_decoder() -> None:
    with pytest.raises(msgspec.ValidationError, match="unknown field"):
        _spec('{"from": "alice"}')
    with pytest.raises(msgspec.ValidationError, match="unknown field"):
        _spec('{"occurred_at": {"after": "2024-01-01"}}')


@pytest.mark.parametrize(
    "raw",
    [
        '{"occurred_at": {"from": "yesterday"}}',
        '{"occurred_at": {"from": "2024-13-01"}}',
        '{"occurred_at": {"to": "2024-03-01T10:00:00"}}',
        '{"occurred_at": {"from": "2024-03-02", "to": "2024-03-01"}}',
        '{"source_type": []}',
        '{"scope_key": "x"}',
        '{"participants": {"from": "  "}}',
        '{"metadata": {"' + "k" * 201 + '": 1}}',
    ],
)
def test_broken_rules_are_invalid_filter(raw: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        parse_filters(_spec(raw))
    assert caught.value.reason is ReasonCode.INVALID_FILTER
