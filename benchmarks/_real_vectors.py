"""Real MiniLM vectors for the index benchmarks, read (never written) from the disk cache.

``benchmarks/_embed_cache.py`` appends every vector a LongMemEval run embedded
to one file per model (64 hex digits of the text's sha256, then the float32
vector). The ANN recall and stage-cost benchmarks need real vectors, not
perturbed copies: a graph index's recall depends on how the data clusters. This
reader maps the file read-only and ignores a torn tail (another process may be
appending to it), so it never modifies the cache.
"""

import os
from pathlib import Path

import numpy as np

__all__ = ["DEFAULT_CACHE", "RealVectors", "load_real_vectors"]

_HASH_BYTES = 64
#: the cache the LongMemEval benchmarks fill (git-ignored, beside the benchmarks)
DEFAULT_CACHE = Path(__file__).resolve().parent / "out" / "embedding-cache"
_FILE = "all-MiniLM-L6-v2-onnx-int8-384.bin"


class RealVectors:
    """``hashes[i]`` is the sha256 of the text whose vector is ``matrix[i]``."""

    def __init__(self, hashes: list[str], matrix: np.ndarray) -> None:
        self.hashes = hashes
        self.matrix = matrix
        self.row_of = {h: i for i, h in enumerate(hashes)}

    def __len__(self) -> int:
        return len(self.hashes)


def cache_file(directory: Path | None = None) -> Path:
    """The cache file: ``TESSERA_EMBED_CACHE`` (a directory) overrides the default."""
    chosen = directory or Path(os.environ.get("TESSERA_EMBED_CACHE", DEFAULT_CACHE))
    return chosen / _FILE


def load_real_vectors(
    directory: Path | None = None, limit: int | None = None, dimension: int = 384
) -> RealVectors:
    """Up to ``limit`` vectors in file order (whole records only)."""
    path = cache_file(directory)
    record = _HASH_BYTES + 4 * dimension
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    count = len(raw) // record
    if limit is not None:
        count = min(count, limit)
    rows = np.asarray(raw[: count * record]).reshape(count, record)
    hashes = [bytes(h).decode("ascii") for h in rows[:, :_HASH_BYTES]]
    matrix = rows[:, _HASH_BYTES:].copy().view("<f4").reshape(count, dimension)
    return RealVectors(hashes, matrix.astype(np.float32, copy=False))
