"""From raw content to the records that keep it: one source and its chunks.

One rule for every writer (the remember use case, importers, benchmarks), so
a chunk always carries its source's id, scope and times.

A conversation is one source (the episode) whose content is its turns, each
written as ``role: text`` (``speaker (role): text`` when the turn names its
speaker) and separated by a blank line; every turn becomes one or more
chunks that keep the turn's role, speaker, index and time, so retrieval can
tell what the user said from what the assistant answered, who said it, and
find a turn's neighbours.
"""

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from domain.chunking import ChunkingRules, TextSpan, split_into_chunks
from domain.hashing import content_hash
from domain.models import Chunk, MetadataValue, Source, Turn
from domain.scopes import MemoryScope, SourceType

__all__ = ["compose_memory", "conversation_text"]

_TURN_SEPARATOR = "\n\n"


class _Piece:
    __slots__ = ("occurred_at", "role", "span", "speaker", "turn_index")

    def __init__(
        self,
        span: TextSpan,
        role: str | None,
        turn_index: int | None,
        occurred_at: datetime | None,
        speaker: str | None = None,
    ) -> None:
        self.span = span
        self.role = role
        self.turn_index = turn_index
        self.occurred_at = occurred_at
        self.speaker = speaker


def conversation_text(turns: Sequence[Turn]) -> tuple[str, list[int]]:
    """The source content of a conversation and where each turn's text starts in it."""
    parts: list[str] = []
    starts: list[int] = []
    offset = 0
    for turn in turns:
        prefix = f"{turn.speaker} ({turn.role}): " if turn.speaker else f"{turn.role}: "
        starts.append(offset + len(prefix))
        part = prefix + turn.content
        parts.append(part)
        offset += len(part) + len(_TURN_SEPARATOR)
    return _TURN_SEPARATOR.join(parts), starts


def _pieces(
    content: str,
    turns: Sequence[Turn] | None,
    starts: Sequence[int],
    occurred_at: datetime | None,
    rules: ChunkingRules | None,
) -> list[_Piece]:
    if not turns:
        return [_Piece(s, None, None, occurred_at) for s in split_into_chunks(content, rules)]
    pieces: list[_Piece] = []
    for index, (turn, start) in enumerate(zip(turns, starts, strict=True)):
        for span in split_into_chunks(turn.content, rules):
            moved = TextSpan(start=start + span.start, end=start + span.end, text=span.text)
            when = turn.occurred_at or occurred_at
            pieces.append(_Piece(moved, turn.role, index, when, turn.speaker))
    return pieces


def compose_memory(
    *,
    new_id: Callable[[], str],
    org_id: str,
    actor_id: str,
    content: str,
    now: datetime,
    scope: MemoryScope = MemoryScope.PRIVATE,
    scope_key: str | None = None,
    source_type: SourceType = SourceType.NOTE,
    source_uri: str | None = None,
    metadata: Mapping[str, MetadataValue] | None = None,
    occurred_at: datetime | None = None,
    rules: ChunkingRules | None = None,
    turns: Sequence[Turn] | None = None,
) -> tuple[Source, list[Chunk]]:
    """With ``turns`` the content is built from them (``content`` must then be empty)."""
    starts: list[int] = []
    if turns:
        if content:
            raise ValueError("give content or turns, not both")
        content, starts = conversation_text(turns)
    source = Source(
        source_id=new_id(),
        org_id=org_id,
        scope=scope,
        scope_key=scope_key,
        source_type=source_type,
        source_uri=source_uri,
        content=content,
        content_hash=content_hash(content),
        metadata=dict(metadata or {}),
        created_by=actor_id,
        created_at=now,
        occurred_at=occurred_at,
    )
    chunks = [
        Chunk(
            chunk_id=new_id(),
            source_id=source.source_id,
            org_id=org_id,
            ordinal=ordinal,
            text=piece.span.text,
            start=piece.span.start,
            end=piece.span.end,
            content_hash=content_hash(piece.span.text),
            scope=scope,
            scope_key=scope_key,
            created_at=now,
            occurred_at=piece.occurred_at,
            role=piece.role,
            turn_index=piece.turn_index,
            speaker=piece.speaker,
        )
        for ordinal, piece in enumerate(_pieces(content, turns, starts, occurred_at, rules))
    ]
    return source, chunks
