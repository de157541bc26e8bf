"""One organisation's in-process index as files: what a snapshot holds and how it is read back.

Why it is built this way: docs/decisions/internals.md#adaptersinprocesssnapshot_formatpy.
"""

import logging
from collections.abc import Callable, Collection, Iterable
from itertools import chain
from pathlib import Path

import msgspec
import numpy as np

from adapters.inprocess import episode_files
from adapters.inprocess.ann import AnnPolicy
from adapters.inprocess.bm25 import Bm25Postings, cut_tail
from adapters.inprocess.checked_files import Checked, write_npy
from adapters.inprocess.episode_rows import EpisodeRows
from adapters.inprocess.facets import FacetColumns
from adapters.inprocess.graph_file import (
    GRAPH_FILE,
    FrozenGraph,
    GraphMeta,
    read_graph,
    write_graph,
)
from adapters.inprocess.graph_retrain import retrain_reason
from adapters.inprocess.id_rows import IdRows, sorted_order
from adapters.inprocess.index import _OrgIndex
from adapters.inprocess.row_texts import RowTexts, read_blob
from application.ports.records import ScopeRef
from domain.scopes import MemoryScope

__all__ = [
    "FILES",
    "OPTIONAL_FILES",
    "STATE_FILE",
    "Frozen",
    "freeze",
    "read_index",
    "write_files",
]

_log = logging.getLogger("tessera.index")

#: the rows' ids, codes and columns, and the postings' terms
STATE_FILE = "state.msgpack"
#: the files of one snapshot, each checked against its manifest entry on open
FILES = ("vectors.npy", "postings_docs.npy", "postings_tfs.npy", "texts.bin", STATE_FILE)
#: files a snapshot may hold besides (checked the same way when listed)
OPTIONAL_FILES = (GRAPH_FILE, *episode_files.EPISODE_FILES)
_BLOCK_ROWS = 8_192
#: spare rows after the last in vectors.npy: at least this many, else an eighth of the rows
_SPARE_MIN = 1_024


def _capacity(size: int) -> int:
    return size + max(_SPARE_MIN, size // 8)


def _zeros(rows: int, dim: int) -> Iterable[np.ndarray]:
    for start in range(0, rows, _BLOCK_ROWS):
        yield np.zeros((min(_BLOCK_ROWS, rows - start), dim), dtype=np.float32)


class _State(msgspec.Struct, frozen=True, kw_only=True):
    size: int
    dimension: int | None
    ids: list[str]
    recall_table: dict[str, int]
    scope_table: list[tuple[str, str | None, int]]
    source_ids: list[str]
    removed: list[int]
    terms: list[str]
    sources_with: dict[str, list[int]]
    rows_with: dict[str, list[int]]
    #: per-row columns and the postings' offsets: name -> (dtype, raw bytes)
    arrays: dict[str, tuple[str, bytes]]
    #: the vector index file (an inverted file) beside (None: the snapshot holds none)
    graph: GraphMeta | None = None


class Frozen:
    """What ``freeze`` captured of an index at one moment (rows ``[0, size)``)."""

    def __init__(self, org: _OrgIndex) -> None:
        size = self.size = org.size
        self.vectors = org.vectors  # by reference: read in blocks, rows < size only
        self.dimension = None if org.vectors is None else int(org.vectors.shape[1])
        self.ids = org.ids[:size]
        self.texts = org.texts.frozen(size)
        self.recall_table = dict(org.recall_table)
        self.scope_table = [(str(r.scope), r.scope_key, c) for r, c in org.scope_table.items()]
        self.source_ids = org.source_ids[: len(org.source_ids)]
        self.removed = sorted(org.removed)
        self.orders = org.members.orders(size)
        self.postings = org.lexical.parts()
        self.lengths = org.lexical.lengths(size)
        self.sources_with = {k: sorted(v) for k, v in org.facets.sources_with.items()}
        self.rows_with = list(org.facets.rows_with.items())
        self.columns: dict[str, np.ndarray] = {
            "recall_codes": org.recall_codes[:size].copy(),
            "scope_codes": org.scope_codes[:size].copy(),
            "source_codes": org.source_codes[:size].copy(),
            "has_vector": org.has_vector[:size].copy(),
            "occurred": org.facets.occurred[:size].copy(),
        }
        graph = org.graph
        usable = graph is not None and graph.usable and 0 < graph.labelled <= size
        #: held (not growing) until ``release``: the writer thread reads it
        self.graph = FrozenGraph(graph) if usable and graph is not None else None
        #: the episode leg's postings (never changed once built), unless they counted a
        #: row removed since: then the next open derives them again
        episodes = org.episodes.postings
        if episodes is not None and not episode_files.persistable(episodes, org.removed):
            _log.info("episode postings left out of the snapshot: a row they count was removed")
            episodes = None
        self.episodes = episodes

    def release(self) -> None:
        """The files are written (or failed): the live graph may grow again."""
        if self.graph is not None:
            self.graph.release()


def freeze(org: _OrgIndex) -> Frozen:
    return Frozen(org)


def _raw(array: np.ndarray) -> tuple[str, bytes]:
    return (array.dtype.str, np.ascontiguousarray(array).tobytes())


def write_files(frozen: Frozen, folder: Path) -> dict[str, dict[str, int]]:
    """Write the snapshot's files into ``folder``; their sizes and checksums, by name."""
    size = frozen.size
    dim = frozen.dimension or 0
    vectors = frozen.vectors
    checks: dict[str, dict[str, int]] = {}
    capacity = 0 if vectors is None else _capacity(size)
    checks["vectors.npy"] = write_npy(
        folder / "vectors.npy",
        ()
        if vectors is None
        else chain(
            (vectors[i : min(i + _BLOCK_ROWS, size)] for i in range(0, size, _BLOCK_ROWS)),
            _zeros(capacity - size, dim),
        ),
        (capacity, dim),
        "<f4",
    )
    terms: list[str] = []
    doc_parts: list[np.ndarray] = []
    tf_parts: list[np.ndarray] = []
    offsets = [0]
    gone = np.zeros(size, dtype=bool)
    gone[[r for r in frozen.removed if r < size]] = True
    for term, base_docs, base_tfs, tail in frozen.postings:
        # rows are ascending; the arrays hold rows of this snapshot only, the tail may
        # have grown since the freeze: later rows are not this snapshot's
        tail_docs, tail_tfs = cut_tail(tail, size)
        rows = np.concatenate([base_docs, tail_docs])
        kept = ~gone[rows]  # a redacted or deleted row's words never reach the disk
        if not kept.any():
            continue
        tfs = np.concatenate([base_tfs, tail_tfs])
        terms.append(term)
        doc_parts.append(rows[kept])
        tf_parts.append(tfs[kept])
        offsets.append(offsets[-1] + int(kept.sum()))
    checks["postings_docs.npy"] = write_npy(
        folder / "postings_docs.npy", doc_parts, (offsets[-1],), "<i4"
    )
    checks["postings_tfs.npy"] = write_npy(
        folder / "postings_tfs.npy", tf_parts, (offsets[-1],), "<f4"
    )
    text_offsets = np.zeros(size + 1, dtype=np.int64)
    with (folder / "texts.bin").open("wb") as raw:
        out = Checked(raw)
        for row, record in enumerate(frozen.texts.records(size)):
            out.write(record)
            text_offsets[row + 1] = out.size
        checks["texts.bin"] = {"bytes": out.size, "crc32": out.crc}
    columns = {name: _raw(a) for name, a in frozen.columns.items()}
    columns["orders"] = _raw(frozen.orders)
    columns["lengths"] = _raw(np.asarray(frozen.lengths, dtype=np.int32))
    columns["offsets"] = _raw(np.asarray(offsets, dtype=np.int64))
    columns["text_offsets"] = _raw(text_offsets)
    # an open searches these instead of building a dict of every id (``id_rows``)
    columns["id_order"] = _raw(sorted_order(frozen.ids))
    columns["source_order"] = _raw(sorted_order(frozen.source_ids))
    state = _State(
        size=size,
        dimension=frozen.dimension,
        ids=frozen.ids,
        recall_table=frozen.recall_table,
        scope_table=frozen.scope_table,
        source_ids=frozen.source_ids,
        removed=[r for r in frozen.removed if r < size],
        terms=terms,
        sources_with=frozen.sources_with,
        rows_with={k: [r for r in rows[: len(rows)] if r < size] for k, rows in frozen.rows_with},
        arrays=columns,
        graph=None if frozen.graph is None else frozen.graph.meta,
    )
    if frozen.graph is not None:
        checks[GRAPH_FILE] = write_graph(frozen.graph, folder / GRAPH_FILE)
    if frozen.episodes is not None:
        checks.update(episode_files.write(frozen.episodes, folder))
    with (folder / STATE_FILE).open("wb") as raw:
        out = Checked(raw)
        out.write(msgspec.msgpack.encode(state))
        checks[STATE_FILE] = {"bytes": out.size, "crc32": out.crc}
    return checks


def _column(state: _State, name: str) -> np.ndarray:
    dtype, data = state.arrays[name]
    return np.frombuffer(data, dtype=np.dtype(dtype)).copy()


def _order(state: _State, name: str, size: int) -> memoryview | None:
    """A sorted order of ids (``id_rows.sorted_order``) as ``IdRows`` searches it; None
    where the snapshot holds none (written before it kept them): the ids go into a dict."""
    if name not in state.arrays:
        return None
    order = _column(state, name)
    if order.dtype != np.int32 or len(order) != size:
        raise ValueError(f"{name} does not match the snapshot's ids")
    if size and (int(order.min()) < 0 or int(order.max()) >= size):
        raise ValueError(f"{name} names a row the snapshot does not hold")
    return order.data


def _padded(column: np.ndarray, capacity: int) -> np.ndarray:
    out = np.zeros(capacity, dtype=column.dtype)
    out[: len(column)] = column
    return out


def _checked(name: str) -> bool:
    return True


def read_index(
    folder: Path,
    ann_policy: AnnPolicy | None = None,
    listed: Collection[str] = (),
    ready: Callable[[str], bool] = _checked,
) -> _OrgIndex:
    """The index the files in ``folder`` hold; raises on a bad file.

    ``ann_policy``: the vector leg's graph policy of the index it is restored into;
    ``listed``: the optional files its manifest lists; ``ready``: waits until a file is
    checked against the manifest, before it is parsed (``snapshot_files.FileChecks``),
    and says whether an optional one may be read (by default: checked before the call)."""
    ready(STATE_FILE)
    state = msgspec.msgpack.decode((folder / STATE_FILE).read_bytes(), type=_State)
    size = state.size
    org = _OrgIndex(ann_policy)
    org.ids = state.ids
    org.row_of = IdRows(state.ids, _order(state, "id_order", size))
    if state.dimension is not None:
        vectors = np.load(folder / "vectors.npy", mmap_mode="c")
        if (
            vectors.shape[0] < size
            or vectors.shape[1:] != (state.dimension,)
            or vectors.dtype != np.float32
        ):
            raise ValueError("vectors.npy does not match the snapshot's state")
        org.vectors = vectors
    org.recall_codes = _column(state, "recall_codes")
    org.recall_table = dict(state.recall_table)
    org.scope_codes = _column(state, "scope_codes")
    org.scope_table = {ScopeRef(MemoryScope(s), k): c for s, k, c in state.scope_table}
    org.source_codes = _column(state, "source_codes")
    org.source_ids = state.source_ids
    org.source_code_of = IdRows(
        state.source_ids, _order(state, "source_order", len(state.source_ids))
    )
    org.members = EpisodeRows(org.source_codes, _column(state, "orders"))
    org.texts = RowTexts(read_blob(folder / "texts.bin"), _column(state, "text_offsets"))
    docs = np.load(folder / "postings_docs.npy", mmap_mode="r")
    tfs = np.load(folder / "postings_tfs.npy", mmap_mode="r")
    if docs.dtype != np.int32 or tfs.dtype != np.float32 or docs.shape != tfs.shape:
        raise ValueError("the postings files do not match the snapshot's state")
    org.lexical = Bm25Postings.restored(
        _column(state, "lengths"), state.terms, _column(state, "offsets"), docs, tfs
    )
    facets = FacetColumns()
    facets.occurred = _column(state, "occurred")
    facets.sources_with = {k: set(v) for k, v in state.sources_with.items()}
    facets.rows_with = {k: list(v) for k, v in state.rows_with.items()}
    org.facets = facets
    org.has_vector = _column(state, "has_vector")
    org.removed = set(state.removed)
    columns = (org.recall_codes, org.scope_codes, org.source_codes, org.has_vector)
    if any(len(c) != size for c in columns) or len(org.texts) != size:
        raise ValueError("the snapshot's columns disagree on its row count")
    if org.vectors is not None and len(org.vectors) > size:  # the spare rows: capacity
        capacity = len(org.vectors)
        org.recall_codes = _padded(org.recall_codes, capacity)
        org.scope_codes = _padded(org.scope_codes, capacity)
        org.source_codes = _padded(org.source_codes, capacity)
        org.has_vector = _padded(org.has_vector, capacity)
    _restore_graph(org, folder, state.graph if GRAPH_FILE in listed and ready(GRAPH_FILE) else None)
    if all([name in listed and ready(name) for name in episode_files.EPISODE_FILES]):
        _restore_episodes(org, folder)
    org.ready = True
    return org


def _restore_episodes(org: _OrgIndex, folder: Path) -> None:
    """The snapshot's episode postings, mapped; left to a build (logged why) if unusable."""
    try:
        postings = episode_files.read(
            folder, org.size, org.source_codes, len(org.source_ids), org.removed
        )
    except (OSError, ValueError, KeyError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        _log.warning(
            "episode postings of a restored index (%d rows) unusable, derived again: %s",
            org.size,
            exc,
        )
        return
    org.episodes.adopt(postings)


def _restore_graph(org: _OrgIndex, folder: Path, meta: GraphMeta | None) -> None:
    """The snapshot's graph where this index wants one; rebuilt (logged why) if unusable."""
    policy = org.ann_policy
    if policy is None or org.vectors is None or org.size < policy.min_rows:
        return
    graph, why = read_graph(folder, meta, int(org.vectors.shape[1]), org.size, policy)
    if graph is None:
        _log.warning("rebuilding the vector index of a restored index (%d rows): %s", org.size, why)
    org.graph = graph
    org.graph_restored = graph is not None
    org.extend_graph()  # the rows past the saved graph, or the whole graph
    if graph is not None and (stale := retrain_reason(graph.lists, graph.trained_rows, org.size)):
        _log.info(
            "retraining the vector index of a restored index (%d rows) in the background, "
            "the restored one serving meanwhile: %s",
            org.size,
            stale,
        )
        org.start_retrain()
