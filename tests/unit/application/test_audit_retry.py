"""Audit receipts survive a write whose answer was lost, and a context noted twice.

A surrealkv fill once logged "an audit receipt with this id already exists". Two ways get
there, both reproduced here on the reference log:
a write that commits and then fails (its retry meets its own receipts), and
two receipts noted under one context's audit id. Before the fix each left the
trail refusing the same batch on every flush, newer receipts queued behind it.
"""

import asyncio
from collections.abc import Sequence

from adapters.inmemory.audit_log import InMemoryAuditLog
from adapters.system.clock import SystemClock
from adapters.system.ids import TimeOrderedIds
from application.trust.audit import AuditTrail
from application.trust.records import AuditReceipt
from domain.policy import MemoryPolicyContext, Surface

ORG = "audit-org"


class _CommitsThenFails(InMemoryAuditLog):
    """Writes the first batch, then answers as if it had failed (the reply was lost)."""

    def __init__(self) -> None:
        super().__init__()
        self.lost_replies = 1

    async def record(self, receipts: Sequence[AuditReceipt]) -> None:
        await super().record(receipts)
        if self.lost_replies:
            self.lost_replies -= 1
            raise RuntimeError("connection reset after commit")


def _ctx(audit_id: str = "") -> MemoryPolicyContext:
    return MemoryPolicyContext(
        org_id=ORG, actor=None, surface=Surface.CLI, now=SystemClock().now(), audit_id=audit_id
    )


async def test_a_retry_after_a_lost_reply_writes_each_receipt_once_and_moves_on() -> None:
    log = _CommitsThenFails()
    trail = AuditTrail(log, SystemClock(), TimeOrderedIds())
    first = [trail.note(_ctx(), "search").receipt_id for _ in range(3)]
    await trail.flush()  # committed, but answered with an error: kept for a retry
    assert trail.pending == 3
    later = trail.note(_ctx(), "remember").receipt_id
    await trail.flush()  # the retry meets the three already written
    assert trail.pending == 0
    held = await log.recent(ORG, 10)
    assert sorted(r.receipt_id for r in held) == sorted([*first, later])
    trail.note(_ctx(), "search")
    await trail.flush()  # and the trail keeps working afterwards
    assert trail.pending == 0 and len(await log.recent(ORG, 10)) == 5


async def test_two_receipts_under_one_audit_id_are_both_kept() -> None:
    log = InMemoryAuditLog()
    trail = AuditTrail(log, SystemClock(), TimeOrderedIds())
    ctx = _ctx(audit_id="op-1")
    actions = ("admin.key.create", "admin.key.revoke")
    ids = [trail.note(ctx, action).receipt_id for action in actions]
    await trail.flush()
    assert trail.pending == 0
    assert ids == ["op-1", "op-1.2"]
    assert sorted(r.action for r in await log.recent(ORG, 10)) == [
        "admin.key.create",
        "admin.key.revoke",
    ]


class _SlowLog(InMemoryAuditLog):
    """Holds each write until told to go on."""

    def __init__(self) -> None:
        super().__init__()
        self.writing = asyncio.Event()
        self.go_on = asyncio.Event()

    async def record(self, receipts: Sequence[AuditReceipt]) -> None:
        self.writing.set()
        await self.go_on.wait()
        await super().record(receipts)


async def test_receipts_noted_during_a_write_are_written_without_a_later_receipt() -> None:
    log = _SlowLog()
    trail = AuditTrail(log, SystemClock(), TimeOrderedIds())
    trail.note(_ctx(), "search")
    await asyncio.wait_for(log.writing.wait(), 5)  # the timed flush is writing it
    trail.note(_ctx(), "search")  # noted mid-write: no flusher of its own starts
    log.go_on.set()
    for _ in range(60):  # bounded: the next timed flush is one delay away
        if trail.pending == 0:
            break
        await asyncio.sleep(0.05)
    assert trail.pending == 0 and len(await log.recent(ORG, 10)) == 2
