"""From an accepted candidate to native graph records: entities, a typed edge, mentions.

A statement (a decision, a task, a person ...) becomes one ``entity``; a
relationship becomes two entities (its subject and object) joined by a
``relates_to`` edge of its predicate. Each entity ``mentions`` the chunks its
spans overlap, so retrieval can go from a derived record to the raw text
that supports it. Entity resolution across candidates: an entity named like
an existing one of the same type in the same space merges into it at accept
(``application.reflection.merging``: union of sources, mentions and edges;
the trail of candidates kept), so one "Maya" per space gathers every session;
its sources are then the union, and so is who may read it.
"""

from collections.abc import Mapping, Sequence
from datetime import datetime

from application.ports.reflection_records import (
    DerivedEdge,
    DerivedEntity,
    Mention,
    Provenance,
    Supersession,
)
from application.reflection.commands import PromotedRecord
from domain.models import Chunk, Source
from domain.reflection.candidates import CandidateType, ReflectionCandidate, Span
from domain.scopes import ScopeRef

__all__ = ["NativeRecords", "native_records", "promoted_records"]


class NativeRecords:
    __slots__ = ("edges", "entities", "mentions")

    def __init__(
        self,
        entities: list[DerivedEntity],
        edges: list[DerivedEdge],
        mentions: list[Mention],
    ) -> None:
        self.entities, self.edges, self.mentions = entities, edges, mentions

    @property
    def ids(self) -> list[str]:
        return [e.entity_id for e in self.entities] + [e.edge_id for e in self.edges]


def _overlapping(spans: Sequence[Span], chunks: Mapping[str, Sequence[Chunk]]) -> list[str]:
    found: list[str] = []
    for span in spans:
        for chunk in chunks.get(span.source_id, ()):
            if chunk.start < span.end and span.start < chunk.end:
                found.append(chunk.chunk_id)
    return list(dict.fromkeys(found))


def native_records(
    candidate: ReflectionCandidate,
    *,
    target: ScopeRef,
    sources: Sequence[Source],
    chunks: Mapping[str, Sequence[Chunk]],
    reviewer: str,
    decision_id: str,
    decision_reason: str,
    now: datetime,
) -> NativeRecords:
    """The records accepting ``candidate`` into ``target`` writes (nothing is written here)."""
    provenance = Provenance(
        source_ids=candidate.source_ids,
        source_hashes=dict(candidate.source_hashes),
        transform=f"{candidate.extractor}@{candidate.extractor_version}",
        decision_id=decision_id,
        decision_reason=decision_reason,
        candidate_id=candidate.candidate_id,
        promoted_by=reviewer,
        promoted_at=now,
        valid_from=max(s.occurred_at or s.created_at for s in sources),
        confidence=candidate.confidence,
    )
    cid = candidate.candidate_id
    mentioned = _overlapping(candidate.spans, chunks)

    def entity(suffix: str, kind: CandidateType, name: str) -> DerivedEntity:
        return DerivedEntity(
            entity_id=cid + suffix,
            org_id=candidate.org_id,
            type=kind,
            name=name,
            scope=target,
            spans=candidate.spans,
            provenance=provenance,
        )

    relation = candidate.relation
    if relation is None:
        made = [entity("e", candidate.type, candidate.text)]
        edges: list[DerivedEdge] = []
    else:
        subject = entity("s", relation.subject_type, relation.subject)
        obj = entity("o", relation.object_type, relation.object)
        made = [subject, obj]
        edges = [
            DerivedEdge(
                edge_id=cid + "r",
                org_id=candidate.org_id,
                from_id=subject.entity_id,
                to_id=obj.entity_id,
                kind=relation.predicate,
                fact=candidate.text,
                scope=target,
                provenance=provenance,
            )
        ]
    mentions = [Mention(entity_id=e.entity_id, chunk_id=c) for e in made for c in mentioned]
    return NativeRecords(made, edges, mentions)


def promoted_records(records: NativeRecords, links: Sequence[Supersession]) -> list[PromotedRecord]:
    """What an accept wrote, as the review answer lists it (ids, kinds, sources; no text)."""
    return [
        *(
            PromotedRecord(
                id=e.entity_id, kind="entity", type=e.type, source_ids=list(e.source_ids)
            )
            for e in records.entities
        ),
        *(
            PromotedRecord(
                id=e.edge_id,
                kind="relates_to",
                type=e.kind,
                source_ids=list(e.provenance.source_ids),
            )
            for e in records.edges
        ),
        *(
            PromotedRecord(
                id=link.edge_id,
                kind="supersedes",
                type=records.entities[0].type,
                source_ids=list(link.source_ids),
                older_id=link.older_id,
            )
            for link in links
        ),
    ]
