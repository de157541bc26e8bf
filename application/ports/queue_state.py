"""What a background queue reports to the operator's status: its depth and its lag.

Why a hook and not a list of known queues: queues come and go with the
composition (the audit receipts batched to the store today; an embedding lane,
import jobs later), and ``GET /api/status`` should show each one without the
status code knowing it. A queue registers a ``QueueGauge`` with the
``StatusReporter`` (``Services.status.watch_queue``); reading it must be cheap
and must not touch memory text.
"""

from typing import Protocol, runtime_checkable

import msgspec

__all__ = ["QueueGauge", "QueueState"]


class QueueState(msgspec.Struct, frozen=True, kw_only=True):
    #: a stable name: ``audit_receipts``, ``embedding`` ...
    name: str
    #: items waiting
    depth: int
    #: seconds the oldest waiting item has waited (its lag); None when empty or unknown
    oldest_age_s: float | None = None
    #: items that failed for good (a dead letter), where the queue keeps them
    failed: int | None = None
    #: items done since this process started, where the queue counts them
    done: int | None = None
    #: writers whose dropped work (a full queue) waits to be caught up, where tracked
    behind: int | None = None
    #: the reason code of the last failure (never text)
    last_error: str | None = None

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a queue needs a name")
        if self.depth < 0:
            raise ValueError("depth must be >= 0")
        if self.oldest_age_s is not None and self.oldest_age_s < 0:
            raise ValueError("oldest_age_s must be >= 0")


@runtime_checkable
class QueueGauge(Protocol):
    def queue_state(self) -> QueueState: ...
