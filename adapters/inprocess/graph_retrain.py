"""A restored vector index whose lists no longer fit its rows, retrained while it serves.

Why not on open: training the lists and filling them costs ~65 s at 1M rows on
this machine (RESULTS, "Finer lists"), against a snapshot open of ~5-7 s. An
organisation that grew ``ann.REBUILD_GROWTH`` times past the rows its lists
were trained on, or whose lists are coarser than this release makes (a
snapshot of an earlier release: 2,048 lists at 1M rows where 4,096 find more
for the same CPU), is opened with the index it has, which answers as before,
and a daemon thread at low priority builds the new one beside it.

The thread reads the vector matrix as it was handed (the rows then, which
have a vector, which were removed: copies of the flags, the matrix itself by
reference), so it never waits on the event loop. What changes meanwhile is
noted here by the index (``changed``: rows given a vector or a new one;
``forgotten``: rows of removed sources) and applied to the new index before it
replaces the old one (``_OrgIndex.adopt_retrained``, on the event loop): a
forgotten row's codes are zeroed in it as in the old one (no snapshot ever
carries a removed source's vector), a changed row is scored exactly until the
next rebuild. Rows written after the thread started join the new index from
the exactly scanned tail, as after any write. A build that fails is logged and
the old index keeps serving.
"""

import logging
import threading
import time
from collections.abc import Collection

import numpy as np

from adapters.embedders.background import lower_this_thread
from adapters.inprocess.ann import REBUILD_GROWTH, AnnPolicy, VectorGraph, lists_for
from adapters.inprocess.episode_postings import release_free_heap

__all__ = ["GraphRetrain", "retrain_reason"]

_log = logging.getLogger("tessera.index")
_NONE = np.empty((0, 0), dtype=np.float32)


def retrain_reason(lists: int, trained_rows: int, rows: int) -> str:
    """Why an index of ``lists`` lists trained on ``trained_rows`` rows should be trained
    again for ``rows`` rows ("" if it should not)."""
    if rows >= REBUILD_GROWTH * trained_rows:
        return f"its lists were trained on {trained_rows} of its {rows} rows"
    wanted = lists_for(trained_rows)
    if 2 * lists <= wanted:
        return f"it has {lists} lists where this release makes {wanted}"
    return ""


class GraphRetrain:
    """One retrain of an organisation's vector index: started once, adopted once."""

    def __init__(
        self,
        vectors: np.ndarray,
        has_vector: np.ndarray,
        size: int,
        removed: Collection[int],
        policy: AnnPolicy,
    ) -> None:
        self._vectors = vectors
        self._has_vector = has_vector[:size].copy()
        self._removed = frozenset(removed)
        self._policy = policy
        self.size = size
        #: rows given a vector (or another one) since the start: scored exactly once adopted
        self.changed: set[int] = set()
        #: rows of sources removed since the start: their codes zeroed before adoption
        self.forgotten: set[int] = set()
        self.result: VectorGraph | None = None
        self._done = threading.Event()

    @property
    def finished(self) -> bool:
        return self._done.is_set()

    def start(self, *, threaded: bool = True) -> None:
        """Build in a daemon thread (a shutdown does not wait for it: the old index was
        saved as it is), or here (``threaded=False``: tests)."""
        if not threaded:
            self.run()
            return
        threading.Thread(target=self._in_background, name="graph-retrain", daemon=True).start()

    def _in_background(self) -> None:
        lower_this_thread()  # requests keep their cores; faiss's threads inherit the priority
        self.run()

    def run(self) -> None:
        began = time.monotonic()
        try:
            graph = VectorGraph(int(self._vectors.shape[1]), self._policy)
            graph.extend(self._vectors, self._has_vector, self.size, self._removed)
        except Exception:  # never fatal: the old index keeps serving
            _log.exception("retraining the vector index of %d rows failed", self.size)
        else:
            self.result = graph
            _log.info(
                "vector index retrained in the background: %d rows, %d lists, %.1f s",
                graph.labelled,
                graph.lists,
                time.monotonic() - began,
            )
        finally:
            self._vectors = self._has_vector = _NONE  # the thread's hold on the old matrix
            release_free_heap()  # the training sample and the blocks, from this thread's arena
            self._done.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Until the build ends (tests, benchmarks); whether it has."""
        return self._done.wait(timeout)
