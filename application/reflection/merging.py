"""Entity merging: a promoted entity that names an existing one joins it instead of duplicating.

The rule: an entity being promoted whose *normalised name* (case folded,
spacing collapsed) and *type* equal those of an entity already in the *same
space* is that entity. It is written once, as the union of both:

- its sources are the union of their sources (each with its hash), so the
  all-sources gate still holds: a reader sees the merged record only if it
  may read every source behind it (merging can narrow who sees a record,
  never widen it);
- ``valid_from`` is the newer one, the confidence the higher one; the first
  promotion's transform, decision and candidate stay, and every later
  candidate merged in is kept in ``merged_from`` (the trail);
- the new candidate's mentions and relationships attach to the existing
  entity, whose own are kept;
- only into a record whose every source the reviewer may read now: one
  citing a source hidden from the reviewer is left alone and the new entity
  is written beside it (merging would change, and the accept answer would
  list, a record the reviewer cannot see in full).

Forgetting any of its sources (redact, delete) removes the merged record as
a whole, as it removes any record citing that source.
Entities in different spaces, or of different types ("Orion" the project
and "Orion" the person), are never merged.
"""

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import msgspec

from application.ports.reflection_records import DerivedEdge, DerivedEntity, Mention

if TYPE_CHECKING:
    from application.ports.reflection import GraphStore
    from application.reflection.promotion import NativeRecords

__all__ = ["merge_entity", "merged_records", "name_key", "repoint"]


def name_key(name: str) -> str:
    """What two names must share to be the same entity: case and spacing aside."""
    return " ".join(name.casefold().split())


def merge_entity(existing: DerivedEntity, new: DerivedEntity) -> DerivedEntity:
    """``existing`` with ``new``'s sources, spans and candidate joined (order kept)."""
    old, add = existing.provenance, new.provenance
    sources = tuple(dict.fromkeys((*old.source_ids, *add.source_ids)))
    trail = tuple(dict.fromkeys((*old.merged_from, add.candidate_id, *add.merged_from)))
    provenance = msgspec.structs.replace(
        old,
        source_ids=sources,
        source_hashes={**add.source_hashes, **old.source_hashes},
        valid_from=max(old.valid_from, add.valid_from),
        confidence=max(old.confidence, add.confidence),
        merged_from=tuple(c for c in trail if c != old.candidate_id),
    )
    spans = tuple(dict.fromkeys((*existing.spans, *new.spans)))
    return msgspec.structs.replace(existing, spans=spans, provenance=provenance)


def repoint(
    merged: Mapping[str, str], edges: list[DerivedEdge], mentions: list[Mention]
) -> tuple[list[DerivedEdge], list[Mention]]:
    """The edges and mentions with each merged entity's id replaced by the existing one's."""
    edges = [
        msgspec.structs.replace(
            e, from_id=merged.get(e.from_id, e.from_id), to_id=merged.get(e.to_id, e.to_id)
        )
        for e in edges
    ]
    mentions = [
        Mention(entity_id=merged.get(m.entity_id, m.entity_id), chunk_id=m.chunk_id)
        for m in mentions
    ]
    return edges, mentions


async def merged_records(
    graph: "GraphStore",
    records: "NativeRecords",
    readable: Callable[[Sequence[str]], Awaitable[set[str]]],
) -> "NativeRecords":
    """The records to write, each entity that names an existing one merged into it.

    ``readable``: which of these source ids the reviewer may read now. An existing
    record citing a source the reviewer may not read is left alone (the new entity is
    written beside it): merging would change, and the accept answer would list, a
    record the reviewer cannot see in full."""
    found = await asyncio.gather(
        *(graph.entity_named(e.org_id, e.type, e.name, e.scope) for e in records.entities)
    )
    cited = [s for old in found if old is not None for s in old.source_ids]
    seen = await readable(cited) if cited else set()
    merged: dict[str, str] = {}
    written: dict[str, DerivedEntity] = {}
    for new, old in zip(records.entities, found, strict=True):
        if (
            old is not None
            and old.entity_id != new.entity_id
            and all(s in seen for s in old.source_ids)
        ):
            merged[new.entity_id] = old.entity_id
            new = merge_entity(written.get(old.entity_id, old), new)
        written[new.entity_id] = new
    if not merged:
        return records
    edges, mentions = repoint(merged, records.edges, records.mentions)
    return type(records)(list(written.values()), edges, list(dict.fromkeys(mentions)))

