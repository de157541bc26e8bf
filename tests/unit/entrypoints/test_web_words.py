"""The workspace's words: sizes, import formats, spaces, metadata and reasons."""

import pytest

from domain.errors import InvalidInputError
from domain.scopes import MemoryScope
from entrypoints.web.words import (
    denial_words,
    duration_words,
    metadata_facts,
    parse_space,
    reason_words,
    size_words,
)


def test_sizes_in_binary_units() -> None:
    assert size_words(256 * 1024 * 1024) == "256 MiB"
    assert size_words(300_000) == "293 KiB"
    assert size_words(512) == "512 bytes"
    assert size_words(3 * 1024**3) == "3 GiB"


def test_a_space_is_written_either_way() -> None:
    assert parse_space("project:apollo") == (MemoryScope.PROJECT, "apollo")
    assert parse_space("project/apollo") == (MemoryScope.PROJECT, "apollo")
    assert parse_space("project") == (MemoryScope.PROJECT, None)
    assert parse_space("") == (None, None)
    with pytest.raises(InvalidInputError):
        parse_space("planet/mars")


def test_metadata_in_words_with_ids_apart() -> None:
    facts, ids = metadata_facts(
        {
            "title": "Re: launch",
            "from": ["Mikhail Gusarov <m@example.org>"],
            "labels": ["inbox", "work"],
            "message_id": "<abc@x>",
            "import_id": "imp1",
            "empty": [],
        }
    )
    assert facts == [("From", "Mikhail Gusarov <m@example.org>"), ("Labels", "inbox, work")]
    assert ids == [("message id", "<abc@x>"), ("import id", "imp1")]
    assert not any("[" in words for _, words in facts)


def test_reasons_in_words() -> None:
    assert reason_words("source_deleted").startswith("it was deleted for good")
    assert reason_words("some_new_code") == "some new code"
    assert reason_words(None) == ""


def test_durations_in_words() -> None:
    assert [duration_words(s) for s in (None, 0.4, 1, 12.5, 60, 150, 7200, 86400 * 3)] == [
        "unknown", "none", "1 second", "12 seconds", "1 minute", "2 minutes", "2 hours", "3 days"
    ]  # fmt: skip


def test_denials_are_clauses_about_the_person() -> None:
    assert denial_words("unverified_membership", "bea") == "bea is not a member of this space"
    assert denial_words("sensitive_source", "bea").startswith("they are marked sensitive")
    assert (
        denial_words("insufficient_role", "bea")
        == "bea's role in this space does not let them read it"
    )
    assert denial_words("some_new_code", "bea") == "some new code"
    assert denial_words(None, "bea") == "no reason was given"
