"""Audit receipts: one per allowed or denied read and write.

Each receipt is logged at once as one structured line (logger
``tessera.audit``) and written to the organisation's audit log in small
batches off the request path, so a search does not wait for a write.
Reading the log (``recent``) flushes first, and ``close`` flushes what is
left. Receipts carry ids, counts and hashes; never text.

Why a flush survives ``already_exists`` ("audit receipt with this id
already exists" was logged during a surrealkv fill): a failed write keeps its batch
for the next flush, but a write can fail after its transaction committed (the
answer lost); the retry then met its own receipts and was refused whole, every
second, with every newer receipt queued behind it. And two receipts noted under
one context's audit id (an admin operation noting twice) shared an id. So a
receipt id is used once per trail (a repeat gets a suffix), and a batch the log
refuses as already written is retried receipt by receipt, dropping the ones
the log already holds.
"""

import asyncio
import contextlib
import logging
from collections.abc import Sequence

import msgspec

from application.ports import Clock, IdGenerator
from application.ports.queue_state import QueueState
from application.trust.ports import AuditLog
from application.trust.records import AuditReceipt
from domain.errors import ConflictError
from domain.policy import MemoryPolicyContext, PolicyDecision
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope

__all__ = ["AuditTrail"]

_log = logging.getLogger("tessera.audit")
_encode = msgspec.json.Encoder().encode
#: a batch is written this long after its first receipt: one write transaction a
#: second at most, so receipts do not compete with searches for the store
_FLUSH_DELAY_S = 1.0
#: receipt ids remembered to keep them unique (a context's audit id noted twice)
_RECENT_IDS = 4096


class AuditTrail:
    def __init__(self, log: AuditLog, clock: Clock, ids: IdGenerator) -> None:
        self._log = log
        self._clock = clock
        self._ids = ids
        self._pending: list[AuditReceipt] = []
        self._flusher: asyncio.Task[None] | None = None
        self._writing = asyncio.Lock()
        #: wakes a waiting flusher early (on close)
        self._wake = asyncio.Event()
        #: receipt ids given out lately, with how often each was asked for
        self._used: dict[str, int] = {}

    def new_id(self) -> str:
        return self._ids.new_id()

    def queue_state(self) -> QueueState:
        """Receipts noted but not yet written, and how long the oldest has waited."""
        pending = self._pending
        age = None
        if pending:  # a clock set back must not report a negative lag
            age = max(0.0, (self._clock.now() - pending[0].at).total_seconds())
        return QueueState(name="audit_receipts", depth=len(pending), oldest_age_s=age)

    @property
    def pending(self) -> int:
        """Receipts noted but not yet written (operator diagnostics)."""
        return len(self._pending)

    def note(
        self,
        ctx: MemoryPolicyContext,
        action: str,
        decision: PolicyDecision | None = None,
        *,
        reason: ReasonCode | None = None,
        scope: MemoryScope | None = None,
        scope_key: str | None = None,
        ids: Sequence[str] = (),
        counts: dict[str, int] | None = None,
        hashes: dict[str, str] | None = None,
    ) -> AuditReceipt:
        """Record one receipt for ``action`` under the context's audit id."""
        if decision is not None:
            reason, scope, scope_key = decision.reason, decision.scope, decision.scope_key
        final_reason = reason or ReasonCode.ALLOWED
        receipt = AuditReceipt(
            receipt_id=self._unique(ctx.audit_id) if ctx.audit_id else self._ids.new_id(),
            org_id=ctx.org_id,
            at=self._clock.now(),
            actor_id=ctx.user_id,
            agent_id=ctx.agent_id,
            surface=ctx.surface,
            action=action,
            allowed=final_reason is ReasonCode.ALLOWED,
            reason=final_reason,
            scope=scope,
            scope_key=scope_key,
            ids=list(ids),
            counts=dict(counts or {}),
            hashes=dict(hashes or {}),
        )
        _log.info("%s", _encode(receipt).decode())
        self._pending.append(receipt)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush_later())
        return receipt

    def _unique(self, audit_id: str) -> str:
        """``audit_id`` the first time, ``audit_id.2`` (and on) when a context notes again."""
        seen = self._used.get(audit_id, 0) + 1
        self._used[audit_id] = seen
        if len(self._used) > _RECENT_IDS:
            del self._used[next(iter(self._used))]
        return audit_id if seen == 1 else f"{audit_id}.{seen}"

    async def _flush_later(self) -> None:
        # Receipts noted while a batch is being written start no flusher of their own
        # (this one is still running): they are written one delay later here, not left
        # waiting for the next receipt (or for ``close``), which a crash would lose.
        # A batch the log refused stays for the next receipt, as before.
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), _FLUSH_DELAY_S)
            written = await self._flush()
            if not written or not self._pending:
                return

    async def flush(self) -> None:
        await self._flush()

    async def _flush(self) -> bool:
        """Write what is pending; False if the log refused it (kept for a retry)."""
        async with self._writing:
            batch, self._pending = self._pending, []
            if not batch:
                return True
            try:
                await self._log.record(batch)
            except ConflictError:
                return await self._one_by_one(batch)
            except Exception:
                # keep them for the next flush rather than lose them; the log lines exist
                self._pending[:0] = batch
                _log.exception("audit receipts could not be written; will retry")
                return False
            return True

    async def _one_by_one(self, batch: list[AuditReceipt]) -> bool:
        """Write a refused batch receipt by receipt; one the log already holds is dropped."""
        kept: list[AuditReceipt] = []
        held = 0
        for receipt in batch:
            try:
                await self._log.record([receipt])
            except ConflictError:
                held += 1  # written by an earlier attempt whose answer was lost
            except Exception:
                kept.append(receipt)
        if kept:
            self._pending[:0] = kept
            _log.warning("%d audit receipt(s) could not be written; will retry", len(kept))
        if held:
            _log.warning("%d audit receipt(s) were already in the log; not written again", held)
        return not kept

    async def recent(self, org_id: str, limit: int) -> list[AuditReceipt]:
        await self.flush()
        return await self._log.recent(org_id, limit)

    async def recent_naming(
        self, org_id: str, ids: Sequence[str], scanned: int, limit: int
    ) -> list[AuditReceipt]:
        await self.flush()
        return await self._log.recent_naming(org_id, ids, scanned, limit)

    async def recent_by(
        self, org_id: str, actor_id: str, actions: Sequence[str], limit: int
    ) -> list[AuditReceipt]:
        await self.flush()
        return await self._log.recent_by(org_id, actor_id, actions, limit)

    async def close(self) -> None:
        # Wake the flusher and let it finish rather than cancel it: cancelling a
        # write in flight drops it inside the embedded engine, which aborts the
        # process (a Rust panic that cannot unwind) when the store closes.
        if self._flusher is not None and not self._flusher.done():
            self._wake.set()
            await self._flusher
        await self.flush()
