"""An import's skipped records in words, as the workspace and the CLI both list them."""

from application.imports.records import SkipReason
from entrypoints.import_words import record_words, skip_words


def test_a_skipped_record_is_named_where_a_person_finds_it() -> None:
    assert record_words("mbox", "mail.mbox#4") == "message 4 of mail.mbox"
    assert record_words("jsonl", "chats.jsonl:9") == "line 9 of chats.jsonl"
    assert record_words("markdown", "notes/a.md") == "notes/a.md"
    assert record_words("mbox", "odd") == "odd"  # a name not of the format's shape stays


def test_every_skip_reason_has_words_and_an_unknown_one_reads_as_its_words() -> None:
    for reason in SkipReason:
        said = skip_words(reason)
        assert said and "_" not in said and said != reason.value
    assert skip_words("malformed") == "not readable"
    assert skip_words("too_old") == "too old"
