"""Derived records' vectors held in process for a short while, as one matrix per table.

Why: SurrealDB's brute-force ``vector::similarity::cosine`` decodes every
row's vector on every search; at 400 entities of 384 dimensions that was
the costliest read of a derived search (``benchmarks/reflection.py``, see
benchmarks/RESULTS.md). The rows change only when records
are promoted, embedded or forgotten, so this process keeps them as a numpy
matrix and answers with one product.

Fresh enough: an entry is dropped at any write this process makes to the
organisation's graph, and in any case after ``ttl`` seconds (another
process writing the same store, or an organisation dropped behind the
graph's back, is seen within that time; the cache holds vectors and ids
only, never text). A hit is still only a candidate: derived recall reads
every record back from the store and gates it on its sources.
"""

import time
from collections.abc import Awaitable, Callable, Sequence

import numpy as np

from adapters.surreal.held_tables import HeldTables
from application.ports.records import ScoredId, Vector

__all__ = ["Matrix", "VectorMatrices"]


class Matrix:
    """The rows of one table and model: ids, space codes, unit vectors."""

    __slots__ = ("codes", "ids", "spaces", "vectors")

    def __init__(self, rows: Sequence[tuple[str, str, Vector]]) -> None:
        self.ids = [r[0] for r in rows]
        #: each row's space as a small integer (``codes``: space code -> integer): the space
        #: filter compares integers, not one Python string per row
        self.codes: dict[str, int] = {}
        spaces = [self.codes.setdefault(r[1], len(self.codes)) for r in rows]
        self.spaces = np.array(spaces, dtype=np.int32)
        dims = len(rows[0][2]) if rows else 0
        matrix = np.array([r[2] for r in rows], dtype=np.float32).reshape(len(rows), dims)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        self.vectors = matrix / np.where(norms == 0, 1.0, norms)

    def nearest(self, vector: Vector, limit: int, spaces: frozenset[str] | None) -> list[ScoredId]:
        if not self.ids or len(vector) != self.vectors.shape[1] or limit < 1:
            return []
        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        if norm == 0:
            return []
        scores = self.vectors @ (query / norm)
        rows = np.arange(len(self.ids))
        if spaces is not None:
            wanted = [self.codes[s] for s in spaces if s in self.codes]
            rows = np.flatnonzero(np.isin(self.spaces, wanted))
        if rows.size > limit:
            # only the rows scoring at least the limit-th best can be among the best (ties
            # then go by id, below): sorting every row in Python took 8.4 CPU-ms a search
            # at 3,300 entities of 384 dimensions, this 2.1 (benchmarks/RESULTS.md)
            kept = scores[rows]
            bar = np.partition(kept, kept.size - limit)[kept.size - limit]
            rows = rows[kept >= bar]
        ranked = sorted(rows.tolist(), key=lambda i: (-float(scores[i]), self.ids[i]))
        return [ScoredId(self.ids[i], float(scores[i])) for i in ranked[:limit]]


class VectorMatrices:
    """One matrix per (namespace, table, model), held as ``held_tables.HeldTables`` holds
    values: dropped at ``forget`` (this process's writes) and after ``ttl`` seconds."""

    def __init__(self, ttl: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self._held = HeldTables(ttl, clock)

    async def get(
        self,
        key: tuple[str, str, str],
        load: Callable[[], Awaitable[list[tuple[str, str, Vector]]]],
    ) -> Matrix:
        """The matrix of (namespace, table, model), loaded when missing or too old."""

        async def build(_: float) -> Matrix:
            return Matrix(await load())

        matrix: Matrix = await self._held.get(key, build)
        return matrix

    def forget(self, namespace: str) -> None:
        """The organisation's graph changed: its matrices are read again next time."""
        self._held.forget(namespace)
