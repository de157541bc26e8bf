"""What an index holds in this process's memory, and dropping an idle organisation from it.

Why a port apart from ``RetrievalIndex``: only a derived in-process index
holds memory per organisation (the store's native index is the store), and
only one that keeps snapshots can drop an organisation and get it back
cheaply. The status reads ``residency`` (rows, graph or exact scan, an
estimate of the bytes); ``application.indexing.idle_eviction`` drops organisations
unused for a while through ``evict`` after their snapshot is written, and
readiness restores them from it on their next use.
"""

from enum import StrEnum
from typing import Protocol, runtime_checkable

import msgspec

__all__ = ["EvictableIndex", "IndexResidency", "ResidentIndex", "VectorLeg"]


class VectorLeg(StrEnum):
    """How the vector leg of a resident organisation answers."""

    EXACT = "exact"
    #: an inverted file (faiss IVF) past the ANN threshold
    IVF = "ivf"


class IndexResidency(msgspec.Struct, frozen=True, kw_only=True):
    """One organisation as this process holds it (no memory text)."""

    rows: int
    vector_leg: VectorLeg
    #: an estimate of the memory its index holds (arrays exactly, objects sampled)
    resident_bytes: int
    #: a finer vector index is being trained while this one serves (after a restore of
    #: an index whose lists no longer fit its rows)
    retraining: bool = False

    def __post_init__(self) -> None:
        if self.rows < 0 or self.resident_bytes < 0:
            raise ValueError("rows and resident_bytes must be >= 0")


@runtime_checkable
class ResidentIndex(Protocol):
    def residency(self, org_id: str) -> IndexResidency | None:
        """The organisation as held here; None when it is not in this process's memory."""
        ...


@runtime_checkable
class EvictableIndex(ResidentIndex, Protocol):
    @property
    def evictable(self) -> bool:
        """True where an evicted organisation can be brought back without a rebuild
        (its snapshot on disk); readiness evicts nothing otherwise."""
        ...

    @property
    def idle_after(self) -> float | None:
        """Seconds an organisation may go unused before readiness evicts it (the
        operator's setting, handed to the index by the composition root); None: never."""
        ...

    def resident_orgs(self) -> list[str]:
        """Organisations held in memory now (ready or being built)."""
        ...

    async def evict(self, org_id: str) -> None:
        """Drop the organisation from memory and keep what is on disk: it is no longer
        ready, writes for it are left to the store (its next restore catches them up)."""
        ...
