"""Import records: invariants, the flat metadata ``remember`` stores, dedupe keys."""

from datetime import UTC, datetime

import pytest

from application.imports.mapping import remember_request
from application.imports.records import (
    AttachmentInfo,
    ImportRecord,
    ImportTurn,
    Participants,
    SkippedRecord,
    SkipReason,
    ThreadIds,
    content_key,
    message_id_key,
)
from application.memory.limits import MAX_METADATA_KEYS
from domain.scopes import MemoryScope, SourceType

AT = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


def _record(**changes: object) -> ImportRecord:
    fields: dict[str, object] = {
        "record_id": "r1",
        "dedupe_key": "mid:a@b",
        "checkpoint": "mbox:0",
        "source_type": SourceType.EMAIL,
        "source_uri": "mbox:x#0",
        "content": "hello",
    }
    fields.update(changes)
    return ImportRecord(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "changes",
    [
        {"record_id": ""},
        {"dedupe_key": ""},
        {"checkpoint": ""},
        {"content": "  "},
        {"content": "x", "turns": [ImportTurn(role="user", content="hi")]},
        {"content": "", "turns": []},
        {"occurred_at": datetime(2024, 3, 1)},  # naive: refused
    ],
)
def test_an_invalid_record_cannot_be_built(changes: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        _record(**changes)


def test_turns_and_attachments_check_themselves() -> None:
    with pytest.raises(ValueError):
        ImportTurn(role="tool", content="x")
    with pytest.raises(ValueError):
        ImportTurn(role="user", content=" ")
    with pytest.raises(ValueError):
        AttachmentInfo(filename=None, media_type="a/b", size=-1, sha256="0" * 64)
    with pytest.raises(ValueError):
        AttachmentInfo(filename=None, media_type="a/b", size=1, sha256="0")
    with pytest.raises(ValueError):
        SkippedRecord(record_id="", checkpoint="c", reason=SkipReason.EMPTY, detail="d")


def test_metadata_flattens_the_typed_parts_first() -> None:
    record = _record(
        title="Budget",
        participants=Participants(sender=["A <a@x>"], to=["b@x"], cc=[]),
        thread=ThreadIds(message_id="m2@x", in_reply_to="m1@x", references=["m0@x", "m1@x"]),
        labels=["Work"],
        attachments=[
            AttachmentInfo(filename="a.txt", media_type="text/plain", size=3, sha256="f" * 64)
        ],
        extra={"title": "from extra loses", "custom": 1},
    )
    assert record.metadata() == {
        "title": "Budget",
        "from": ["A <a@x>"],
        "to": ["b@x"],
        "message_id": "m2@x",
        "in_reply_to": "m1@x",
        "thread_id": "m0@x",
        "references": ["m0@x", "m1@x"],
        "labels": ["Work"],
        "attachment_names": ["a.txt"],
        "attachment_types": ["text/plain"],
        "attachment_sizes": ["3"],
        "attachment_sha256": ["f" * 64],
        "custom": 1,
    }


def test_thread_id_falls_back_to_the_parent_then_the_message() -> None:
    assert ThreadIds(message_id="m", in_reply_to="p").thread_id == "p"
    assert ThreadIds(message_id="m").thread_id == "m"
    assert ThreadIds().thread_id is None


def test_metadata_never_exceeds_the_key_limit() -> None:
    record = _record(extra={f"k{n}": n for n in range(MAX_METADATA_KEYS + 10)}, title="t")
    assert len(record.metadata()) == MAX_METADATA_KEYS


def test_dedupe_keys() -> None:
    assert message_id_key(" <a@b> ") == "mid:a@b"
    assert content_key("ab", "c") != content_key("a", "bc")  # parts are length-prefixed
    assert content_key(b"x") == content_key("x")
    assert content_key("x").startswith("sha256:") and len(content_key("x")) == 7 + 64


def test_remember_request_keeps_turns_and_times_and_drops_speaker_for_now() -> None:
    turn = ImportTurn(role="user", content="hi", occurred_at=AT, speaker="Ana")
    record = _record(
        content="", turns=[turn], source_type=SourceType.CONVERSATION, occurred_at=AT
    )
    request = remember_request(record, org_id="o", scope=MemoryScope.TEAM, scope_key="t")
    request.validate()
    assert request.turns is not None and request.turns[0].content == "hi"
    assert request.turns[0].occurred_at == AT
    assert (request.scope, request.scope_key, request.occurred_at) == (MemoryScope.TEAM, "t", AT)
    assert request.source_type is SourceType.CONVERSATION
    assert request.content == ""
