"""Each id's latest position in a list of ids: the rows of chunk ids, the codes of episodes.

Why it is built this way: docs/decisions/internals.md#adaptersinprocessid_rowspy.
"""

from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence

import numpy as np

__all__ = ["IdRows", "sorted_order"]


def sorted_order(ids: Sequence[str]) -> np.ndarray:
    """The positions of ``ids`` in the order of their values, equal values in ascending
    positions (what ``IdRows`` searches); int32, as a snapshot keeps it."""
    return np.asarray(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int32)


class IdRows(Mapping[str, int]):
    """``ids[row] -> row``, the latest row where an id is held twice.

    Rows set here are held in a dict; the rows a snapshot restored are found by a binary
    search over their sorted order (``sorted_order``), so an open builds no dict."""

    def __init__(self, ids: Sequence[str] = (), order: Sequence[int] | None = None) -> None:
        """``ids``: the list whose positions are looked up (it may grow: positions past
        ``order``'s are the ones set here); ``order``: ``sorted_order`` of its first
        ``len(order)`` ids (None: those ids go into the dict now)."""
        self._ids = ids
        self._order: Sequence[int] = ()
        self._set: dict[str, int] = {}
        if order is None:
            self._set = {key: row for row, key in enumerate(ids)}  # the latest row wins
        else:
            self._order = order

    def get(self, key: str, default: int | None = None) -> int | None:  # type: ignore[override]
        row = self._set.get(key)
        if row is not None:
            return row
        order = self._order
        if order:
            at = bisect_right(order, key, key=self._ids.__getitem__)
            if at and self._ids[order[at - 1]] == key:
                return order[at - 1]
        return default

    def __getitem__(self, key: str) -> int:
        row = self.get(key)
        if row is None:
            raise KeyError(key)
        return row

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __setitem__(self, key: str, row: int) -> None:
        self._set[key] = row

    def held_bytes(self, dict_entry: int) -> int:
        """What the lookup holds beside the ids: ``dict_entry`` bytes an id set here,
        four an id restored."""
        return len(self._set) * dict_entry + 4 * len(self._order)

    def _all(self) -> dict[str, int]:
        restored = {self._ids[row]: row for row in self._order}
        return restored | self._set

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())
