"""An estimate of the memory one organisation's in-process index holds, by part.

Why an estimate: an operator deciding how many organisations one process can
hold (and what idle eviction buys) needs each organisation's share of the
process, which the process's RSS cannot split. Arrays count their bytes
exactly; Python objects (texts, ids, postings lists, episode members) are
sized from a sample of rows with ``sys.getsizeof`` and scaled, so a status
read stays cheap at a million rows. ``benchmarks/snapshot_open.py`` compares
the sum with the resident memory a restore really added. Parts named
``*_mapped`` are files mapped from the snapshot: their size, of which only
what was read is resident (clean file pages the kernel can take back).
"""

import sys
from itertools import islice
from typing import Any, Protocol

import numpy as np

from adapters.inprocess import ann
from adapters.inprocess import episode_postings as episodes
from adapters.inprocess.bm25 import Bm25Postings
from adapters.inprocess.episode_rows import EpisodeRows
from adapters.inprocess.facets import FacetColumns
from adapters.inprocess.id_rows import IdRows
from adapters.inprocess.row_texts import RowTexts

__all__ = ["Measured", "footprint"]


class Measured(Protocol):
    """What ``footprint`` reads of an organisation's index (``adapters.inprocess.index``)."""

    @property
    def size(self) -> int: ...
    @property
    def ids(self) -> list[str]: ...
    @property
    def row_of(self) -> IdRows: ...
    @property
    def vectors(self) -> np.ndarray | None: ...
    @property
    def recall_codes(self) -> np.ndarray: ...
    @property
    def scope_codes(self) -> np.ndarray: ...
    @property
    def source_codes(self) -> np.ndarray: ...
    @property
    def source_ids(self) -> list[str]: ...
    @property
    def source_code_of(self) -> IdRows: ...
    @property
    def has_vector(self) -> np.ndarray: ...
    @property
    def facets(self) -> FacetColumns: ...
    @property
    def texts(self) -> RowTexts: ...
    @property
    def lexical(self) -> Bm25Postings: ...
    @property
    def episodes(self) -> episodes.EpisodeLeg: ...
    @property
    def members(self) -> EpisodeRows: ...
    @property
    def graph(self) -> ann.VectorGraph | None: ...


_SAMPLE = 256
#: a list slot, a dict entry (key hash + pointers, at a typical load)
_SLOT, _DICT_ENTRY = 8, 80


def _rows_sample(size: int) -> list[int]:
    if size <= _SAMPLE:
        return list(range(size))
    return [int(r) for r in np.linspace(0, size - 1, _SAMPLE)]


def _mean(values: list[int]) -> float:
    return sum(values) / len(values) if values else 0.0


def _graph_bytes(graph: Any) -> tuple[int, int]:
    """The inverted file's bytes (held, mapped): its lists (f16 code and id per row) are
    mapped from the snapshot until a change copies them; the direct map and the
    centroids are always held."""
    if graph is None or graph.native is None:
        return 0, 0
    index = graph.native
    rows = int(index.ntotal)
    held = rows * 8 + int(index.nlist) * int(index.d) * 4  # direct map, centroids
    lists = rows * (int(index.code_size) + 8)
    return (held, lists) if graph.mapped else (held + lists, 0)


def _text_bytes(org: Measured) -> int:
    """The rows held as objects (written since the restore, or emptied), sampled; the
    rows decoded from the mapped blob cost their offset only."""
    texts = org.texts
    tail = len(texts) - texts.base_rows
    sample = [texts.base_rows + r for r in _rows_sample(tail)]
    sample += islice(texts.cleared, _SAMPLE)
    held = tail + len(texts.cleared)
    per_row = []
    for row in sample:
        t = texts[row]
        size = sys.getsizeof(t) + sys.getsizeof(t.text) + sys.getsizeof(t.source_id)
        if t.occurred_at is not None:
            size += sys.getsizeof(t.occurred_at)
        # the chunk id string is shared with ``ids``: counted there
        per_row.append(size)
    return int(held * (_SLOT + _mean(per_row))) + texts.offsets_bytes()


def footprint(org: Measured) -> dict[str, int]:
    """Estimated bytes held by ``org``, by part (``total`` is their sum)."""
    size = org.size
    rows = _rows_sample(size)
    id_bytes = _mean([sys.getsizeof(org.ids[r]) for r in rows])
    columns: list[np.ndarray] = [org.recall_codes, org.scope_codes, org.source_codes]
    columns += [org.has_vector, org.facets.occurred]
    mapped = isinstance(org.vectors, np.memmap)
    episode_postings = org.episodes.postings
    graph_held, graph_mapped = _graph_bytes(org.graph)
    parts = {
        # a restored matrix is mapped from the snapshot: file-backed, resident as read
        "vectors": 0 if org.vectors is None or mapped else int(org.vectors.nbytes),
        "vectors_mapped": int(org.vectors.nbytes) if org.vectors is not None and mapped else 0,
        "graph": graph_held,
        "graph_mapped": graph_mapped,
        "lexical": org.lexical.memory_bytes(),
        "lexical_mapped": org.lexical.mapped_bytes(),
        # derived from the row postings (adapters.inprocess.episode_postings), or mapped
        # from the snapshot (adapters.inprocess.episode_files)
        "episode_lexical": 0 if episode_postings is None else episode_postings.nbytes(),
        "episode_lexical_mapped": (
            0 if episode_postings is None else episode_postings.mapped_bytes()
        ),
        "texts": _text_bytes(org),
        "texts_mapped": org.texts.mapped_bytes(),
        "ids": int(size * (_SLOT + id_bytes)) + org.row_of.held_bytes(_DICT_ENTRY),
        # each episode's rows as arrays (adapters.inprocess.episode_rows); its id (a
        # string of ~64 bytes) in ``source_ids`` and its lookup in ``source_code_of``
        "episodes": org.members.nbytes
        + len(org.source_ids) * (_SLOT + 64)
        + org.source_code_of.held_bytes(_DICT_ENTRY),
        "columns": sum(int(c.nbytes) for c in columns),
    }
    parts["total"] = sum(parts.values())
    return parts
