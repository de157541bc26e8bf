"""The reference store's embedding queue: each chunk's state kept beside it, as a real store does.

Kept apart from the rest of the store so each module stays small; the store
class mixes it in.
"""

from collections.abc import Mapping, Sequence

from adapters.inmemory.org_memory import OrgMemory
from application.memory.checks import check_model
from application.ports.records import Vector
from application.ports.writes import EmbeddingCounts, PendingChunk
from domain.errors import ConflictError
from domain.reasons import ReasonCode

__all__ = ["InMemoryEmbeddingQueue"]


class InMemoryEmbeddingQueue:
    _orgs: dict[str, OrgMemory]

    def _writable(self, org_id: str) -> OrgMemory:
        raise NotImplementedError

    async def pending_embeddings(self, org_id: str, limit: int) -> list[PendingChunk]:
        org = self._orgs.get(org_id)
        if org is None or limit < 1:
            return []
        out = []
        for cid in sorted(org.pending)[:limit]:
            chunk = org.chunks[cid]
            out.append(
                PendingChunk(
                    chunk_id=cid,
                    text=chunk.text,
                    content_hash=chunk.content_hash,
                    created_at=chunk.created_at,
                    attempts=org.pending[cid],
                )
            )
        return out

    async def attach_vectors(
        self, org_id: str, model: str, vectors: Mapping[str, Vector]
    ) -> list[str]:
        org = self._orgs.get(org_id)
        if org is None:
            return []
        check_model(org_id, model, org.space)  # embedded before a re-embed switched it
        for vector in vectors.values():
            if len(vector) != org.space.dimension:
                raise ConflictError(
                    ReasonCode.EMBEDDER_MISMATCH,
                    f"a {len(vector)}-dimensional vector; organisation {org_id} stores "
                    f"{org.space.dimension} dimensions",
                )
        attached = []
        for cid, vector in vectors.items():
            chunk = org.chunks.get(cid)
            if chunk is None:
                continue
            org.vectors[cid] = [float(x) for x in vector]
            org.pending.pop(cid, None)
            org.failed.pop(cid, None)
            org.cache[(model, chunk.content_hash)] = [float(x) for x in vector]
            attached.append(cid)
        org.changed(org.chunks[cid].source_id for cid in attached)
        return attached

    async def embedding_failed(
        self, org_id: str, chunk_ids: Sequence[str], dead_after: int
    ) -> list[str]:
        org = self._orgs.get(org_id)
        if org is None:
            return []
        dead = []
        for cid in dict.fromkeys(chunk_ids):
            if cid not in org.pending:
                continue
            attempts = org.pending[cid] + 1
            if attempts >= dead_after:
                del org.pending[cid]
                org.failed[cid] = attempts
                dead.append(cid)
            else:
                org.pending[cid] = attempts
        return dead

    async def requeue_failed(self, org_id: str) -> int:
        org = self._orgs.get(org_id)
        if org is None:
            return 0
        moved = len(org.failed)
        for cid in org.failed:
            org.pending[cid] = 0
        org.failed.clear()
        return moved

    async def embedding_counts(self, org_id: str) -> EmbeddingCounts:
        org = self._orgs.get(org_id)
        if org is None:
            return EmbeddingCounts()
        return EmbeddingCounts(
            pending=len(org.pending),
            failed=len(org.failed),
            oldest_pending_at=min((org.chunks[c].created_at for c in org.pending), default=None),
        )
