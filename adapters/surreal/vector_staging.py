"""Re-embed staging on SurrealDB: the next model's vectors in ``staged_vector`` (migration 9).

Why a table beside ``chunk`` rather than a second field on it: search, the
index rebuild and the change catch-up all read ``chunk.vec``, so nothing they
do can pick up a vector of the model that is not served yet; and the switch
is one transaction that copies the staged rows over, records the new space
and drops the rest. A staged row has the chunk's key and its source id, so a
redaction or delete removes it with the chunk (``corrections._DROP_TEXT``).

Mixed into ``SurrealMemoryStore`` as the embedding queue is.
"""

from collections.abc import Mapping
from typing import Any

import msgspec
from surrealdb import RecordID

from adapters.surreal import codec
from adapters.surreal.connection import SurrealConnection
from application.operations.reembed.records import ReembedJob, StagingChunk, StagingPage
from application.ports.records import EmbeddingSpace, Vector
from domain.errors import ConflictError, UpstreamError
from domain.reasons import ReasonCode

__all__ = ["SurrealVectorStaging"]

_READ_FIRST = "SELECT VALUE meta::id(id) FROM chunk ORDER BY id LIMIT $limit;"
_READ_AFTER = "SELECT VALUE meta::id(id) FROM chunk WHERE id > $after ORDER BY id LIMIT $limit;"
_HAVE = "SELECT VALUE meta::id(id) FROM $ids WHERE model = $model;"
_TEXTS = "SELECT meta::id(id) AS id, text, content_hash FROM $ids;"
#: only for chunks that still exist, in one transaction (a chunk deleted meanwhile
#: leaves no staged vector of its text behind)
_STAGE = """BEGIN TRANSACTION;
FOR $r IN $rows {
    LET $src = (SELECT VALUE source_id FROM $r.cid);
    IF array::len($src) > 0 {
        UPSERT $r.sid SET model = $model, source_id = $src[0], emb = $r.emb, vec = $r.vec
            RETURN NONE;
    };
};
COMMIT TRANSACTION;
SELECT count() AS n FROM $sids WHERE model = $model GROUP ALL;"""
_COUNT = "SELECT count() AS n FROM staged_vector WHERE model = $model GROUP ALL;"
_JOB = "SELECT VALUE body FROM reembed_job:current;"
_SAVE_JOB = "UPSERT reembed_job:current SET body = $body RETURN NONE;"
_DROP_JOB = "DELETE reembed_job:current RETURN NONE;"
#: all or nothing; throws while a chunk lacks its staged vector (nothing changes then)
_SWITCH = """BEGIN TRANSACTION;
LET $missing = (SELECT VALUE meta::id(id) FROM chunk
    WHERE type::record('staged_vector', meta::id(id)).model != $model LIMIT 1);
IF array::len($missing) > 0 { THROW "reembed_incomplete" };
FOR $s IN (SELECT meta::id(id) AS k, <FLOATS>vec FROM staged_vector WHERE model = $model) {
    UPDATE type::record('chunk', $s.k) SET emb = $s.emb, vec = $s.vec, embed_state = NONE,
        embed_attempts = NONE RETURN NONE;
};
DELETE staged_vector RETURN NONE;
DELETE embedding_cache WHERE model != $model RETURN NONE;
UPSERT meta:embedding SET model = $model, dimension = $dim RETURN NONE;
COMMIT TRANSACTION;"""
#: a store kept for the in-process index keeps no float copy of a vector (``float_vectors``):
#: ``$s.emb`` is then NONE, which removes the old model's copy of a row written before
_SWITCH_NATIVE = _SWITCH.replace("<FLOATS>", "emb, ")
_SWITCH_PACKED = _SWITCH.replace("<FLOATS>", "")
_REMOVE_HNSW = "REMOVE INDEX IF EXISTS chunk_emb ON chunk;"
_DEFINE_HNSW = (
    "DEFINE INDEX IF NOT EXISTS chunk_emb ON chunk FIELDS emb "
    "HNSW DIMENSION {dim} DIST COSINE TYPE F32;"
)
_MISSING = (
    "SELECT count() AS n FROM chunk "
    "WHERE type::record('staged_vector', meta::id(id)).model != $model GROUP ALL;"
)

_JOB_DECODER = msgspec.json.Decoder(ReembedJob)


def _count(rows: Any) -> int:
    return int(rows[0]["n"]) if rows else 0


class SurrealVectorStaging:
    _conn: SurrealConnection
    _spaces: dict[str, EmbeddingSpace]
    native_search: bool

    async def space_of(self, org_id: str) -> EmbeddingSpace | None:
        raise NotImplementedError

    async def _readable(self, org_id: str) -> str | None:
        raise NotImplementedError

    async def recorded_space(self, org_id: str) -> EmbeddingSpace | None:
        return await self.space_of(org_id)

    async def reembed_job(self, org_id: str) -> ReembedJob | None:
        namespace = await self._readable(org_id)
        if namespace is None:
            return None
        (rows,) = await self._conn.query(namespace, _JOB, operation="reading re-embed progress")
        if not rows:
            return None
        try:
            return _JOB_DECODER.decode(rows[0])
        except (msgspec.DecodeError, TypeError) as exc:
            raise UpstreamError(
                ReasonCode.STORE_FAILED, "the re-embed progress could not be decoded"
            ) from exc

    async def save_reembed_job(self, org_id: str, job: ReembedJob | None) -> None:
        namespace = await self._readable(org_id)
        if namespace is None:
            return
        await self._conn.query(
            namespace,
            _DROP_JOB if job is None else _SAVE_JOB,
            None if job is None else {"body": msgspec.json.encode(job).decode()},
            operation="saving re-embed progress",
            write=True,
        )

    async def unstaged_chunks(
        self, org_id: str, model: str, after: str | None, limit: int
    ) -> StagingPage:
        namespace = await self._readable(org_id)
        if namespace is None or limit < 1:
            return StagingPage(chunks=[], last=None)
        variables: dict[str, Any] = {"limit": int(limit)}
        if after is not None:
            variables["after"] = RecordID("chunk", after)
        (read,) = await self._conn.query(
            namespace,
            _READ_FIRST if after is None else _READ_AFTER,
            variables,
            operation="reading chunks to re-embed",
        )
        ids = [str(k) for k in read or []]
        last = ids[-1] if len(ids) >= limit else None
        if not ids:
            return StagingPage(chunks=[], last=None)
        (have,) = await self._conn.query(
            namespace,
            _HAVE,
            {"ids": [RecordID("staged_vector", k) for k in ids], "model": model},
            operation="reading staged vectors",
        )
        staged = {str(k) for k in have or []}
        missing = [k for k in ids if k not in staged]
        if not missing:
            return StagingPage(chunks=[], last=last)
        (rows,) = await self._conn.query(
            namespace,
            _TEXTS,
            {"ids": [RecordID("chunk", k) for k in missing]},
            operation="reading chunk texts to re-embed",
        )
        try:
            chunks = [
                StagingChunk(
                    chunk_id=str(row["id"]), text=row["text"], content_hash=row["content_hash"]
                )
                for row in rows or []
            ]
        except (KeyError, TypeError) as exc:
            raise UpstreamError(
                ReasonCode.STORE_FAILED, "a chunk to re-embed could not be decoded"
            ) from exc
        chunks.sort(key=lambda c: c.chunk_id)
        return StagingPage(chunks=chunks, last=last)

    async def stage_vectors(
        self, org_id: str, space: EmbeddingSpace, vectors: Mapping[str, Vector]
    ) -> int:
        if not vectors:
            return 0
        namespace = await self._readable(org_id)
        if namespace is None:
            return 0
        for vector in vectors.values():
            if len(vector) != space.dimension:
                raise ConflictError(
                    ReasonCode.EMBEDDER_MISMATCH,
                    f"a {len(vector)}-dimensional vector for {space.dimension} dimensions",
                )
        rows = [
            {
                "cid": RecordID("chunk", cid),
                "sid": RecordID("staged_vector", cid),
                "emb": [float(x) for x in vector],
                "vec": codec.pack_vector(vector),
            }
            for cid, vector in vectors.items()
        ]
        *_, counted = await self._conn.query(
            namespace,
            _STAGE,
            {"rows": rows, "model": space.model, "sids": [r["sid"] for r in rows]},
            operation="staging re-embedded vectors",
            write=True,
        )
        return _count(counted)

    async def staged_count(self, org_id: str, model: str) -> int:
        namespace = await self._readable(org_id)
        if namespace is None:
            return 0
        (rows,) = await self._conn.query(
            namespace, _COUNT, {"model": model}, operation="counting staged vectors"
        )
        return _count(rows)

    async def switch_space(self, org_id: str, space: EmbeddingSpace) -> int:
        namespace = await self._readable(org_id)
        if namespace is None:
            return 0
        held = await self.space_of(org_id)
        if held == space and not await self.staged_count(org_id, space.model):
            return 0
        # SurrealDB's own HNSW index is built for one width, and the engine refused to drop
        # and define it inside the switch's transaction (measured on 3.2, embedded): it is
        # removed before and defined again after, for whichever space is then recorded
        # (native search only: for that moment the native vector leg answers nothing)
        native = self.native_search and held is not None
        if native:
            await self._vector_index(namespace, None)
        variables = {"model": space.model, "dim": space.dimension}
        try:
            await self._conn.query(
                namespace,
                _SWITCH_NATIVE if self.native_search else _SWITCH_PACKED,
                variables,
                operation="switching the embedding model",
                write=True,
            )
        except UpstreamError:
            if native and held is not None:
                await self._vector_index(namespace, held.dimension)
            (rows,) = await self._conn.query(
                namespace, _MISSING, {"model": space.model}, operation="counting unstaged chunks"
            )
            missing = _count(rows)
            if missing:
                raise ConflictError(
                    ReasonCode.REEMBED_INCOMPLETE,
                    f"{missing} chunk(s) have no vector of {space.model} yet",
                ) from None
            raise
        self._spaces[org_id] = space
        if native:
            await self._vector_index(namespace, space.dimension)
        (rows,) = await self._conn.query(
            namespace, "SELECT count() AS n FROM chunk GROUP ALL;", operation="counting chunks"
        )
        return _count(rows)

    async def _vector_index(self, namespace: str, dimension: int | None) -> None:
        """Define SurrealDB's HNSW index on chunk vectors for ``dimension`` (None: remove it)."""
        sql = _REMOVE_HNSW if dimension is None else _DEFINE_HNSW.replace("{dim}", str(dimension))
        await self._conn.query(namespace, sql, operation="redefining the vector index", write=True)

    async def discard_staged(self, org_id: str) -> None:
        namespace = await self._readable(org_id)
        if namespace is not None:
            await self._conn.query(
                namespace,
                "DELETE staged_vector RETURN NONE;",
                operation="discarding staged vectors",
                write=True,
            )
