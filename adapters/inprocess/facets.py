"""The in-process index's filter columns: what ``filters`` narrow a search by.

A search filter (domain.search_filters) reaches the index as groups of facets
and a time range. Source facets (type, mail participants, metadata) are held
once per source, as posting sets of source codes; a turn's speaker is held per
row; ``occurred_at`` is a float column. A filter becomes one boolean mask over
the rows, ANDed with the policy's, before any scoring: the top k are taken
among matching rows only, so a selective filter never starves a result list.
"""

import math
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from application.ports.records import IndexEntry
from domain.search_filters import SearchFilters, speaker_facets

__all__ = ["FacetColumns"]


def _epoch(moment: datetime | None) -> float:
    return math.nan if moment is None else moment.timestamp()


class FacetColumns:
    def __init__(self) -> None:
        self.occurred = np.full(0, math.nan, dtype=np.float64)
        #: source facet -> codes of the sources that have it
        self.sources_with: dict[str, set[int]] = {}
        #: speaker facet -> rows spoken by that speaker
        self.rows_with: dict[str, list[int]] = {}

    def add(self, start: int, entries: Sequence[IndexEntry], source_codes: np.ndarray) -> set[int]:
        """Rows ``start ..`` are ``entries``; ``source_codes`` holds each row's source code.
        Returns the source codes that gained a facet (their older rows may now pass a
        filter they did not)."""
        widened: set[int] = set()
        end = start + len(entries)
        if len(self.occurred) < end:
            grown = np.full(max(end, 2 * len(self.occurred)), math.nan, dtype=np.float64)
            grown[: len(self.occurred)] = self.occurred
            self.occurred = grown
        for offset, entry in enumerate(entries):
            row = start + offset
            self.occurred[row] = _epoch(entry.occurred_at)
            code = int(source_codes[row])
            for facet in entry.facets:
                having = self.sources_with.setdefault(facet, set())
                if code not in having:
                    having.add(code)
                    widened.add(code)
            for facet in speaker_facets(entry.speaker):
                self.rows_with.setdefault(facet, []).append(row)
        return widened

    def mask(
        self,
        narrow: SearchFilters,
        size: int,
        source_codes: np.ndarray,
        source_count: int,
        space_ok: np.ndarray,
        rows: slice | np.ndarray | None = None,
    ) -> np.ndarray:
        """Whether the filter admits each of ``rows`` (a slice or row numbers of ``[0,
        size)``; None: all of them); ``space_ok``: whether it admits each one's space."""
        rows = slice(0, size) if rows is None else rows
        keep = space_ok.copy()
        if narrow.has_time:
            moments = self.occurred[:size][rows]
            with np.errstate(invalid="ignore"):  # NaN (unknown time) compares false
                inside = ~np.isnan(moments)
                if narrow.occurred_from is not None:
                    inside &= moments >= narrow.occurred_from.timestamp()
                if narrow.occurred_to is not None:
                    inside &= moments <= narrow.occurred_to.timestamp()
            keep &= inside
        codes = source_codes[:size][rows]
        for group in narrow.facet_groups():
            sources = np.zeros(source_count, dtype=bool)
            for facet in group:
                having = self.sources_with.get(facet)
                if having:
                    sources[np.fromiter(having, dtype=np.int64, count=len(having))] = True
            passing = sources[codes]
            spoken = np.zeros(size, dtype=bool)
            for facet in group:
                by = self.rows_with.get(facet)
                if by:
                    spoken[np.asarray(by, dtype=np.int64)] = True
            passing |= spoken[rows]
            keep &= passing
            if not keep.any():
                break
        return keep
