"""Snapshot files written through a running CRC-32: the manifest's size and checksum.

Why a module: the index's files (``snapshot_format``) and the episode postings'
(``episode_files``) are written the same way, one block at a time, so neither
holds a second copy of an array to checksum it.
"""

import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

import numpy as np

__all__ = ["Checked", "write_npy"]


class Checked:
    """A file written through a running CRC-32 (the manifest's checksum)."""

    def __init__(self, out: BinaryIO) -> None:
        self.out, self.crc, self.size = out, 0, 0

    def write(self, data: bytes) -> None:
        self.out.write(data)
        self.crc = zlib.crc32(data, self.crc)
        self.size += len(data)


def write_npy(
    path: Path, blocks: Iterable[np.ndarray], shape: tuple[int, ...], dtype: str
) -> dict[str, int]:
    with path.open("wb") as raw:
        out = Checked(raw)
        header = {"descr": dtype, "fortran_order": False, "shape": shape}
        np.lib.format.write_array_header_1_0(out, header)
        for block in blocks:
            out.write(np.ascontiguousarray(block, dtype=dtype).tobytes())
        raw.flush()
        return {"bytes": out.size, "crc32": out.crc}
