"""What an operator needs to see about a running install, without reading memory.

Counts per organisation, the retrieval index and embedder in use, the audit
receipts waiting to be written, and the recent warnings and errors (recorded by
the entrypoint's logging, which never logs memory text). Only the operator (the
data directory's holder or the home organisation's owner) may read it: it
spans every organisation.
"""

from collections.abc import Sequence
from datetime import datetime

import msgspec

from application.memory_service import MemoryService
from application.ports import MemoryStore
from application.trust.admin_base import AdminBase
from application.trust.audit import AuditTrail
from application.trust.ports import ControlStore
from application.trust.records import PrincipalRecord
from domain.errors import PolicyDeniedError, TesseraError
from domain.reasons import ReasonCode

__all__ = ["OrgStatus", "RecentError", "ServiceStatus", "StatusReporter"]


class OrgStatus(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    name: str
    #: None when the organisation's store could not be counted (its reason is logged)
    chunks: int | None


class RecentError(msgspec.Struct, frozen=True, kw_only=True):
    at: datetime
    level: str
    logger: str
    message: str


class ServiceStatus(msgspec.Struct, frozen=True, kw_only=True):
    engine: str
    store_url_kind: str
    retrieval_index: str
    embedder_model: str
    embedding_dimension: int
    organisations: list[OrgStatus]
    audit_pending: int
    recent_errors: list[RecentError]


class StatusReporter:
    def __init__(
        self,
        *,
        store: MemoryStore,
        memory: MemoryService,
        control: ControlStore,
        audit: AuditTrail,
        admin: AdminBase,
    ) -> None:
        self._store = store
        self._memory = memory
        self._control = control
        self._audit = audit
        self._admin = admin

    async def status(
        self, caller: PrincipalRecord | None, recent_errors: Sequence[RecentError]
    ) -> ServiceStatus:
        if not self._admin.is_operator(caller):
            raise PolicyDeniedError(
                ReasonCode.ADMIN_REQUIRED, "the service status is for the install's owner"
            )
        organisations = []
        for org in await self._control.list_organizations():
            try:
                chunks: int | None = await self._store.count_chunks(org.org_id)
            except TesseraError:
                chunks = None
            organisations.append(OrgStatus(org_id=org.org_id, name=org.name, chunks=chunks))
        info, space = self._memory.store_info(), self._memory.embedding_space
        return ServiceStatus(
            engine=info.engine,
            store_url_kind=info.url_kind,
            retrieval_index=self._memory.index_name,
            embedder_model=space.model,
            embedding_dimension=space.dimension,
            organisations=organisations,
            audit_pending=self._audit.pending,
            recent_errors=list(recent_errors),
        )
