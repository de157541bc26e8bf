"""The embedding lane's small parts: its settings, a queued chunk, a waiting caller."""

import asyncio
from dataclasses import dataclass, field

from application.ports.writes import PendingChunk
from domain.errors import UpstreamError
from domain.reasons import ReasonCode

__all__ = ["Item", "LaneSettings", "Ticket", "failure"]


@dataclass(frozen=True)
class LaneSettings:
    #: chunks per call to the model
    batch_size: int = 64
    #: chunks held in process; more wait in the store and are read back as room frees
    capacity: int = 4096
    #: an import waits while more of its organisation's chunks than this wait for vectors
    backlog_limit: int = 8192
    #: failed attempts before a chunk moves to the dead letter
    max_attempts: int = 5
    #: first retry delay in seconds, doubled per attempt up to ``backoff_max``
    backoff: float = 0.5
    backoff_max: float = 30.0


class Ticket:
    """One caller waiting for the vectors of its chunks."""

    def __init__(self, count: int) -> None:
        self.future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.left = count

    def done_one(self) -> None:
        self.left -= 1
        if self.left <= 0 and not self.future.done():
            self.future.set_result(None)

    def fail(self, error: Exception) -> None:
        if not self.future.done():
            self.future.set_exception(error)


@dataclass
class Item:
    org_id: str
    chunk: PendingChunk
    #: failed attempts (the store's count when read from it, plus this process's)
    attempts: int = 0
    not_before: float = 0.0
    waiters: list[Ticket] = field(default_factory=list)
    #: the store's embedding cache held no vector for its text as it was written (the
    #: write path looks first): the lane embeds it without reading the cache again
    looked_up: bool = False


def failure(detail: str) -> UpstreamError:
    return UpstreamError(
        ReasonCode.EMBEDDER_FAILED,
        f"{detail}; the memory is saved and searchable by its words, its vectors are pending",
    )
