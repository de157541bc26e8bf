"""Vectors for the bulk fill: real ones cached on disk, perturbed ones to reach the count.

Embedding 100k chunks with MiniLM on two cores takes well over half an hour,
so the fill embeds a base set of real chunk texts once (cached under
``benchmarks/out`` as .npy, keyed by model and sha256 of the text) and gives
the remaining chunks a real vector lightly perturbed with gaussian noise and
renormalised. Which chunks got which is reported by the benchmark.
"""

import os
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from application.ports import Embedder
from domain.hashing import content_hash

__all__ = ["FillVectors", "VectorCache", "fill_vectors"]

_EMBED_BATCH = 128
_SAVE_EVERY = 8  # batches


class VectorCache:
    """hash -> vector for one model, as two parallel .npy files."""

    def __init__(self, directory: Path, model: str, dimension: int) -> None:
        stem = re.sub(r"[^A-Za-z0-9._-]", "_", model)
        self._hash_file = directory / f"{stem}.hashes.npy"
        self._vector_file = directory / f"{stem}.vectors.npy"
        self._dimension = dimension
        self._rows: dict[str, int] = {}
        self._hashes: list[str] = []
        self._vectors = np.zeros((0, dimension), dtype=np.float32)
        if self._hash_file.exists() and self._vector_file.exists():
            hashes = np.load(self._hash_file)
            vectors = np.load(self._vector_file)
            if vectors.shape == (len(hashes), dimension):
                self._hashes = [str(h) for h in hashes]
                self._vectors = vectors.astype(np.float32, copy=False)
                self._rows = {h: i for i, h in enumerate(self._hashes)}

    def __contains__(self, text_hash: str) -> bool:
        return text_hash in self._rows

    def get(self, text_hash: str) -> np.ndarray:
        row: np.ndarray = self._vectors[self._rows[text_hash]]
        return row

    def put(self, hashes: Sequence[str], vectors: np.ndarray) -> None:
        fresh = [i for i, h in enumerate(hashes) if h not in self._rows]
        if not fresh:
            return
        start = len(self._hashes)
        for offset, i in enumerate(fresh):
            self._rows[hashes[i]] = start + offset
            self._hashes.append(hashes[i])
        self._vectors = np.concatenate([self._vectors, vectors[fresh].astype(np.float32)])

    def save(self) -> None:
        self._hash_file.parent.mkdir(parents=True, exist_ok=True)
        for path, array in (
            (self._hash_file, np.asarray(self._hashes, dtype="<U64")),
            (self._vector_file, self._vectors),
        ):
            tmp = path.with_name(path.name + ".tmp.npy")
            np.save(tmp, array)
            os.replace(tmp, path)


@dataclass(frozen=True)
class FillVectors:
    matrix: np.ndarray
    real: int
    perturbed: int
    from_disk_cache: int
    embedded_now: int
    embed_seconds: float


async def _embed_missing(
    embedder: Embedder, cache: VectorCache, texts: dict[str, str]
) -> tuple[int, float]:
    missing = [(h, t) for h, t in texts.items() if h not in cache]
    started = time.perf_counter()
    for number, start in enumerate(range(0, len(missing), _EMBED_BATCH), start=1):
        batch = missing[start : start + _EMBED_BATCH]
        vectors = await embedder.embed([t for _, t in batch])
        cache.put([h for h, _ in batch], np.asarray(vectors, dtype=np.float32))
        done = start + len(batch)
        if number % _SAVE_EVERY == 0 or done == len(missing):
            cache.save()
            rate = done / max(time.perf_counter() - started, 1e-9)
            print(f"  embedded {done}/{len(missing)} real texts ({rate:.1f}/s)", file=sys.stderr)
    return len(missing), time.perf_counter() - started


async def fill_vectors(
    embedder: Embedder,
    cache: VectorCache,
    texts: Sequence[str],
    real: int,
    sigma: float,
    seed: int = 7,
) -> FillVectors:
    """One unit vector per text: real for the first ``real`` texts, perturbed for the rest."""
    real = min(real, len(texts))
    if real < 1:
        raise ValueError("at least one real vector is needed")
    hashes = [content_hash(t) for t in texts]
    wanted = {h: t for h, t in zip(hashes[:real], texts[:real], strict=True)}
    cached_before = sum(1 for h in wanted if h in cache)
    embedded, seconds = await _embed_missing(embedder, cache, wanted)
    dimension = cache.get(hashes[0]).shape[0]
    matrix = np.empty((len(texts), dimension), dtype=np.float32)
    for i in range(real):
        matrix[i] = cache.get(hashes[i])
    extra = len(texts) - real
    if extra:
        rng = np.random.default_rng(seed)
        base = matrix[np.arange(extra) % real]
        noisy = base + rng.normal(0.0, sigma, size=base.shape).astype(np.float32)
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        matrix[real:] = noisy
    return FillVectors(
        matrix=matrix,
        real=real,
        perturbed=extra,
        from_disk_cache=cached_before,
        embedded_now=embedded,
        embed_seconds=round(seconds, 1),
    )
