"""The reference store's re-embed staging: a second model's vectors beside the served ones.

Mixed into ``InMemoryMemoryStore`` as the embedding queue is. ``switch_space``
checks everything before it changes anything, with no ``await`` in between,
so it is all or nothing as the SurrealDB transaction is.
"""

import bisect
from collections.abc import Mapping

from adapters.inmemory.org_memory import OrgMemory
from application.operations.reembed.records import ReembedJob, StagingChunk, StagingPage
from application.ports.records import EmbeddingSpace, Vector
from domain.errors import ConflictError
from domain.reasons import ReasonCode

__all__ = ["InMemoryVectorStaging"]


class InMemoryVectorStaging:
    _orgs: dict[str, OrgMemory]

    async def recorded_space(self, org_id: str) -> EmbeddingSpace | None:
        org = self._orgs.get(org_id)
        return None if org is None else org.space

    async def reembed_job(self, org_id: str) -> ReembedJob | None:
        org = self._orgs.get(org_id)
        job = None if org is None else org.reembed_job
        return job if isinstance(job, ReembedJob) else None

    async def save_reembed_job(self, org_id: str, job: ReembedJob | None) -> None:
        org = self._orgs.get(org_id)
        if org is not None:
            org.reembed_job = job

    async def unstaged_chunks(
        self, org_id: str, model: str, after: str | None, limit: int
    ) -> StagingPage:
        org = self._orgs.get(org_id)
        if org is None or limit < 1:
            return StagingPage(chunks=[], last=None)
        start = 0 if after is None else bisect.bisect_right(org.chunk_order, after)
        read = org.chunk_order[start : start + limit]
        chunks = []
        for cid in read:
            staged = org.staged.get(cid)
            if staged is None or staged[0] != model:
                chunk = org.chunks[cid]
                chunks.append(
                    StagingChunk(chunk_id=cid, text=chunk.text, content_hash=chunk.content_hash)
                )
        last = read[-1] if read and start + limit < len(org.chunk_order) else None
        return StagingPage(chunks=chunks, last=last)

    async def stage_vectors(
        self, org_id: str, space: EmbeddingSpace, vectors: Mapping[str, Vector]
    ) -> int:
        org = self._orgs.get(org_id)
        if org is None:
            return 0
        for vector in vectors.values():
            if len(vector) != space.dimension:
                raise ConflictError(
                    ReasonCode.EMBEDDER_MISMATCH,
                    f"a {len(vector)}-dimensional vector for {space.dimension} dimensions",
                )
        staged = 0
        for cid, vector in vectors.items():
            if cid in org.chunks:
                org.staged[cid] = (space.model, [float(x) for x in vector])
                staged += 1
        return staged

    async def staged_count(self, org_id: str, model: str) -> int:
        org = self._orgs.get(org_id)
        if org is None:
            return 0
        return sum(1 for cid, (m, _) in org.staged.items() if m == model and cid in org.chunks)

    async def switch_space(self, org_id: str, space: EmbeddingSpace) -> int:
        org = self._orgs.get(org_id)
        if org is None or (org.space == space and not org.staged):
            return 0
        missing = [
            cid
            for cid in org.chunks
            if org.staged.get(cid, ("", []))[0] != space.model
            or len(org.staged[cid][1]) != space.dimension
        ]
        if missing:
            raise ConflictError(
                ReasonCode.REEMBED_INCOMPLETE,
                f"{len(missing)} chunk(s) have no vector of {space.model} yet",
            )
        # checked: now switch, with no await in between (all or nothing)
        org.vectors = {cid: org.staged[cid][1] for cid in org.chunks}
        org.pending.clear()
        org.failed.clear()
        org.staged.clear()
        org.cache = {key: v for key, v in org.cache.items() if key[0] == space.model}
        org.space = space
        org.changed(org.sources)
        return len(org.vectors)

    async def discard_staged(self, org_id: str) -> None:
        org = self._orgs.get(org_id)
        if org is not None:
            org.staged.clear()
