"""The MemoryStore port on SurrealDB 3: embedded (mem://, surrealkv://) or a server (ws://).

The connection and each organisation's namespace are ``store_base``'s, the
reads ``memory_reads``'; this module writes. A memory is written in one
transaction: the source first, then its chunks in ``INSERT`` batches of at
most 50 rows (larger batches misbehave on the embedded engine), so a failure
leaves neither.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from adapters.surreal import change_log, codec, corrections
from adapters.surreal.change_log import SurrealChangeLog, stamped
from adapters.surreal.compaction import CompactionReport, compact
from adapters.surreal.embedding_queue import SurrealEmbeddingQueue
from adapters.surreal.memory_reads import SurrealMemoryReads
from adapters.surreal.store_base import CHECKPOINT_EVERY_CHUNKS
from adapters.surreal.vector_staging import SurrealVectorStaging
from adapters.surreal.withheld import withheld_rows
from application.memory.checks import check_memory, check_model
from application.ports.records import EmbeddedChunk, Vector
from application.ports.writes import MemoryWrite
from domain.errors import ConflictError, InvalidInputError, NotFoundError, UpstreamError
from domain.models import Source, chunk_recall
from domain.reasons import ReasonCode

__all__ = ["CHECKPOINT_EVERY_CHUNKS", "INSERT_BATCH", "SurrealMemoryStore"]

#: rows per INSERT statement
INSERT_BATCH = 50

_CACHE_INSERT = (
    "INSERT INTO embedding_cache $rows{n} ON DUPLICATE KEY UPDATE vec = $input.vec RETURN NONE;"
)


def _batches(rows: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [list(rows[i : i + INSERT_BATCH]) for i in range(0, len(rows), INSERT_BATCH)]


class SurrealMemoryStore(
    SurrealMemoryReads, SurrealEmbeddingQueue, SurrealChangeLog, SurrealVectorStaging
):
    """Raw sources, chunks and vectors in SurrealDB; one connection, safe to share."""

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
        if not memories:
            return
        org_ids = {m.source.org_id for m in memories}
        if len(org_ids) != 1:
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST, "one bulk write holds one organisation's memories"
            )
        namespace, space = await self._writable(memories[0].source.org_id)
        sources: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        for write in memories:
            source = write.source
            check_memory(source, write.chunks, space.dimension, write.vectors)
            if write.vectors:
                check_model(source.org_id, write.model, space)
            sources.append({**codec.source_row(source), "id": source.source_id})
            rows.extend(
                codec.chunk_row(
                    c,
                    write.vectors.get(c.chunk_id),
                    chunk_recall(source, c),
                    floats=self.native_search,
                )
                for c in write.chunks
            )
        variables: dict[str, Any] = {}
        statements = ["BEGIN TRANSACTION;"]
        # sources first, then their chunks; a duplicate id fails the whole transaction
        for n, batch in enumerate(_batches(sources)):
            variables[f"src{n}"] = batch
            statements.append(f"INSERT INTO source $src{n} RETURN NONE;")
        # sources saved already redacted (an import of a redacted export): their withheld words
        withheld = [row for write in memories for row in withheld_rows(write.source)]
        if withheld:
            variables["withheld"] = withheld
            statements.append("INSERT INTO withheld_term $withheld RETURN NONE;")
        for n, batch in enumerate(_batches(rows)):
            variables[f"rows{n}"] = batch
            statements.append(f"INSERT INTO chunk $rows{n} RETURN NONE;")
        variables.update(stamped([m.source.source_id for m in memories]))
        statements += [change_log.ADVANCE, change_log.STAMP, "COMMIT TRANSACTION;"]
        # sources saved redacted add withheld words: no search marks the namespace meanwhile
        with self._conn.withheld.writing(namespace, adds=bool(withheld)):
            await self._conn.query(
                namespace, "\n".join(statements), variables, operation="saving memories", write=True
            )
        self._written_since_checkpoint += len(rows) + len(sources)
        if self._written_since_checkpoint >= self._checkpoint_every:
            self._written_since_checkpoint = 0
            await self._conn.checkpoint()

    async def update_source(
        self, source: Source, *, expected_version: int, drop_text: bool
    ) -> None:
        namespace, space = await self._writable(source.org_id)
        if await self.get_source(source.org_id, source.source_id) is None:
            raise NotFoundError(ReasonCode.NOT_FOUND, f"no source with id {source.source_id!r}")
        chunks = await self.chunks_of_source(source.org_id, source.source_id)
        try:
            await corrections.update_source(
                self._conn, namespace, space, source, expected_version, drop_text, chunks
            )
        except UpstreamError:
            now = await self.get_source(source.org_id, source.source_id)
            if now is None or now.version != expected_version:
                raise ConflictError(
                    ReasonCode.SOURCE_CHANGED,
                    f"source {source.source_id} changed since it was read",
                ) from None
            raise

    async def cache_embeddings(
        self, org_id: str, model: str, vectors: Mapping[str, Vector]
    ) -> None:
        if not vectors:
            return
        namespace, _ = await self._writable(org_id)
        rows = [
            {
                "id": codec.cache_key(model, h),
                "model": model,
                "hash": h,
                "vec": codec.pack_vector(v),
            }
            for h, v in vectors.items()
        ]
        statements = []
        variables: dict[str, Any] = {}
        for n, batch in enumerate(_batches(rows)):
            variables[f"rows{n}"] = batch
            statements.append(_CACHE_INSERT.replace("{n}", str(n)))
        await self._conn.query(
            namespace,
            "\n".join(statements),
            variables,
            operation="writing the embedding cache",
            write=True,
        )

    async def drop_organization(self, org_id: str) -> None:
        namespace = codec.namespace_for(org_id)
        async with self._preparing:
            await self._conn.query(
                None,
                f"REMOVE NAMESPACE IF EXISTS {namespace};",
                operation="dropping an organisation",
                write=True,
            )
            self._spaces.pop(org_id, None)

    async def compact(self) -> CompactionReport:
        """Rewrite the embedded engine so deleted rows leave its files (see compaction)."""
        return await compact(self._conn)
