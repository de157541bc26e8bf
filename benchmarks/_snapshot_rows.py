"""Rows for ``benchmarks/snapshot_open.py`` past what the data holds, and its recall check.

Why a module of its own: the benchmark builds up to a million rows from a
corpus of 186,222 chunks and ~186k cached real vectors; how the further rows
are made (varied turns, perturbed vectors) and how the vector leg is checked
against the exact scan are documented in the benchmark's docstring and kept here.
"""

from pathlib import Path
from typing import Any

__all__ = ["chunk_texts", "recall_vs_exact", "row_vectors"]

_CHUNK = 1000


def chunk_texts(turns: list[str], rows: int) -> list[str]:
    """The corpus's turns cut like the chunker, then its varied turns (``_variation``)."""
    from itertools import chain

    from benchmarks._variation import vary_turns

    out: list[str] = []
    for turn in chain(turns, vary_turns(turns)):
        out.extend(turn[i : i + _CHUNK] for i in range(0, len(turn), _CHUNK))
        if len(out) >= rows:
            return out[:rows]
    raise ValueError(f"the corpus gives {len(out)} chunks; {rows} asked")


def row_vectors(pool: Any, start: int, end: int, sigma: float) -> Any:
    """Rows ``[start, end)``: the pool's real vectors, past it perturbed copies."""
    import numpy as np

    n = np.arange(start, end)
    block = pool[n % len(pool)].astype(np.float32)
    copies = n >= len(pool)
    if copies.any():
        rng = np.random.default_rng(start)
        noise = rng.normal(0.0, sigma, size=(int(copies.sum()), block.shape[1]))
        moved = block[copies] + noise.astype(np.float32)
        block[copies] = moved / np.linalg.norm(moved, axis=1, keepdims=True)
    return block



async def recall_vs_exact(
    index: Any, org: Any, queries: list[list[float]], org_id: str, vectors_file: Path
) -> dict[str, Any]:
    """recall@10 of the vector leg against an exact product over the f32 matrix; how far
    its returned scores are from the f32 cosines; how often its top 10 is in exact order.

    The exact product reads the snapshot's ``vectors_file`` through a mapping of its own,
    dropped at the end, so it leaves the index's resident memory as it found it (an index
    just restored: its rows are the file's)."""
    import numpy as np

    from application.ports.records import CandidateFilter

    size = org.size
    matrix = np.load(vectors_file, mmap_mode="r")[:size]
    with_vector = org.has_vector[:size]
    found, in_order, drift = 0, 0, 0.0
    for vector in queries:
        org.cache.invalidate()
        query = np.asarray(vector, dtype=np.float32)
        query /= max(float(np.linalg.norm(query)), 1e-12)
        exact = matrix @ query
        exact[~with_vector] = -np.inf
        best = np.argsort(-exact, kind="stable")[:10]
        want = [org.ids[int(r)] for r in best]
        hits = await index.vector(org_id, vector, 10, CandidateFilter())
        got = [h.item_id for h in hits]
        found += len(set(got) & set(want))
        in_order += got == want
        for hit in hits:
            drift = max(drift, abs(hit.score - float(exact[org.row_of[hit.item_id]])))
    n = max(len(queries), 1)
    return {
        "queries": len(queries),
        "recall_at_10": round(found / (10 * n), 4),
        "top10_in_exact_order": round(in_order / n, 4),
        "max_score_difference": round(drift, 6),
    }
