"""What one organisation's searches can share, per filter, across writes.

Why it is built this way: docs/decisions/internals.md#adaptersinprocessquery_cachepy.
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


#: rows a series of writes changed (summed) past which their caches are dropped instead:
#: moving each costs a few operations per kept filter, rebuilding a pass over every row
FOLLOW_ROWS = 50_000


class QueryCache:
    def __init__(self, settle: Callable[[np.ndarray], None] | None = None) -> None:
        """``settle(changed)``: moves the caches by the rows written since the last lookup
        (``changed``: the older rows, sorted; rows appended are past each mask's length),
        through ``follow``; None: a write drops them."""
        self.version = 0
        self._settle_with = settle
        #: the older rows each write since the last lookup changed (none: nothing pending)
        self._pending: list[np.ndarray] | None = None
        self._pending_rows = 0
        self._masks: OrderedDict[Hashable, np.ndarray] = OrderedDict()
        self._products: OrderedDict[Hashable, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._walks: OrderedDict[Hashable, tuple[np.ndarray, np.ndarray] | None] = OrderedDict()
        #: derived per-filter values (e.g. BM25 episode lengths), dropped with the masks
        self._derived: OrderedDict[Hashable, object] = OrderedDict()

    def invalidate(self) -> None:
        """Any write: rows, vectors, recall or scope codes may have changed."""
        self.version += 1
        self._pending, self._pending_rows = None, 0
        self._masks.clear()
        self._products.clear()
        self._walks.clear()
        self._derived.clear()

    def written(self, changed: np.ndarray) -> None:
        """A write the index can follow: older rows ``changed`` (and any rows appended) may
        be admitted otherwise now. Nothing moves until the next lookup (``_settle``), so a
        run of writes with no search between them (an import) costs one move, not one each."""
        if self._settle_with is None:
            self.invalidate()
            return
        self.version += 1
        self._pending = [] if self._pending is None else self._pending
        self._pending.append(changed)
        self._pending_rows += len(changed)
        if self._pending_rows > FOLLOW_ROWS:  # e.g. a space's lifecycle: rebuilding costs less
            self.invalidate()

    def _settle(self) -> None:
        pending, settle = self._pending, self._settle_with
        if pending is None or settle is None:
            return
        self._pending, self._pending_rows = None, 0
        changed = np.unique(np.concatenate(pending)) if pending else np.empty(0, np.int64)
        settle(changed.astype(np.int64))

    def follow(
        self,
        remask: Callable[[Hashable, np.ndarray], np.ndarray],
        rederive: Callable[[Hashable, object, Moved], object],
    ) -> None:
        """Moves the caches (called by ``settle``): each kept mask becomes ``remask(filter,
        mask)``, then each derived value ``rederive(key, value, moved)`` (None: dropped),
        with ``moved``: filter -> (old mask, new mask). Per-query results are dropped."""
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
        self._settle()
        return iter(list(self._masks.items()))

    def derived_items(self) -> Iterator[tuple[Hashable, object]]:
        """The kept derived values (tests: each against a fresh computation)."""
        self._settle()
        return iter(list(self._derived.items()))

    @staticmethod
    def _key(where: object) -> Hashable | None:
        try:
            hash(where)
        except TypeError:  # a filter holding an unhashable value: computed every time
            return None
        return where

    def mask(self, where: object, compute: Callable[[], np.ndarray]) -> np.ndarray:
        self._settle()
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
        self._settle()
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
        self._settle()
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
        self._settle()
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
