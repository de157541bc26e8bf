"""The derived records that follow a shared source, re-pointed at its copy.

A promoted record citing only the shared source can follow it: its copy
cites the source's copy (same text, so the same spans), lives in the target
space, and is seen by exactly who may read that copy. A record citing other
sources too stays where it is: following would need those sources shared
as well, and counting it as visible would promise an audience that the
derived-record rule (``domain.policy.reach``) refuses.
"""

from collections.abc import Callable, Sequence
from datetime import datetime

import msgspec

from application.ports.reflection_records import DerivedEdge, DerivedEntity, Mention, Provenance
from domain.models import Chunk, Source
from domain.reflection.candidates import Span
from domain.scopes import ScopeRef

__all__ = ["Following", "copies_for", "following"]


class Following(msgspec.Struct, frozen=True, kw_only=True):
    """The records citing a source: those that follow a share of it, and how many stay."""

    entities: list[DerivedEntity]
    edges: list[DerivedEdge]
    staying: int

    @property
    def ids(self) -> list[str]:
        return [e.entity_id for e in self.entities] + [e.edge_id for e in self.edges]


def following(
    source_id: str, citing: Sequence[DerivedEntity], edges: Sequence[DerivedEdge]
) -> Following:
    """Split the entities citing ``source_id`` (and the edges between them) into those that
    cite it alone and follow, and a count of those that stay."""
    alone = [e for e in citing if e.source_ids == (source_id,)]
    ids = {e.entity_id for e in alone}
    kept = {
        e.edge_id: e
        for e in edges
        if e.from_id in ids and e.to_id in ids and e.provenance.source_ids == (source_id,)
    }
    return Following(
        entities=alone,
        edges=[kept[k] for k in sorted(kept)],
        staying=len(citing) - len(alone),
    )


def _mentioned(spans: Sequence[Span], chunks: Sequence[Chunk]) -> list[str]:
    return list(
        dict.fromkeys(
            c.chunk_id for s in spans for c in chunks if c.start < s.end and s.start < c.end
        )
    )


def copies_for(
    records: Following,
    *,
    copy: Source,
    chunks: Sequence[Chunk],
    target: ScopeRef,
    new_id: Callable[[], str],
    actor: str,
    decision_id: str,
    decision_reason: str,
    now: datetime,
) -> tuple[list[DerivedEntity], list[DerivedEdge], list[Mention]]:
    """The following records, copied onto ``copy`` in ``target`` (nothing is written here)."""
    renamed = {e.entity_id: new_id() for e in records.entities}

    def moved(provenance: Provenance) -> Provenance:
        return msgspec.structs.replace(
            provenance,
            source_ids=(copy.source_id,),
            source_hashes={copy.source_id: copy.content_hash},
            decision_id=decision_id,
            decision_reason=decision_reason,
            promoted_by=actor,
            promoted_at=now,
        )

    entities = [
        msgspec.structs.replace(
            e,
            entity_id=renamed[e.entity_id],
            scope=target,
            spans=tuple(Span(source_id=copy.source_id, start=s.start, end=s.end) for s in e.spans),
            provenance=moved(e.provenance),
        )
        for e in records.entities
    ]
    edges = [
        msgspec.structs.replace(
            e,
            edge_id=new_id(),
            from_id=renamed[e.from_id],
            to_id=renamed[e.to_id],
            scope=target,
            provenance=moved(e.provenance),
        )
        for e in records.edges
    ]
    mentions = [
        Mention(entity_id=e.entity_id, chunk_id=c)
        for e in entities
        for c in _mentioned(e.spans, chunks)
    ]
    return entities, edges, mentions
