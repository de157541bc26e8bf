"""What one organisation's searches can share, per filter, across writes.

A search calls the index five to seven times (turn and episode legs, then
candidate reads and episode members), each with the same ``CandidateFilter``;
building the filter's row mask is a pass over every row of the organisation
(``np.isin`` over the recall and scope codes), and the turn and episode vector
legs each computed the same product of the query with every row. Both depend
only on the rows and the filter (and the query vector), so they are kept here,
keyed by filter. A write bumps ``version``; one the index can follow row by row
(``follow``: rows appended, a source's rows hidden or removed) moves each kept
mask and each per-filter value it can update exactly, and drops the rest and
every per-query result; any other write drops everything (``invalidate``).
Why follow rather than drop: a user writes while an agent searches, and at 1M
rows rebuilding the masks and the values made from them cost each search after
a write ~2x a search without one (RESULTS, issue 18). Readers of a cached array
must not modify it (they are returned read-only, so a stray in-place write
fails loudly); a followed mask is a new array, so a reader holding the old one
keeps a consistent view.

Bounded: a few filters (one per reader seen lately) and a few query vectors.
"""

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import TypeVar, cast

import numpy as np

__all__ = ["QueryCache"]

T = TypeVar("T")
#: filter -> (its mask before a write, after it)
Moved = dict[Hashable, tuple[np.ndarray, np.ndarray]]

#: masks kept (one per distinct caller filter); a miss costs one pass over the rows
_MASKS = 16
#: query products kept (the turn leg and the episode leg of one query share one)
_PRODUCTS = 4
#: vector-index searches kept, likewise (a query's turn and episode vector legs share one)
_WALKS = 4


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


class QueryCache:
    def __init__(self) -> None:
        self.version = 0
        self._masks: OrderedDict[Hashable, np.ndarray] = OrderedDict()
        self._products: OrderedDict[Hashable, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._walks: OrderedDict[Hashable, tuple[np.ndarray, np.ndarray] | None] = OrderedDict()
        #: derived per-filter values (e.g. BM25 episode lengths), dropped with the masks
        self._derived: OrderedDict[Hashable, object] = OrderedDict()

    def invalidate(self) -> None:
        """Any write: rows, vectors, recall or scope codes may have changed."""
        self.version += 1
        self._masks.clear()
        self._products.clear()
        self._walks.clear()
        self._derived.clear()

    def follow(
        self,
        remask: Callable[[Hashable, np.ndarray], np.ndarray],
        rederive: Callable[[Hashable, object, Moved], object],
    ) -> None:
        """A write the index can follow: each kept mask becomes ``remask(filter, mask)``,
        then each derived value ``rederive(key, value, moved)`` (None: dropped), with
        ``moved``: filter -> (old mask, new mask). Per-query results are dropped."""
        self.version += 1
        self._products.clear()
        self._walks.clear()
        moved: Moved = {}
        for key, mask in self._masks.items():
            moved[key] = (mask, _frozen(remask(key, mask)))
        for key, (_, mask) in moved.items():
            self._masks[key] = mask
        for key, value in list(self._derived.items()):
            kept = rederive(key, value, moved)
            if kept is None:
                del self._derived[key]
            else:
                self._derived[key] = kept

    def masks(self) -> Iterator[tuple[Hashable, np.ndarray]]:
        """The kept (filter, mask) pairs (tests: each against a fresh build)."""
        return iter(list(self._masks.items()))

    def derived_items(self) -> Iterator[tuple[Hashable, object]]:
        """The kept derived values (tests: each against a fresh computation)."""
        return iter(list(self._derived.items()))

    @staticmethod
    def _key(where: object) -> Hashable | None:
        try:
            hash(where)
        except TypeError:  # a filter holding an unhashable value: computed every time
            return None
        return where

    def mask(self, where: object, compute: Callable[[], np.ndarray]) -> np.ndarray:
        key = self._key(where)
        if key is None:
            return compute()
        found = self._masks.get(key)
        if found is None:
            found = self._masks[key] = _frozen(compute())
            if len(self._masks) > _MASKS:
                self._masks.popitem(last=False)
        else:
            self._masks.move_to_end(key)
        return found

    def derived(self, key: Hashable, compute: Callable[[], T]) -> T:
        """A value computed from a cached mask (``key`` names both the value and filter)."""
        try:
            found = self._derived.get(key)
        except TypeError:
            return compute()
        if found is None:
            found = self._derived[key] = compute()
            if len(self._derived) > _MASKS:
                self._derived.popitem(last=False)
        return cast(T, found)

    def product(
        self,
        where: object,
        query: np.ndarray,
        compute: Callable[[], tuple[np.ndarray, np.ndarray]],
    ) -> tuple[np.ndarray, np.ndarray]:
        """(rows, similarities) of one normalised query vector under one filter."""
        base = self._key(where)
        if base is None:
            return compute()
        key = (base, query.tobytes())
        found = self._products.get(key)
        if found is None:
            rows, sims = compute()
            found = self._products[key] = (_frozen(rows), _frozen(sims))
            if len(self._products) > _PRODUCTS:
                self._products.popitem(last=False)
        return found

    def walk(
        self,
        where: object,
        query: np.ndarray,
        compute: Callable[[], tuple[np.ndarray, np.ndarray] | None],
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """A vector-index search's (rows, similarities) of one normalised query under one
        filter (None: the index declined, kept too); kept apart from ``derived``, whose few
        slots hold the filter's own values."""
        base = self._key(where)
        if base is None:
            return compute()
        key = (base, query.tobytes())
        if key in self._walks:
            return self._walks[key]
        found = compute()
        if found is not None:
            found = (_frozen(found[0]), _frozen(found[1]))
        self._walks[key] = found
        if len(self._walks) > _WALKS:
            self._walks.popitem(last=False)
        return found
