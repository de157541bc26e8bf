"""Compacting the store on request: how deleted text leaves the data directory's files.

Why a separate operation: a delete makes a source's text unreachable at once
through every surface, but the embedded engine is log-structured and keeps
the old bytes in its files until the store is rewritten (README, "What delete
removes from disk"). A rewrite pauses every query for about 4 ms per live row,
too much to run after each delete, so the install's operator runs it when
deleted text must leave the disk (a pasted password, a "forget me"). Dropping
an organisation compacts on its own (``OrgDropper``).
"""

from collections.abc import Callable

import msgspec

from application.operations.org_drop import SpaceReclaimer
from application.ports import Clock, IdGenerator, MemoryStore
from application.trust.audit import AuditTrail
from application.trust.records import PrincipalRecord
from domain.errors import PolicyDeniedError
from domain.policy import MemoryPolicyContext, Surface
from domain.reasons import ReasonCode

__all__ = ["CompactionResult", "StoreCompactor"]


class CompactionResult(msgspec.Struct, frozen=True, kw_only=True):
    #: False where the store cannot rewrite itself (a SurrealDB server, the in-memory fakes)
    compacted: bool
    #: the data directory's size before and after (0 on mem://)
    bytes_before: int = 0
    bytes_after: int = 0
    seconds: float = 0.0


class StoreCompactor:
    def __init__(
        self,
        *,
        store: MemoryStore,
        audit: AuditTrail,
        clock: Clock,
        ids: IdGenerator,
        home_org_id: str,
        is_operator: Callable[[PrincipalRecord | None], bool],
    ) -> None:
        self._store = store
        self._audit = audit
        self._clock = clock
        self._ids = ids
        self._home_org_id = home_org_id
        self._is_operator = is_operator

    async def compact(self, admin: PrincipalRecord | None, surface: Surface) -> CompactionResult:
        if not self._is_operator(admin):
            raise PolicyDeniedError(
                ReasonCode.ADMIN_REQUIRED, "compacting the store needs the install's owner"
            )
        # receipts still waiting are written first, so the rewrite carries them
        await self._audit.flush()
        if isinstance(self._store, SpaceReclaimer):
            report = await self._store.compact()
            result = CompactionResult(
                compacted=report.rewritten,
                bytes_before=report.bytes_before,
                bytes_after=report.bytes_after,
                seconds=round(report.seconds, 3),
            )
        else:
            result = CompactionResult(compacted=False)
        ctx = MemoryPolicyContext(
            org_id=self._home_org_id,
            actor=None,
            surface=surface,
            now=self._clock.now(),
            audit_id=self._ids.new_id(),
        )
        actor = [admin.principal_id] if admin is not None else []
        self._audit.note(
            ctx,
            "admin.store.compact",
            ids=actor,
            counts={"bytes_before": result.bytes_before, "bytes_after": result.bytes_after},
        )
        return result
