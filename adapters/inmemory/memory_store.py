"""The reference MemoryStore: plain dicts, the same promises as the real stores.

Unit tests use it as a fake instead of mocks, so it keeps every rule the
contract suite checks: one embedding space per organisation (a different one
is refused), organisations isolated, ``save_memory`` all or nothing (checked
fully before anything is written, with no ``await`` in between), writes
refused before ``prepare``. Values are copied in and out, so a caller that
mutates a returned vector or metadata dict cannot change what is stored.
"""

import bisect
import copy
from collections.abc import Mapping, Sequence

import msgspec

from adapters.inmemory.change_log import InMemoryChangeLog
from adapters.inmemory.embedding_queue import InMemoryEmbeddingQueue
from adapters.inmemory.org_memory import OrgMemory as _Org
from adapters.inmemory.vector_staging import InMemoryVectorStaging
from application.memory.checks import check_memory, check_model, embedder_mismatch
from application.ports.records import (
    EmbeddedChunk,
    EmbeddingSpace,
    IndexEntry,
    SourceLifecycle,
    SourceState,
    StoreInfo,
    Vector,
)
from application.ports.writes import MemoryWrite
from domain.errors import ConflictError, InvalidInputError, NotFoundError, UpstreamError
from domain.models import Chunk, Source, chunk_recall
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, ScopeRef
from domain.withheld_match import remainder_terms

__all__ = ["InMemoryMemoryStore"]


def _check_datetimes(*values: object) -> None:
    for value in values:
        if value is not None and getattr(value, "utcoffset", lambda: None)() is None:
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST, "datetimes must be timezone-aware to be stored"
            )


class InMemoryMemoryStore(InMemoryEmbeddingQueue, InMemoryChangeLog, InMemoryVectorStaging):
    def __init__(self) -> None:
        self._orgs: dict[str, _Org] = {}

    def info(self) -> StoreInfo:
        return StoreInfo(engine="inmemory", url_kind="memory")

    async def prepare(self, org_id: str, space: EmbeddingSpace) -> None:
        if not org_id:
            raise InvalidInputError(ReasonCode.INVALID_REQUEST, "org_id must not be empty")
        org = self._orgs.get(org_id)
        if org is None:
            self._orgs[org_id] = _Org(space)
            return
        if org.space != space:
            raise embedder_mismatch(org_id, org.space, space)

    def _writable(self, org_id: str) -> _Org:
        org = self._orgs.get(org_id)
        if org is None:
            raise UpstreamError(
                ReasonCode.STORE_FAILED,
                f"organisation {org_id} has not been prepared; call prepare() first",
            )
        return org

    async def save_memory(self, source: Source, chunks: Sequence[EmbeddedChunk]) -> None:
        await self.save_memories(
            [
                MemoryWrite(
                    source=source,
                    chunks=[e.chunk for e in chunks],
                    vectors={e.chunk.chunk_id: e.vector for e in chunks},
                )
            ]
        )

    async def save_memories(self, memories: Sequence[MemoryWrite]) -> None:
        orgs = [self._writable(m.source.org_id) for m in memories]
        seen_sources: set[str] = set()
        seen_chunks: set[str] = set()
        for org, write in zip(orgs, memories, strict=True):
            source = write.source
            _check_datetimes(source.created_at, source.occurred_at)
            if source.source_id in org.sources or source.source_id in seen_sources:
                raise UpstreamError(
                    ReasonCode.STORE_FAILED, f"source {source.source_id} already exists"
                )
            seen_sources.add(source.source_id)
            check_memory(source, write.chunks, org.space.dimension, write.vectors)
            if write.vectors:
                check_model(source.org_id, write.model, org.space)
            for chunk in write.chunks:
                _check_datetimes(chunk.created_at, chunk.occurred_at)
                if chunk.chunk_id in org.chunks or chunk.chunk_id in seen_chunks:
                    raise UpstreamError(
                        ReasonCode.STORE_FAILED, f"chunk {chunk.chunk_id} already exists"
                    )
                seen_chunks.add(chunk.chunk_id)
        # Everything checked: now write, with no await in between (all or nothing).
        for org, write in zip(orgs, memories, strict=True):
            source = write.source
            org.sources[source.source_id] = copy.deepcopy(source)
            for chunk in write.chunks:
                cid = chunk.chunk_id
                org.chunks[cid] = chunk
                vector = write.vectors.get(cid)
                if vector is None:
                    org.pending[cid] = 0
                else:
                    org.vectors[cid] = [float(x) for x in vector]
                org.recall[cid] = chunk_recall(source, chunk)
                bisect.insort(org.chunk_order, cid)
        for org in {id(o): o for o in orgs}.values():  # one step of the sequence per write
            org.changed(w.source.source_id for o, w in zip(orgs, memories, strict=True) if o is org)

    async def get_source(self, org_id: str, source_id: str) -> Source | None:
        org = self._orgs.get(org_id)
        if org is None or source_id not in org.sources:
            return None
        return copy.deepcopy(org.sources[source_id])

    async def get_chunks(self, org_id: str, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        org = self._orgs.get(org_id)
        if org is None:
            return {}
        return {cid: org.chunks[cid] for cid in chunk_ids if cid in org.chunks}

    async def get_sources(self, org_id: str, source_ids: Sequence[str]) -> dict[str, Source]:
        org = self._orgs.get(org_id)
        if org is None:
            return {}
        return {s: copy.deepcopy(org.sources[s]) for s in source_ids if s in org.sources}

    async def chunks_with_sources(
        self, org_id: str, chunk_ids: Sequence[str]
    ) -> tuple[dict[str, Chunk], dict[str, SourceLifecycle]]:
        chunks = await self.get_chunks(org_id, chunk_ids)
        sources = await self.source_lifecycles(org_id, [c.source_id for c in chunks.values()])
        return chunks, sources

    async def source_lifecycles(
        self, org_id: str, source_ids: Sequence[str]
    ) -> dict[str, SourceLifecycle]:
        org = self._orgs.get(org_id)
        if org is None:
            return {}
        return {s: SourceLifecycle.of(org.sources[s]) for s in source_ids if s in org.sources}

    async def update_source(
        self, source: Source, *, expected_version: int, drop_text: bool
    ) -> None:
        org = self._writable(source.org_id)
        _check_datetimes(source.created_at, source.occurred_at)
        held = org.sources.get(source.source_id)
        if held is None:
            raise NotFoundError(ReasonCode.NOT_FOUND, f"no source with id {source.source_id!r}")
        if held.version != expected_version:
            raise ConflictError(
                ReasonCode.SOURCE_CHANGED, f"source {source.source_id} changed since it was read"
            )
        mine = [cid for cid, c in org.chunks.items() if c.source_id == source.source_id]
        org.sources[source.source_id] = copy.deepcopy(source)
        org.changed([source.source_id])
        if drop_text:
            hashes = {org.chunks[cid].content_hash for cid in mine}
            for cid in mine:
                org.forget_chunk(cid)
            still_used = {c.content_hash for c in org.chunks.values()}
            for key in [k for k in org.cache if k[1] in hashes and k[1] not in still_used]:
                del org.cache[key]
            return
        for cid in mine:
            chunk = msgspec.structs.replace(org.chunks[cid], lifecycle=source.lifecycle)
            org.chunks[cid] = chunk
            org.recall[cid] = chunk_recall(source, chunk)

    async def list_sources(self, org_id: str, after: str | None, limit: int) -> list[Source]:
        org = self._orgs.get(org_id)
        if org is None or limit < 1:
            return []
        ids = sorted(s for s in org.sources if after is None or s > after)[:limit]
        return [copy.deepcopy(org.sources[s]) for s in ids]

    async def linked_sources(self, org_id: str, source_id: str) -> list[str]:
        org = self._orgs.get(org_id)
        if org is None:
            return []
        return sorted(
            s.source_id
            for s in org.sources.values()
            if source_id in (s.superseded_by, s.duplicate_of)
        )

    async def chunks_of_source(self, org_id: str, source_id: str) -> list[Chunk]:
        org = self._orgs.get(org_id)
        if org is None:
            return []
        mine = (c for c in org.chunks.values() if c.source_id == source_id)
        return sorted(mine, key=lambda c: c.ordinal)

    async def count_chunks(self, org_id: str) -> int:
        org = self._orgs.get(org_id)
        return 0 if org is None else len(org.chunks)

    async def count_sources(self, org_id: str) -> int:
        org = self._orgs.get(org_id)
        return 0 if org is None else len(org.sources)

    async def source_states(self, org_id: str, space: ScopeRef, limit: int) -> list[SourceState]:
        org = self._orgs.get(org_id)
        if org is None or limit < 1:
            return []
        matching = sorted(
            (s.source_id, s.lifecycle)
            for s in org.sources.values()
            if s.scope == space.scope and s.scope_key == space.scope_key
        )
        return [SourceState(sid, lifecycle) for sid, lifecycle in matching[:limit]]

    def _in_state(
        self, org_id: str, state: LifecycleState, visible: frozenset[ScopeRef] | None
    ) -> list[Source]:
        """The organisation's sources in ``state`` within ``visible`` (None: every space)."""
        org = self._orgs.get(org_id)
        if org is None:
            return []
        return [
            s
            for s in org.sources.values()
            if s.lifecycle is state
            and (visible is None or ScopeRef(s.scope, s.scope_key) in visible)
        ]

    async def recent_sources(
        self, org_id: str, visible: frozenset[ScopeRef] | None, limit: int
    ) -> list[SourceLifecycle]:
        if limit < 1:
            return []
        matching = sorted(
            self._in_state(org_id, LifecycleState.ACTIVE, visible),
            key=lambda s: s.source_id,
            reverse=True,
        )
        return [SourceLifecycle.of(s) for s in matching[:limit]]

    async def redacted_sources(
        self,
        org_id: str,
        visible: frozenset[ScopeRef] | None,
        terms: frozenset[str],
        limit: int,
    ) -> list[SourceLifecycle]:
        if limit < 1:
            return []
        matching = sorted(
            (
                s
                for s in self._in_state(org_id, LifecycleState.REDACTED, visible)
                if not remainder_terms(s.content).isdisjoint(terms)
            ),
            key=lambda s: s.source_id,
        )
        return [SourceLifecycle.of(s) for s in matching[:limit]]

    async def scan_index_entries(
        self, org_id: str, after: str | None, limit: int
    ) -> list[IndexEntry]:
        org = self._orgs.get(org_id)
        if org is None or limit < 1:
            return []
        start = 0 if after is None else bisect.bisect_right(org.chunk_order, after)
        return [org.index_entry(cid) for cid in org.chunk_order[start : start + limit]]

    async def scan_index_sources(
        self, org_id: str, after: str | None, limit: int
    ) -> list[IndexEntry]:
        org = self._orgs.get(org_id)
        if org is None or limit < 1:
            return []
        by_source: dict[str, list[str]] = {}
        for cid in org.chunk_order:
            by_source.setdefault(org.chunks[cid].source_id, []).append(cid)
        entries: list[IndexEntry] = []
        for source_id in sorted(s for s in by_source if after is None or s > after):
            entries.extend(org.index_entry(cid) for cid in by_source[source_id])
            if len(entries) >= limit:
                break
        return entries

    async def cached_embeddings(
        self, org_id: str, model: str, hashes: Sequence[str]
    ) -> dict[str, Vector]:
        org = self._orgs.get(org_id)
        if org is None:
            return {}
        return {h: list(org.cache[(model, h)]) for h in hashes if (model, h) in org.cache}

    async def cache_embeddings(
        self, org_id: str, model: str, vectors: Mapping[str, Vector]
    ) -> None:
        if not vectors:
            return
        org = self._writable(org_id)
        for h, vector in vectors.items():
            org.cache[(model, h)] = [float(x) for x in vector]

    async def drop_organization(self, org_id: str) -> None:
        self._orgs.pop(org_id, None)

    async def close(self) -> None:
        return None
