"""The vector leg's approximate index (``ann.VectorGraph``: a faiss inverted file) as a
snapshot file, read back instead of rebuilt.

Why it is built this way: docs/decisions/internals.md#adaptersinprocessgraph_filepy.
"""

import importlib
import os
import zlib
from pathlib import Path
from typing import Any

import msgspec

from adapters.inprocess.ann import AnnPolicy, VectorGraph

__all__ = ["GRAPH_FILE", "GRAPH_KIND", "FrozenGraph", "GraphMeta", "read_graph", "write_graph"]

GRAPH_FILE = "graph.faiss"
_COPY_CHUNK = 8 << 20
#: what ``VectorGraph`` builds; a file of another kind is rebuilt, never reinterpreted
GRAPH_KIND = "faiss-IndexIVFScalarQuantizer-fp16-flat-ip"


class GraphMeta(msgspec.Struct, frozen=True, kw_only=True):
    """What the state file says of the graph file beside it."""

    kind: str
    #: rows ``[0, labelled)`` are in the graph, labelled by row number
    labelled: int
    #: rows in the graph whose vector changed after they joined (scanned exactly)
    stale: list[int]
    #: rows the lists were trained on (0: not said, as by releases before the inverted file)
    trained: int = 0


class FrozenGraph:
    """A graph held still for one snapshot write; ``release`` (always) lets it grow again."""

    def __init__(self, graph: VectorGraph) -> None:
        graph.holds += 1
        self.graph = graph
        self.meta = GraphMeta(
            kind=GRAPH_KIND,
            labelled=graph.labelled,
            stale=sorted(graph.stale),
            trained=graph.trained_rows,
        )
        #: the mapped file to copy (a descriptor of its own: the graph may copy its lists
        #: into memory and close its descriptor while this write runs)
        self.source = None if graph.source is None else os.dup(graph.source)
        self._held = True

    def release(self) -> None:
        if self._held:
            self._held = False
            self.graph.holds -= 1
            if self.source is not None:
                os.close(self.source)


def write_graph(frozen: FrozenGraph, path: Path) -> dict[str, int]:
    """Write the graph to ``path``; its size and CRC-32 (the manifest's check).

    A graph still mapped from the snapshot it was restored from cannot have changed
    (the mapping is read only), so its file is copied byte for byte: faiss would write
    a mapped index as a reference to that file, which the next snapshot deletes."""
    faiss: Any = importlib.import_module("faiss")
    crc, size = 0, 0
    if frozen.source is not None:
        with path.open("wb") as out:
            while chunk := os.pread(frozen.source, _COPY_CHUNK, size):
                out.write(chunk)
                crc = zlib.crc32(chunk, crc)
                size += len(chunk)
            out.flush()
        return {"bytes": size, "crc32": crc}
    with path.open("wb") as out:

        def write(data: bytes) -> int:
            nonlocal crc, size
            out.write(data)
            crc = zlib.crc32(data, crc)
            size += len(data)
            return len(data)

        faiss.write_index(frozen.graph.native, faiss.PyCallbackIOWriter(write))
        out.flush()
    return {"bytes": size, "crc32": crc}


def read_graph(
    folder: Path, meta: GraphMeta | None, dimension: int, rows: int, policy: AnnPolicy
) -> tuple[VectorGraph | None, str]:
    """The snapshot's graph, or None and why it cannot be used (the caller rebuilds)."""
    path = folder / GRAPH_FILE
    if meta is None or not path.is_file():
        return None, "the snapshot holds no graph"
    if meta.kind != GRAPH_KIND:
        return None, f"the snapshot's graph is of another kind ({meta.kind})"
    if meta.labelled > rows or any(r >= meta.labelled for r in meta.stale):
        return None, "the snapshot's graph does not match its rows"
    if meta.trained < 1:
        return None, "the snapshot's graph does not say the rows it was trained on"
    faiss: Any = importlib.import_module("faiss")
    # a mapped index keeps a descriptor of its file: its next snapshot copies from it
    source = os.open(path, os.O_RDONLY) if policy.map_lists else None
    try:
        if policy.map_lists:
            # the lists stay in the file (read-only pages), the rest is read into memory
            index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP)
            # no prefetch threads: faiss starts 32 per search of mapped lists, which made
            # a 128-list search at 1M rows 5.6 ms wall / 7.9 CPU-ms against 2.7 / 2.6
            # without them (the pages are in memory or the page cache)
            faiss.downcast_InvertedLists(index.invlists).prefetch_nthread = 0
        else:
            index = faiss.read_index(str(path))
    except RuntimeError:  # faiss reports a malformed file this way
        _close(source)
        return None, "the snapshot's graph file is unreadable"
    if (
        type(index).__name__ != "IndexIVFScalarQuantizer"
        or int(index.ntotal) != meta.labelled
        or bool(index.by_residual)
        or int(index.direct_map.type) != int(faiss.DirectMap.Array)
        or int(index.d) != dimension
        or int(index.metric_type) != int(faiss.METRIC_INNER_PRODUCT)
    ):
        _close(source)
        return None, "the snapshot's graph does not match its rows"
    graph = VectorGraph.restored(
        index, policy, meta.labelled, set(meta.stale), meta.trained, source=source
    )
    return graph, ""


def _close(source: int | None) -> None:
    if source is not None:
        os.close(source)
