"""The reference store's change sequence (application.ports.changes), kept beside its rows.

Kept apart from the rest of the store so each module stays small; the store
class mixes it in. ``OrgMemory.changed`` is what every index-visible write calls.
"""

from collections.abc import Sequence

from adapters.inmemory.org_memory import OrgMemory
from application.ports.changes import ChangePosition, SourceChanges
from application.ports.records import IndexEntry

__all__ = ["InMemoryChangeLog"]


class InMemoryChangeLog:
    _orgs: dict[str, OrgMemory]

    async def change_position(self, org_id: str) -> ChangePosition:
        org = self._orgs.get(org_id)
        return (
            ChangePosition()
            if org is None
            else ChangePosition(epoch=org.epoch, sequence=org.sequence)
        )

    async def changed_sources(self, org_id: str, after: int, limit: int) -> SourceChanges:
        org = self._orgs.get(org_id)
        if org is None:
            return SourceChanges(position=ChangePosition())
        position = ChangePosition(epoch=org.epoch, sequence=org.sequence)
        if limit < 1:
            return SourceChanges(position=position)
        later = sorted((seq, sid) for sid, seq in org.changed_at.items() if seq > after)
        return SourceChanges(position=position, changes=tuple(later[:limit]))

    async def index_entries_of(self, org_id: str, source_ids: Sequence[str]) -> list[IndexEntry]:
        org = self._orgs.get(org_id)
        if org is None:
            return []
        wanted = set(source_ids)
        return [
            org.index_entry(cid) for cid in org.chunk_order if org.chunks[cid].source_id in wanted
        ]
