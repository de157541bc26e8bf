"""The ``conversations.json`` of a ChatGPT data export, one episode per conversation.

Each conversation is a tree (``mapping``) because a user can edit a prompt or
regenerate a reply; what the user last saw is the branch from
``current_node`` back to the root, so that branch, in reading order, is the
episode. Tool output, hidden system context and non-text parts (images,
files) are left out; a message author's ``name`` becomes the speaker. The
checkpoint is the conversation's position in the file.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from adapters.sources.checkpoints import decode_ordinal, encode
from adapters.sources.compressed import open_file, require_readable_file
from adapters.sources.jsonl import turns_key
from adapters.sources.times import parse_time
from application.imports.records import (
    ImportRecord,
    ImportTurn,
    ReadItem,
    SkippedRecord,
    SkipReason,
)
from domain.errors import InvalidInputError
from domain.models import TURN_ROLES, MetadataValue
from domain.reasons import ReasonCode
from domain.scopes import SourceType

__all__ = ["ChatGptSourceAdapter"]


class ChatGptSourceAdapter:
    name = "chatgpt"

    def check(self, path: Path) -> None:
        require_readable_file(_file(path), "conversations.json")

    def read(self, path: Path, *, after: str | None = None) -> Iterator[ReadItem]:
        start = 0 if after is None else decode_ordinal(self.name, after) + 1
        with open_file(_file(path), "conversations.json") as stream:
            raw = stream.read()  # one JSON document: read whole, as before it was compressed
        try:
            conversations = msgspec.json.decode(raw)
        except msgspec.DecodeError as exc:
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST, "conversations.json is not valid JSON"
            ) from exc
        if not isinstance(conversations, list):
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST, "conversations.json must hold a list of conversations"
            )
        for ordinal in range(start, len(conversations)):
            yield _conversation(conversations[ordinal], ordinal, encode(self.name, ordinal))


def _file(path: Path) -> Path:
    """The export's ``conversations.json`` (or a compressed one) in a folder, or the file."""
    if not path.is_dir():
        return path
    found = sorted(path.glob("conversations.json*"))
    return found[0] if found else path / "conversations.json"


def _skip(record_id: str, checkpoint: str, reason: SkipReason, detail: str) -> SkippedRecord:
    return SkippedRecord(record_id=record_id, checkpoint=checkpoint, reason=reason, detail=detail)


def _conversation(data: Any, ordinal: int, checkpoint: str) -> ReadItem:
    conversation_id = (
        (data.get("conversation_id") or data.get("id")) if isinstance(data, dict) else None
    )
    record_id = str(conversation_id) if conversation_id else f"conversation {ordinal}"
    if not isinstance(data, dict) or not isinstance(data.get("mapping"), dict):
        return _skip(record_id, checkpoint, SkipReason.MALFORMED, "needs an object with a mapping")
    branch = _branch(data["mapping"], data.get("current_node"))
    if branch is None:
        return _skip(record_id, checkpoint, SkipReason.MALFORMED, "current_node is not in the tree")
    turns = [turn for node in branch if (turn := _turn(node)) is not None]
    if not turns:
        return _skip(record_id, checkpoint, SkipReason.EMPTY, "no message with text on the branch")
    title = data.get("title")
    extra: dict[str, MetadataValue] = {"conversation_id": record_id}
    model = data.get("default_model_slug")
    if isinstance(model, str):
        extra["model"] = model
    return ImportRecord(
        record_id=record_id,
        dedupe_key=turns_key(turns),
        checkpoint=checkpoint,
        source_type=SourceType.CONVERSATION,
        source_uri=f"chatgpt:{record_id}",
        turns=turns,
        title=title if isinstance(title, str) and title.strip() else None,
        occurred_at=parse_time(data.get("create_time")) or turns[0].occurred_at,
        extra=extra,
    )


def _branch(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]] | None:
    """The nodes from the root to ``current`` (the last leaf when it is missing)."""
    if current is None:
        leaves = [k for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")]
        current = leaves[-1] if leaves else None
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(current, str):
        node = mapping.get(current)
        if not isinstance(node, dict) or current in seen:
            return None
        seen.add(current)
        path.append(node)
        current = node.get("parent")
    return path[::-1] if path else None


def _turn(node: dict[str, Any]) -> ImportTurn | None:
    message = node.get("message")
    if not isinstance(message, dict):
        return None
    author: dict[str, Any] = _object(message.get("author"))
    role = author.get("role")
    metadata = _object(message.get("metadata"))
    if role not in TURN_ROLES or metadata.get("is_visually_hidden_from_conversation"):
        return None
    text = _text(message.get("content"))
    if not text.strip():
        return None
    name = author.get("name")
    return ImportTurn(
        role=role,
        content=text,
        occurred_at=parse_time(message.get("create_time")),
        speaker=name if isinstance(name, str) and name.strip() else None,
    )


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(content: Any) -> str:
    """The text of a message's content: its string parts, or its ``text`` (code, notes)."""
    if not isinstance(content, dict):
        return ""
    parts = content.get("parts")
    if isinstance(parts, list):
        return "\n".join(p for p in parts if isinstance(p, str) and p.strip())
    text = content.get("text")
    return text if isinstance(text, str) else ""
