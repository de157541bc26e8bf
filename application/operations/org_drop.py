"""Dropping an organisation: preview what goes, then remove it and give its space back.

Why a preview and a token: a drop removes every source, chunk, receipt,
principal, key and space of the organisation and cannot be undone, so the
caller first sees the counts and gets a token bound to them (and to the ids
of the organisation's principals, keys and spaces); the drop is applied only
with a token that still matches, so nothing added after the preview is
removed unseen.

Why not the corrections' preview tokens (``application.trust.preview_tokens``):
those are HMACs under a key held in process memory and bound to a caller's
policy context, and a drop is previewed and applied by two separate runs of
``tessera admin org drop`` (two processes when no service runs), possibly by
the install's operator, who has no context. This token is the digest of what
would be removed, so every process computes the same one; it is a
confirmation that nothing changed, not an authority (``_require_owner`` is).

Who may: the install's operator (the data directory's holder or the home
organisation's owner), or an owner of that organisation (not an admin, not an
agent). The home organisation cannot be dropped. The drop is audited in the
home organisation's trail, since the dropped one's receipts go with it.

Why compact: removing a namespace on the embedded engine frees nothing on
disk or in memory; a store that can rewrite itself
(``SpaceReclaimer``, the SurrealDB store's ``compact()``) is asked to after
the drop, so the directory and the process shrink back.
"""

import hashlib
import json
from typing import Protocol, runtime_checkable

import msgspec

from application.memory.service import MemoryService
from application.ports import Clock, IdGenerator, MemoryStore
from application.synthesis.ports import SynthesisRunStore
from application.trust.access import AccessResolver
from application.trust.admin_base import AdminBase
from application.trust.audit import AuditTrail
from application.trust.ports import ControlStore
from application.trust.records import Organization, PrincipalRecord
from domain.errors import ConflictError, PolicyDeniedError
from domain.policy import MemoryPolicyContext, OrgRole, Surface
from domain.reasons import ReasonCode

__all__ = ["OrgDropPreview", "OrgDropResult", "OrgDropper", "SpaceReclaimer"]


class _Reclaimed(Protocol):
    @property
    def rewritten(self) -> bool: ...

    @property
    def bytes_before(self) -> int: ...

    @property
    def bytes_after(self) -> int: ...

    @property
    def seconds(self) -> float: ...


@runtime_checkable
class SpaceReclaimer(Protocol):
    """A store that can rewrite itself so removed rows leave its files and memory."""

    async def compact(self) -> _Reclaimed: ...


class OrgDropPreview(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    name: str
    sources: int
    chunks: int
    principals: int
    keys: int
    spaces: int
    #: pass it back to apply the drop; refused once any of the above changes
    token: str


class OrgDropResult(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    name: str
    sources: int
    chunks: int
    principals: int
    keys: int
    spaces: int
    #: whether the store was rewritten to give the space back
    compacted: bool
    #: the data directory's size before and after the rewrite (0 on mem://)
    bytes_before: int = 0
    bytes_after: int = 0
    compact_seconds: float = 0.0


class OrgDropper(AdminBase):
    def __init__(
        self,
        *,
        memory: MemoryService,
        store: MemoryStore,
        runs: SynthesisRunStore,
        control: ControlStore,
        access: AccessResolver,
        audit: AuditTrail,
        clock: Clock,
        ids: IdGenerator,
        home_org_id: str,
    ) -> None:
        super().__init__(
            control=control,
            access=access,
            audit=audit,
            clock=clock,
            ids=ids,
            home_org_id=home_org_id,
        )
        self._memory = memory
        self._store = store
        self._runs = runs

    def _require_owner(self, admin: PrincipalRecord | None, org: Organization) -> None:
        if org.org_id == self.home_org_id:
            raise ConflictError(
                ReasonCode.HOME_ORGANIZATION, "the install's own organisation cannot be dropped"
            )
        if self.is_operator(admin):
            return
        assert admin is not None
        if admin.org_id != org.org_id or admin.org_role is not OrgRole.OWNER or admin.acting_for:
            raise PolicyDeniedError(
                ReasonCode.ADMIN_REQUIRED,
                "dropping an organisation needs its owner or the install's owner",
            )

    async def preview(
        self, name_or_id: str, admin: PrincipalRecord | None, surface: Surface
    ) -> OrgDropPreview:
        org = await self.organization(name_or_id)
        self._require_owner(admin, org)
        preview = await self._inventory(org)
        self._receipt(admin, "admin.org.drop_preview", org, preview, surface)
        return preview

    async def drop(
        self, name_or_id: str, token: str, admin: PrincipalRecord | None, surface: Surface
    ) -> OrgDropResult:
        org = await self.organization(name_or_id)
        self._require_owner(admin, org)
        preview = await self._inventory(org)
        if token != preview.token:
            raise ConflictError(
                ReasonCode.PREVIEW_STALE,
                "the organisation changed since the preview (or the token is not its): "
                "preview again and drop with the new token",
            )
        # receipts still waiting would recreate the namespace after the drop
        await self._audit.flush()
        await self._memory.drop_organization(org.org_id)
        await self._runs.drop_runs(org.org_id)
        await self._control.remove_organization(org.org_id)
        self._receipt(admin, "admin.org.drop", org, preview, surface)
        self._access.forget()
        await self._audit.flush()
        counts = msgspec.structs.asdict(preview)
        del counts["token"]
        if not isinstance(self._store, SpaceReclaimer):
            return OrgDropResult(**counts, compacted=False)
        report = await self._store.compact()
        return OrgDropResult(
            **counts,
            compacted=report.rewritten,
            bytes_before=report.bytes_before,
            bytes_after=report.bytes_after,
            compact_seconds=round(report.seconds, 3),
        )

    async def _inventory(self, org: Organization) -> OrgDropPreview:
        principals = await self._control.list_principals(org.org_id)
        keys = await self._control.list_keys(org.org_id)
        spaces = await self._control.list_spaces(org.org_id)
        sources = await self._store.count_sources(org.org_id)
        chunks = await self._store.count_chunks(org.org_id)
        state = {
            "org": [org.org_id, org.name],
            "counts": [sources, chunks],
            "principals": [p.principal_id for p in principals],
            "keys": [[k.key_id, k.revoked] for k in keys],
            "spaces": [s.space_id for s in spaces],
        }
        digest = hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()
        return OrgDropPreview(
            org_id=org.org_id,
            name=org.name,
            sources=sources,
            chunks=chunks,
            principals=len(principals),
            keys=len(keys),
            spaces=len(spaces),
            token=digest[:32],
        )

    def _receipt(
        self,
        admin: PrincipalRecord | None,
        action: str,
        org: Organization,
        preview: OrgDropPreview,
        surface: Surface,
    ) -> None:
        """Kept in the home organisation's trail: the dropped one's goes with it."""
        ctx = MemoryPolicyContext(
            org_id=self.home_org_id,
            actor=None,
            surface=surface,
            now=self._clock.now(),
            audit_id=self._ids.new_id(),
        )
        counts = {
            "sources": preview.sources,
            "chunks": preview.chunks,
            "principals": preview.principals,
            "keys": preview.keys,
            "spaces": preview.spaces,
        }
        actor = [admin.principal_id] if admin is not None else []
        self._audit.note(ctx, action, ids=[*actor, org.org_id], counts=counts)
