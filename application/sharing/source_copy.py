"""The write that shares a source: a copy in the target space, through the one write path.

Why a copy and not a move: the original stays where its owner put it, with
its marks and history, and the index rows of both spaces stay as the write
path made them (no store or index port re-scopes rows). The copy names its
original in ``metadata.shared_from``. A conversation is copied turn by turn
from its chunks, so the copy keeps who said what; when the turns cannot be
rebuilt, the text is copied as one note-like body of the same type.
"""

from collections.abc import Sequence
from itertools import groupby

import msgspec

from application.memory.commands import RememberRequest
from domain.errors import InvalidInputError
from domain.models import Chunk, Source, Turn
from domain.scopes import ScopeRef

__all__ = ["SHARED_FROM", "copy_request"]

#: the metadata key a shared copy names its original by
SHARED_FROM = "shared_from"


def _turns(source: Source, chunks: Sequence[Chunk]) -> list[Turn] | None:
    if not chunks or any(c.turn_index is None or c.role is None for c in chunks):
        return None
    ordered = sorted(chunks, key=lambda c: (c.turn_index or 0, c.start))
    turns: list[Turn] = []
    for _, group in groupby(ordered, key=lambda c: c.turn_index):
        parts = list(group)
        first = parts[0]
        turns.append(
            Turn(
                role=first.role or "user",
                content=source.content[first.start : max(c.end for c in parts)],
                occurred_at=first.occurred_at,
                speaker=first.speaker,
            )
        )
    return turns


def copy_request(source: Source, chunks: Sequence[Chunk], target: ScopeRef) -> RememberRequest:
    """The remember request that writes ``source``'s copy into ``target``."""
    as_text = RememberRequest(
        org_id=source.org_id,
        content=source.content,
        scope=target.scope,
        scope_key=target.scope_key,
        source_type=source.source_type,
        source_uri=source.source_uri,
        metadata={**source.metadata, SHARED_FROM: source.source_id},
        occurred_at=source.occurred_at,
    )
    turns = _turns(source, chunks)
    if turns is None:
        return as_text
    as_turns = msgspec.structs.replace(as_text, content="", turns=turns)
    try:
        as_turns.validate()
    except InvalidInputError:
        return as_text  # e.g. a turn of only spaces: copy the text instead
    return as_turns
