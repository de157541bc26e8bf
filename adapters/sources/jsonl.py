"""Chat transcripts as JSON Lines: one conversation per line, one episode per conversation.

The format (documented in the README)::

    {"id": "c1", "title": "Trip", "created_at": "2024-05-01T09:00:00Z",
     "messages": [{"role": "user", "content": "...", "created_at": "...", "speaker": "Ana"}]}

``role`` is ``user``, ``assistant`` or ``system``; ``created_at`` is ISO 8601
or Unix seconds (no offset means UTC); ``id``, ``title``, ``created_at`` and
a message's ``created_at`` and ``speaker`` are optional. Blank lines are
ignored; a line that is not such an object is skipped with a reason. The
checkpoint is the line number. The file may be compressed (xz, gzip, bzip2,
zstd): it is read as a stream.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from adapters.sources.checkpoints import decode_ordinal, encode
from adapters.sources.compressed import open_file, require_readable_file
from adapters.sources.times import parse_time
from application.imports.records import (
    ImportRecord,
    ImportTurn,
    ReadItem,
    SkippedRecord,
    SkipReason,
    content_key,
)
from domain.models import TURN_ROLES, MetadataValue
from domain.scopes import SourceType

__all__ = ["JsonlSourceAdapter", "conversation_record"]


class JsonlSourceAdapter:
    name = "jsonl"

    def check(self, path: Path) -> None:
        require_readable_file(path, "jsonl")

    def read(self, path: Path, *, after: str | None = None) -> Iterator[ReadItem]:
        start = 1 if after is None else decode_ordinal(self.name, after) + 1
        with open_file(path, "jsonl") as lines:
            for number, line in enumerate(lines, start=1):
                if number < start or not line.strip():
                    continue
                checkpoint = encode(self.name, number)
                record_id = f"{path.name}:{number}"
                try:
                    data = msgspec.json.decode(line)
                except msgspec.DecodeError:
                    yield _skip(record_id, checkpoint, SkipReason.MALFORMED, "not valid JSON")
                    continue
                yield conversation_record(
                    data,
                    record_id=record_id,
                    checkpoint=checkpoint,
                    source_uri=f"jsonl:{path.name}:{number}",
                )


def _skip(record_id: str, checkpoint: str, reason: SkipReason, detail: str) -> SkippedRecord:
    return SkippedRecord(record_id=record_id, checkpoint=checkpoint, reason=reason, detail=detail)


def conversation_record(data: Any, *, record_id: str, checkpoint: str, source_uri: str) -> ReadItem:
    """One conversation object of the documented shape as a record (or a skip)."""
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        return _skip(record_id, checkpoint, SkipReason.MALFORMED, "needs an object with messages")
    turns: list[ImportTurn] = []
    for n, message in enumerate(data["messages"]):
        if not isinstance(message, dict) or not isinstance(message.get("content"), str):
            return _skip(
                record_id, checkpoint, SkipReason.MALFORMED, f"message {n} needs text content"
            )
        role = message.get("role")
        if role not in TURN_ROLES:
            return _skip(
                record_id,
                checkpoint,
                SkipReason.UNSUPPORTED,
                f"message {n}: role must be one of {', '.join(sorted(TURN_ROLES))}",
            )
        if not message["content"].strip():
            continue
        speaker = message.get("speaker")
        turns.append(
            ImportTurn(
                role=str(role),
                content=message["content"],
                occurred_at=parse_time(message.get("created_at")),
                speaker=speaker if isinstance(speaker, str) and speaker.strip() else None,
            )
        )
    if not turns:
        return _skip(record_id, checkpoint, SkipReason.EMPTY, "no message with text")
    title = data.get("title")
    conversation_id = data.get("id")
    extra: dict[str, MetadataValue] = {}
    if conversation_id is not None:
        extra["conversation_id"] = str(conversation_id)
    started = parse_time(data.get("created_at")) or turns[0].occurred_at
    return ImportRecord(
        record_id=record_id,
        dedupe_key=turns_key(turns),
        checkpoint=checkpoint,
        source_type=SourceType.CONVERSATION,
        source_uri=source_uri,
        turns=turns,
        title=title if isinstance(title, str) and title.strip() else None,
        occurred_at=started,
        extra=extra,
    )


def turns_key(turns: list[ImportTurn]) -> str:
    """A conversation's content hash: who said what, in order (not when, not its id)."""
    parts: list[str] = []
    for turn in turns:
        parts.extend((turn.role, turn.speaker or "", turn.content))
    return content_key("turns", *parts)
