"""The reference AuditLog: receipts per organisation, newest first, like the real one.

A batch is checked whole before anything is kept (naive datetimes, a receipt
id already taken in its organisation, or twice in the batch), so a refused
batch leaves nothing behind. Receipts are copied in and out, because their
``ids``/``counts``/``hashes`` are mutable and a caller must not change
what was recorded.
"""

import copy
from collections.abc import Sequence

from application.trust.records import AuditReceipt
from domain.errors import ConflictError, InvalidInputError
from domain.reasons import ReasonCode

__all__ = ["InMemoryAuditLog"]


class InMemoryAuditLog:
    def __init__(self) -> None:
        #: org id -> receipt id -> receipt
        self._orgs: dict[str, dict[str, AuditReceipt]] = {}

    async def record(self, receipts: Sequence[AuditReceipt]) -> None:
        seen: set[tuple[str, str]] = set()
        for receipt in receipts:
            if receipt.at.utcoffset() is None:
                raise InvalidInputError(
                    ReasonCode.INVALID_REQUEST, "datetimes must be timezone-aware to be stored"
                )
            key = (receipt.org_id, receipt.receipt_id)
            if key in seen or receipt.receipt_id in self._orgs.get(receipt.org_id, {}):
                raise ConflictError(
                    ReasonCode.ALREADY_EXISTS, "an audit receipt with this id already exists"
                )
            seen.add(key)
        for receipt in receipts:
            self._orgs.setdefault(receipt.org_id, {})[receipt.receipt_id] = copy.deepcopy(receipt)

    async def recent(self, org_id: str, limit: int) -> list[AuditReceipt]:
        if limit < 1:
            return []
        held = self._orgs.get(org_id, {}).values()
        newest = sorted(held, key=lambda r: (r.at, r.receipt_id), reverse=True)
        return [copy.deepcopy(r) for r in newest[:limit]]

    async def recent_naming(
        self, org_id: str, ids: Sequence[str], scanned: int, limit: int
    ) -> list[AuditReceipt]:
        wanted = set(ids)
        newest = await self.recent(org_id, scanned)
        return [r for r in newest if wanted.intersection(r.ids)][: max(0, limit)]

    async def recent_by(
        self, org_id: str, actor_id: str, actions: Sequence[str], limit: int
    ) -> list[AuditReceipt]:
        wanted = set(actions)
        held = [
            r
            for r in self._orgs.get(org_id, {}).values()
            if r.actor_id == actor_id and r.action in wanted
        ]
        newest = sorted(held, key=lambda r: (r.at, r.receipt_id), reverse=True)
        return [copy.deepcopy(r) for r in newest[: max(0, limit)]]
