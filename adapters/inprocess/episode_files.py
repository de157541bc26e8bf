"""The episode postings as optional snapshot files: mapped on open instead of built.

Why it is built this way: docs/decisions/internals.md#adaptersinprocessepisode_filespy.
"""

import dataclasses
import zlib
from collections.abc import Iterable, Set
from pathlib import Path

import msgspec
import numpy as np

from adapters.inprocess.checked_files import Checked, write_npy
from adapters.inprocess.episode_postings import EpisodePostings

__all__ = ["EPISODE_FILES", "FileSink", "mapped", "persistable", "read", "write"]

GROUPS_FILE = "episode_groups.npy"
TFS_FILE = "episode_tfs.npy"
STATE_FILE = "episode_state.msgpack"
EPISODE_FILES = (GROUPS_FILE, TFS_FILE, STATE_FILE)
#: postings read per step of the checks and the writes (bounds their temporaries)
_BLOCK = 1 << 22
#: bytes of a streamed array's .npy header (written last, once its length is known)
_HEADER = 128


class _EpisodeState(msgspec.Struct, frozen=True, kw_only=True):
    rows: int
    terms: list[str]
    #: counted, counts, offsets, max_tfs: name -> (dtype, raw bytes)
    arrays: dict[str, tuple[str, bytes]]
    build_cpu_s: float


def _counts_removed(counted: np.ndarray, removed: Set[int]) -> bool:
    gone = [r for r in removed if r < len(counted)]
    return bool(gone) and bool(counted[np.asarray(gone, dtype=np.int64)].any())


def persistable(postings: EpisodePostings, removed: Set[int]) -> bool:
    """False when the build counted a row removed since (its words would reach the disk)."""
    return not _counts_removed(postings.counted, removed)


def _header(dtype: str, n: int) -> bytes:
    """A .npy 1.0 header of a 1-d array, padded to ``_HEADER`` bytes (the format's own
    padding: spaces before the newline)."""
    text = repr({"descr": dtype, "fortran_order": False, "shape": (n,)})
    body = text.ljust(_HEADER - 11) + "\n"
    return b"\x93NUMPY\x01\x00" + len(body).to_bytes(2, "little") + body.encode("latin1")


class FileSink:
    """The packed arrays written as a build makes them (``episode_postings.BlockSink``),
    into ``folder``; listed in no manifest until ``add_files``, so never read before."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._n = 0
        self._out = [(folder / GROUPS_FILE).open("wb"), (folder / TFS_FILE).open("wb")]
        for out in self._out:
            out.seek(_HEADER)

    def add(self, groups: np.ndarray, tfs: np.ndarray) -> None:
        self._out[0].write(np.ascontiguousarray(groups, dtype="<i4").tobytes())
        self._out[1].write(np.ascontiguousarray(tfs, dtype="<u2").tobytes())
        self._n += len(groups)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        for out, dtype in zip(self._out, ("<i4", "<u2"), strict=True):
            out.seek(0)
            out.write(_header(dtype, self._n))
            out.close()
        groups = np.load(self.folder / GROUPS_FILE, mmap_mode="r")
        tfs = np.load(self.folder / TFS_FILE, mmap_mode="r")
        if groups.shape != (self._n,) or tfs.shape != (self._n,):
            raise ValueError("the streamed episode postings did not read back")
        return groups, tfs


def _from(array: np.ndarray, path: Path) -> bool:
    """``array`` is mapped from ``path`` (streamed there by a ``FileSink``)."""
    return (
        isinstance(array, np.memmap)
        and array.filename is not None
        and (Path(array.filename) == path)
    )


def _file_check(path: Path) -> dict[str, int]:
    crc = 0
    with path.open("rb") as f:
        while block := f.read(1 << 22):
            crc = zlib.crc32(block, crc)
    return {"bytes": path.stat().st_size, "crc32": crc}


def _blocks(array: np.ndarray) -> Iterable[np.ndarray]:
    for start in range(0, len(array), _BLOCK):
        yield array[start : start + _BLOCK]


def write(postings: EpisodePostings, folder: Path) -> dict[str, dict[str, int]]:
    """The three files in ``folder``; their sizes and checksums, by name. Arrays a
    ``FileSink`` streamed there already are checksummed as they are, not rewritten."""
    groups_path, tfs_path = folder / GROUPS_FILE, folder / TFS_FILE
    if _from(postings.groups, groups_path) and _from(postings.tfs, tfs_path):
        checks = {GROUPS_FILE: _file_check(groups_path), TFS_FILE: _file_check(tfs_path)}
    else:
        checks = {
            GROUPS_FILE: write_npy(
                groups_path, _blocks(postings.groups), (len(postings.groups),), "<i4"
            ),
            TFS_FILE: write_npy(
                tfs_path,
                _blocks(postings.tfs),
                (len(postings.tfs),),
                postings.tfs.dtype.newbyteorder("<").str,
            ),
        }
    arrays = {
        "counted": postings.counted,
        "counts": postings.counts.astype(np.int64),
        "offsets": postings.offsets.astype(np.int64),
        "max_tfs": postings.max_tfs.astype(np.float32),
    }
    state = _EpisodeState(
        rows=postings.rows,
        terms=list(postings.terms),
        arrays={k: (a.dtype.str, np.ascontiguousarray(a).tobytes()) for k, a in arrays.items()},
        build_cpu_s=postings.build_cpu_s,
    )
    with (folder / STATE_FILE).open("wb") as raw:
        out = Checked(raw)
        out.write(msgspec.msgpack.encode(state))
        checks[STATE_FILE] = {"bytes": out.size, "crc32": out.crc}
    return checks


def mapped(postings: EpisodePostings, folder: Path) -> EpisodePostings:
    """``postings`` with its packed arrays mapped from the files ``write`` just put in
    ``folder`` (same content: the heap copies can go)."""
    if _from(postings.groups, folder / GROUPS_FILE) and _from(postings.tfs, folder / TFS_FILE):
        return postings
    groups = np.load(folder / GROUPS_FILE, mmap_mode="r")
    tfs = np.load(folder / TFS_FILE, mmap_mode="r")
    if groups.shape != postings.groups.shape or tfs.shape != postings.tfs.shape:
        raise ValueError("the episode postings files differ from what was written")
    return dataclasses.replace(postings, groups=groups, tfs=tfs)


def _array(state: _EpisodeState, name: str) -> np.ndarray:
    dtype, data = state.arrays[name]
    return np.frombuffer(data, dtype=np.dtype(dtype)).copy()


def _check_groups(path: Path, groups: np.memmap, offsets: np.ndarray, n_groups: int) -> None:
    """Every code below ``n_groups`` and ascending within each term: read through the
    file in blocks, not the mapping, so the check leaves none of it resident."""
    starts = offsets[1:-1]
    with path.open("rb") as f:
        for begin in range(0, len(groups), _BLOCK):
            # one code before the block: the step across its first boundary is checked too
            first = max(begin - 1, 0)
            f.seek(groups.offset + 4 * first)
            block = np.fromfile(f, dtype="<i4", count=min(begin + _BLOCK, len(groups)) - first)
            if len(block) and (int(block.min()) < 0 or int(block.max()) >= n_groups):
                raise ValueError("an episode code is out of range")
            falls = np.flatnonzero(block[1:] <= block[:-1]) + first + 1
            if not _among(falls, starts):
                raise ValueError("a term's episodes do not ascend")


def _among(values: np.ndarray, ascending: np.ndarray) -> bool:
    """Whether every value is in ``ascending``: each looked up where it would go (a
    ``np.isin`` per block hashed every term start again, ~0.13 s at 1M rows)."""
    if not len(values):
        return True
    at = np.searchsorted(ascending, values)
    return bool((at < len(ascending)).all()) and bool((ascending[at] == values).all())


def read(
    folder: Path, size: int, source_codes: np.ndarray, n_groups: int, removed: Set[int]
) -> EpisodePostings:
    """The postings of ``folder`` for an index of ``size`` rows whose episode codes are
    ``source_codes`` (``n_groups`` of them); raises ValueError (or a decode error) when
    anything disagrees."""
    state = msgspec.msgpack.decode((folder / STATE_FILE).read_bytes(), type=_EpisodeState)
    groups = np.load(folder / GROUPS_FILE, mmap_mode="r")
    tfs = np.load(folder / TFS_FILE, mmap_mode="r")
    counted, counts = _array(state, "counted"), _array(state, "counts")
    offsets, max_tfs = _array(state, "offsets"), _array(state, "max_tfs")
    rows = state.rows
    if groups.dtype != np.int32 or tfs.dtype not in (np.uint16, np.float32):
        raise ValueError("the episode postings have other types")
    if groups.ndim != 1 or groups.shape != tfs.shape:
        raise ValueError("the episode postings' arrays differ in length")
    if not 0 <= rows <= size or counted.dtype != np.bool_ or len(counted) != rows:
        raise ValueError("the episode postings cover other rows than the snapshot")
    if len(offsets) != len(state.terms) + 1 or len(max_tfs) != len(state.terms):
        raise ValueError("the episode postings' offsets do not fit their terms")
    if offsets[0] != 0 or offsets[-1] != len(groups) or bool((np.diff(offsets) <= 0).any()):
        raise ValueError("the episode postings' offsets do not fit their arrays")
    if bool(counts[n_groups:].any()):
        raise ValueError("the episode postings count episodes the snapshot does not hold")
    # a build after a catch-up knew the episodes it added (none of their rows counted)
    counts = counts[:n_groups]
    if not np.array_equal(counts, np.bincount(source_codes[:rows][counted], minlength=len(counts))):
        raise ValueError("the episode postings counted other rows than the snapshot holds")
    if _counts_removed(counted, removed):
        raise ValueError("the episode postings count a removed row")
    terms = {term: n for n, term in enumerate(state.terms)}
    if len(terms) != len(state.terms):
        raise ValueError("the episode postings list a term twice")
    _check_groups(folder / GROUPS_FILE, groups, offsets, len(counts))
    return EpisodePostings(
        rows=rows,
        counted=counted,
        counts=counts,
        terms=terms,
        offsets=offsets,
        groups=groups,
        tfs=tfs,
        max_tfs=max_tfs,
        build_cpu_s=state.build_cpu_s,
    )
