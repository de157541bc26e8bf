"""Which rows each episode (source) of an organisation holds, and each row's turn order.

Why arrays, not a dict of lists: the index held one Python list per episode and
one tuple per row. The cyclic garbage collector walks every tracked container
in each full collection, which a service taking writes runs now and then, on
the event loop, inside whichever search it falls in: at 100k rows the lists
were 61k of the 175k objects walked (benchmarks/RESULTS.md), and they grow with
the rows, where the rest does not.
Arrays are not tracked, cost ~24 bytes a row instead of ~100, and a restore
groups them with one sort instead of a Python loop over every row.

The rows known at the last grouping are grouped by episode code (one stable
sort: each episode's rows in row order); rows added since sit in a dict of
lists, folded into the arrays once they outnumber them (amortised like a
list's growth: at 1M rows one fold sorts 2M codes, 0.2-0.4 s, once).
"""

import numpy as np

__all__ = ["EpisodeRows"]

#: rows added since the arrays were grouped, at least, before they are grouped again
_MIN_FOLD = 65_536
_NO_ROWS = np.empty(0, dtype=np.int64)


class EpisodeRows:
    """Episode code -> its rows (row order), with a turn order per row (-1: none)."""

    def __init__(
        self,
        codes: np.ndarray | None = None,
        orders: np.ndarray | None = None,
        min_fold: int = _MIN_FOLD,
    ) -> None:
        """``codes``/``orders``: each row's episode code and turn order (a restore);
        ``min_fold``: rows added, at least, before they join the arrays."""
        self._min_fold = min_fold
        codes = _NO_ROWS if codes is None else np.array(codes, dtype=np.int64)  # owned
        given = _NO_ROWS if orders is None else np.asarray(orders, dtype=np.int64)
        if len(given) != len(codes):
            raise ValueError("an order is wanted for every row")
        self._orders = given.copy()
        self._size = len(codes)
        self._tail: dict[int, list[int]] = {}
        self._tail_rows = 0
        self._group(codes)

    def _group(self, codes: np.ndarray) -> None:
        self._codes = codes
        self._sorted = np.argsort(codes, kind="stable")
        counts = np.bincount(codes) if len(codes) else _NO_ROWS
        self._starts = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=self._starts[1:])
        self._tail = {}
        self._tail_rows = 0

    def __len__(self) -> int:
        return self._size

    def add(self, code: int, order: int, row: int) -> None:
        """Row ``row`` (the next one: rows are added in order) of episode ``code``."""
        if row != self._size:
            raise ValueError(f"row {row} added where row {self._size} was next")
        if row == len(self._orders):
            self._orders = np.resize(self._orders, max(1024, 2 * row))
        self._orders[row] = order
        self._size += 1
        self._tail.setdefault(code, []).append(row)
        self._tail_rows += 1
        if self._tail_rows >= max(self._min_fold, len(self._codes)):
            self._fold()

    def _fold(self) -> None:
        codes = np.empty(self._size, dtype=np.int64)
        codes[: len(self._codes)] = self._codes
        for code, rows in self._tail.items():
            codes[rows] = code
        self._group(codes)

    def rows(self, code: int) -> list[int]:
        """The episode's rows, in row order (those replaced by a re-index included)."""
        if 0 <= code < len(self._starts) - 1:
            grouped: list[int] = self._sorted[self._starts[code] : self._starts[code + 1]].tolist()
        else:
            grouped = []
        return grouped + self._tail.get(code, [])

    def in_turn_order(self, code: int) -> list[int]:
        """The episode's rows by turn order (rows without one first), then row."""
        orders = self._orders
        return sorted(self.rows(code), key=lambda row: (int(orders[row]), row))

    def orders(self, size: int) -> np.ndarray:
        """Each of the first ``size`` rows' turn order (a copy: a snapshot's column)."""
        return self._orders[:size].copy()

    @property
    def nbytes(self) -> int:
        """The arrays' bytes (the rows added since the last grouping are few)."""
        arrays = (self._orders, self._codes, self._sorted, self._starts)
        return sum(a.nbytes for a in arrays) + self._tail_rows * 8
