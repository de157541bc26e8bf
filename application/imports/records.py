"""What a source adapter hands the importer: one record per source, or a reported skip.

Why here and typed: an importer dedupes, resumes and reports on these values
alone, so the fields it relies on (a stable dedupe key, a checkpoint token, a
closed set of skip reasons) are checked once, when a record is built. The
structured parts (participants, thread ids, attachments) stay typed; one
function flattens them into the metadata ``remember`` stores.
"""

import hashlib
from datetime import datetime
from enum import StrEnum

import msgspec

from application.memory.limits import MAX_METADATA_KEYS
from domain.models import TURN_ROLES, MetadataValue
from domain.scopes import SourceType

__all__ = [
    "AttachmentInfo",
    "ImportRecord",
    "ImportTurn",
    "Participants",
    "ReadItem",
    "SkipReason",
    "SkippedRecord",
    "ThreadIds",
    "content_key",
    "message_id_key",
]


class SkipReason(StrEnum):
    """Why an adapter passed over an item of the archive instead of yielding a record."""

    #: the bytes are not a message / not valid JSON / not decodable text
    MALFORMED = "malformed"
    #: a well-formed item with nothing to remember (no text, no turns)
    EMPTY = "empty"
    #: well-formed, but of a shape this adapter does not import (e.g. an unknown role)
    UNSUPPORTED = "unsupported"


class ImportTurn(msgspec.Struct, frozen=True, kw_only=True):
    """A conversation turn; ``speaker`` is the display name when the export has one."""

    role: str
    content: str
    occurred_at: datetime | None = None
    speaker: str | None = None

    def __post_init__(self) -> None:
        if self.role not in TURN_ROLES:
            raise ValueError(f"role must be one of {sorted(TURN_ROLES)}")
        if not self.content.strip():
            raise ValueError("a turn must have text")
        _check_aware(self.occurred_at)


class AttachmentInfo(msgspec.Struct, frozen=True, kw_only=True):
    """An attachment described, not stored: enough to find and verify it later."""

    filename: str | None
    media_type: str
    size: int
    sha256: str

    def __post_init__(self) -> None:
        if self.size < 0:
            raise ValueError("size must be >= 0")
        if len(self.sha256) != 64:
            raise ValueError("sha256 must be 64 hex digits")


class Participants(msgspec.Struct, frozen=True, kw_only=True):
    """Addresses as written in the headers (``Name <addr>``), in header order."""

    sender: list[str] = msgspec.field(default_factory=list)
    to: list[str] = msgspec.field(default_factory=list)
    cc: list[str] = msgspec.field(default_factory=list)


class ThreadIds(msgspec.Struct, frozen=True, kw_only=True):
    """Message ids without angle brackets; ``thread_id`` is the first reference or the message."""

    message_id: str | None = None
    in_reply_to: str | None = None
    references: list[str] = msgspec.field(default_factory=list)

    @property
    def thread_id(self) -> str | None:
        if self.references:
            return self.references[0]
        return self.in_reply_to or self.message_id


class ImportRecord(msgspec.Struct, frozen=True, kw_only=True):
    """One source to remember: raw ``content`` or a conversation's ``turns``, never both.

    ``record_id`` names the item inside the archive (for skip lists and error
    reports); ``dedupe_key`` is the same on every read of the same item;
    ``checkpoint`` is the token from which ``read(after=...)`` continues with
    the next item.
    """

    record_id: str
    dedupe_key: str
    checkpoint: str
    source_type: SourceType
    source_uri: str
    content: str = ""
    turns: list[ImportTurn] | None = None
    title: str | None = None
    occurred_at: datetime | None = None
    participants: Participants | None = None
    thread: ThreadIds | None = None
    labels: list[str] = msgspec.field(default_factory=list)
    attachments: list[AttachmentInfo] = msgspec.field(default_factory=list)
    #: anything else the format carries (front matter, conversation id), already flat
    extra: dict[str, MetadataValue] = msgspec.field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.record_id or not self.dedupe_key or not self.checkpoint:
            raise ValueError("record_id, dedupe_key and checkpoint must be non-empty")
        if self.turns is None:
            if not self.content.strip():
                raise ValueError("a record needs content or turns")
        elif self.content or not self.turns:
            raise ValueError("a conversation record has turns (at least one) and no content")
        _check_aware(self.occurred_at)

    def metadata(self) -> dict[str, MetadataValue]:
        """The flat metadata ``remember`` stores: the typed parts first, then ``extra``."""
        out: dict[str, MetadataValue] = {}
        if self.title:
            out["title"] = self.title
        if self.participants is not None:
            for name, values in (
                ("from", self.participants.sender),
                ("to", self.participants.to),
                ("cc", self.participants.cc),
            ):
                if values:
                    out[name] = list(values)
        if self.thread is not None:
            for name, value in (
                ("message_id", self.thread.message_id),
                ("in_reply_to", self.thread.in_reply_to),
                ("thread_id", self.thread.thread_id),
            ):
                if value:
                    out[name] = value
            if self.thread.references:
                out["references"] = list(self.thread.references)
        if self.labels:
            out["labels"] = list(self.labels)
        if self.attachments:
            out["attachment_names"] = [a.filename or "" for a in self.attachments]
            out["attachment_types"] = [a.media_type for a in self.attachments]
            out["attachment_sizes"] = [str(a.size) for a in self.attachments]
            out["attachment_sha256"] = [a.sha256 for a in self.attachments]
        for key, extra_value in self.extra.items():
            if len(out) >= MAX_METADATA_KEYS:
                break
            out.setdefault(key, extra_value)
        return out


class SkippedRecord(msgspec.Struct, frozen=True, kw_only=True):
    """An item not imported, and why. ``detail`` names fields and limits, never quotes text."""

    record_id: str
    checkpoint: str
    reason: SkipReason
    detail: str

    def __post_init__(self) -> None:
        if not self.record_id or not self.checkpoint:
            raise ValueError("record_id and checkpoint must be non-empty")


#: what ``SourceAdapter.read`` yields, in archive order
ReadItem = ImportRecord | SkippedRecord


def _check_aware(value: datetime | None) -> None:
    if value is not None and value.tzinfo is None:
        raise ValueError("times must carry a timezone offset")


def message_id_key(message_id: str) -> str:
    """The dedupe key of a message that has a Message-ID: the id, brackets and spaces off."""
    return "mid:" + message_id.strip().strip("<>").strip()


def content_key(*parts: str | bytes) -> str:
    """The dedupe key of an item without an id: sha256 over its parts, length-prefixed."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return "sha256:" + digest.hexdigest()
