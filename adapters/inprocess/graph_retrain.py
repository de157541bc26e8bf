"""A restored vector index whose lists no longer fit its rows, retrained while it serves.

Why it is built this way: docs/decisions/internals.md#adaptersinprocessgraph_retrainpy.
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
