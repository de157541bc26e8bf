"""SUPERSEDES between derived records: which older records a newer one replaces.

Three ways in, one edge:
- a candidate names promoted records it replaces (``supersedes``: the
  proposer, an agent or a person, knows the ids); accepting it links them;
- a candidate's own words say what it replaces (``replaces``, found by the
  rules extractor's cues); accepting it links the accepted records of the
  same type, in the same space, whose names hold every meaningful word of
  that phrase (``domain.reflection.supersession.names_replaced``);
- a source-level ``supersede`` correction links the replacement source's
  records to the old source's records of the same type.

Only records the acting caller may read (every source) are linked, so a
link never reveals or touches memory its author could not see. Recall then
prefers the newer record wherever its reader can see it, and keeps the older
one as the trail (``application.reflection.derived``).
"""

from collections.abc import Sequence
from datetime import datetime

from application.ports import MemoryStore
from application.ports.reflection import GraphStore
from application.ports.reflection_records import DerivedEntity, Supersession
from application.trust.reading import all_readable
from domain.errors import NotFoundError
from domain.hashing import content_hash
from domain.policy import MemoryPolicyContext
from domain.query_terms import meaningful_query
from domain.reasons import ReasonCode
from domain.reflection.candidates import ReflectionCandidate
from domain.reflection.supersession import names_replaced

__all__ = ["Superseding", "link"]

#: records a replaced phrase is looked up among
_PHRASE_DEPTH = 20


def link(
    newer: DerivedEntity,
    older: DerivedEntity,
    reason: str,
    valid_from: datetime,
    source_ids: Sequence[str] = (),
) -> Supersession:
    """The edge ``newer -SUPERSEDES-> older``; its id is the pair's, so writing it twice
    keeps one."""
    return Supersession(
        edge_id=content_hash(f"{newer.entity_id}>{older.entity_id}")[:26],
        org_id=newer.org_id,
        newer_id=newer.entity_id,
        older_id=older.entity_id,
        reason=reason,
        source_ids=tuple(dict.fromkeys([*newer.source_ids, *source_ids])),
        valid_from=valid_from,
    )


class Superseding:
    def __init__(self, *, store: MemoryStore, graph: GraphStore) -> None:
        self._store = store
        self._graph = graph

    async def _readable(
        self, policy: MemoryPolicyContext, org_id: str, entities: Sequence[DerivedEntity]
    ) -> list[DerivedEntity]:
        readable = await all_readable(
            self._store, policy, org_id, [s for e in entities for s in e.source_ids]
        )
        return [e for e in entities if all(s in readable for s in e.source_ids)]

    async def named(
        self, candidate: ReflectionCandidate, policy: MemoryPolicyContext
    ) -> list[DerivedEntity]:
        """The records the candidate names; each must exist and be readable (checked before
        anything is promoted, so a refusal writes nothing)."""
        if not candidate.supersedes:
            return []
        found = await self._graph.get_entities(candidate.org_id, candidate.supersedes)
        readable = await self._readable(policy, candidate.org_id, list(found.values()))
        if len(readable) != len(candidate.supersedes):
            raise NotFoundError(
                ReasonCode.NOT_FOUND, "a record the candidate supersedes does not exist"
            )
        return readable

    async def by_phrase(
        self,
        candidate: ReflectionCandidate,
        newer: DerivedEntity,
        policy: MemoryPolicyContext,
    ) -> list[DerivedEntity]:
        """Older records of the same type and space that the candidate's phrase names."""
        phrase = candidate.replaces
        if not phrase:
            return []
        scored = await self._graph.entity_lexical(
            candidate.org_id, meaningful_query(phrase), _PHRASE_DEPTH, frozenset({newer.scope})
        )
        found = await self._graph.get_entities(candidate.org_id, [s.item_id for s in scored])
        matching = [
            e
            for e in found.values()
            if e.type is newer.type
            and e.provenance.candidate_id != candidate.candidate_id
            and e.provenance.valid_from <= newer.provenance.valid_from
            and names_replaced(phrase, e.name)
        ]
        return await self._readable(policy, candidate.org_id, matching)

    async def accepted(
        self,
        candidate: ReflectionCandidate,
        newer: DerivedEntity,
        named: Sequence[DerivedEntity],
        policy: MemoryPolicyContext,
    ) -> list[Supersession]:
        """Write the links an accepted candidate makes; the links written."""
        cued = await self.by_phrase(candidate, newer, policy)
        olders = {e.entity_id: e for e in [*named, *cued] if e.entity_id != newer.entity_id}
        how = "named by its proposer" if named else "its words say what it replaces"
        reason = f"candidate {candidate.candidate_id} accepted: {how}"
        links = [link(newer, e, reason, newer.provenance.valid_from) for e in olders.values()]
        if links:
            await self._graph.supersede(links)
        return links

    async def sources(
        self, org_id: str, old_source: str, new_source: str, at: datetime
    ) -> int:
        """A source-level ``supersede``: link the new source's records to the old one's of the
        same type (records citing both are left alone); how many links."""
        olds = await self._graph.entities_citing(org_id, [old_source])
        news = await self._graph.entities_citing(org_id, [new_source])
        both = {e.entity_id for e in olds} & {e.entity_id for e in news}
        links = [
            link(new, old, f"source {old_source} superseded by {new_source}", at, [old_source])
            for new in news
            for old in olds
            if new.type is old.type and both.isdisjoint({new.entity_id, old.entity_id})
        ]
        if links:
            await self._graph.supersede(links)
        return len(links)
