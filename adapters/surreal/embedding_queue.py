"""The embedding queue on SurrealDB: each chunk's ``embed_state`` is the durable queue.

Kept apart from the store's other queries so each module stays small; the
store class mixes it in. A pending chunk has ``embed_state = 'pending'`` and
no vector, a dead-lettered one ``'failed'``; an indexed one has NONE (as every
row written before the lane existed). ``chunk_embed_state`` indexes the state,
so listing and counting the queue reads only queued rows.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from surrealdb import RecordID

from adapters.surreal import change_log, codec
from adapters.surreal.connection import SurrealConnection
from application.memory.checks import check_model
from application.ports.records import EmbeddingSpace, Vector
from application.ports.writes import EmbeddingCounts, PendingChunk
from domain.errors import ConflictError, UpstreamError
from domain.reasons import ReasonCode

__all__ = ["SurrealEmbeddingQueue"]

_PENDING = (
    "SELECT meta::id(id) AS id, text, content_hash, created_at, created_tz, embed_attempts "
    "FROM chunk WHERE embed_state = 'pending' ORDER BY id LIMIT $limit;"
)
#: per chunk, in one transaction: the vector only if the row still exists, and the cached
#: vector of its text only then (a chunk deleted meanwhile leaves no vector behind); each
#: text hash and source is read inside it: a read before it cost the lane one more round
#: trip a batch (a sixth of an ingest's time in the store, benchmarks/RESULTS.md)
_ATTACH = """BEGIN TRANSACTION;
FOR $r IN $rows {
    LET $hash = (UPDATE $r.cid SET emb = $r.emb, vec = $r.vec, embed_state = NONE,
        embed_attempts = NONE RETURN VALUE content_hash)[0];
    IF $hash != NONE {
        INSERT INTO embedding_cache {id: <KEY>, model: $model, hash: $hash,
            vec: $r.vec} ON DUPLICATE KEY UPDATE vec = $input.vec RETURN NONE;
    };
};
LET $changed = array::distinct((SELECT VALUE type::record('source', source_id) FROM $ids));
<STAMP>
COMMIT TRANSACTION;
SELECT VALUE meta::id(id) FROM $ids WHERE embed_state IS NONE AND vec IS NOT NONE;""".replace(
    "<KEY>", codec.CACHE_KEY_SQL
)
_FAILED = """BEGIN TRANSACTION;
UPDATE $ids SET embed_attempts = (embed_attempts OR 0) + 1 WHERE embed_state = 'pending'
    RETURN NONE;
LET $dead = (UPDATE $ids SET embed_state = 'failed'
    WHERE embed_state = 'pending' AND embed_attempts >= $dead_after RETURN VALUE meta::id(id));
COMMIT TRANSACTION;
RETURN $dead;"""
_REQUEUE = (
    "UPDATE chunk SET embed_state = 'pending', embed_attempts = 0 "
    "WHERE embed_state = 'failed' RETURN VALUE meta::id(id);"
)
_COUNTS = """RETURN {
    pending: (SELECT count() AS n FROM chunk WHERE embed_state = 'pending' GROUP ALL),
    failed: (SELECT count() AS n FROM chunk WHERE embed_state = 'failed' GROUP ALL),
    oldest: (SELECT created_at FROM chunk WHERE embed_state = 'pending'
        ORDER BY created_at LIMIT 1)
};"""


def _count(rows: Any) -> int:
    return int(rows[0]["n"]) if rows else 0


class SurrealEmbeddingQueue:
    _conn: SurrealConnection
    native_search: bool

    async def _readable(self, org_id: str) -> str | None:
        raise NotImplementedError

    async def _writable(self, org_id: str) -> tuple[str, EmbeddingSpace]:
        raise NotImplementedError

    async def pending_embeddings(self, org_id: str, limit: int) -> list[PendingChunk]:
        namespace = await self._readable(org_id)
        if namespace is None or limit < 1:
            return []
        (rows,) = await self._conn.query(
            namespace, _PENDING, {"limit": int(limit)}, operation="listing pending embeddings"
        )
        try:
            return [
                PendingChunk(
                    chunk_id=str(row["id"]),
                    text=row["text"],
                    content_hash=row["content_hash"],
                    created_at=codec.datetime_from_row(row, "created_at"),
                    attempts=int(row.get("embed_attempts") or 0),
                )
                for row in rows or []
            ]
        except (KeyError, TypeError, ValueError) as exc:
            raise UpstreamError(
                ReasonCode.STORE_FAILED,
                f"a pending chunk row could not be decoded ({type(exc).__name__})",
            ) from exc

    async def attach_vectors(
        self, org_id: str, model: str, vectors: Mapping[str, Vector]
    ) -> list[str]:
        if not vectors:
            return []
        namespace, space = await self._writable(org_id)
        check_model(org_id, model, space)  # embedded before a re-embed switched it
        for vector in vectors.values():
            if len(vector) != space.dimension:
                raise ConflictError(
                    ReasonCode.EMBEDDER_MISMATCH,
                    f"a {len(vector)}-dimensional vector; organisation {org_id} stores "
                    f"{space.dimension} dimensions",
                )
        floats = self.native_search  # else ``$r.emb`` is NONE: no float copy (``float_vectors``)
        rows = [
            {
                "cid": RecordID("chunk", cid),
                **({"emb": [float(x) for x in vector]} if floats else {}),
                "vec": codec.pack_vector(vector),
            }
            for cid, vector in vectors.items()
        ]
        variables = {
            "rows": rows,
            "model": model,
            "key_prefix": codec.cache_key_prefix(model),
            "ids": [r["cid"] for r in rows],
        }
        *_, attached = await self._conn.query(
            namespace,
            _ATTACH.replace("<STAMP>", change_log.ADVANCE + "\n" + change_log.STAMP),
            variables,
            operation="attaching vectors",
            write=True,
        )
        return sorted(str(cid) for cid in attached or [])

    async def embedding_failed(
        self, org_id: str, chunk_ids: Sequence[str], dead_after: int
    ) -> list[str]:
        namespace = await self._readable(org_id)
        if namespace is None or not chunk_ids:
            return []
        *_, dead = await self._conn.query(
            namespace,
            _FAILED,
            {
                "ids": [RecordID("chunk", cid) for cid in dict.fromkeys(chunk_ids)],
                "dead_after": int(dead_after),
            },
            operation="recording failed embeddings",
            write=True,
        )
        return sorted(str(cid) for cid in dead or [])

    async def requeue_failed(self, org_id: str) -> int:
        namespace = await self._readable(org_id)
        if namespace is None:
            return 0
        (moved,) = await self._conn.query(
            namespace, _REQUEUE, operation="requeueing dead-lettered embeddings", write=True
        )
        return len(moved or [])

    async def embedding_counts(self, org_id: str) -> EmbeddingCounts:
        namespace = await self._readable(org_id)
        if namespace is None:
            return EmbeddingCounts()
        (answer,) = await self._conn.query(
            namespace, _COUNTS, operation="counting the embedding queue"
        )
        oldest = answer["oldest"] or []
        return EmbeddingCounts(
            pending=_count(answer["pending"]),
            failed=_count(answer["failed"]),
            oldest_pending_at=codec.datetime_from_row(oldest[0], "created_at") if oldest else None,
        )
