"""Revoking the keys and delegations a caller owns: preview, then apply with the token.

Why its own use case: until now only an organisation's owners and admins
could revoke a key (``ControlService.revoke_key``, no preview), and nobody
could end a delegation before it expired. A person owns their own keys,
their agents' keys and the delegations they granted, and should be able to
take them back without an admin. Who may is decided here, once, for every
surface (HTTP, the workspace):

- a key: its own principal, the user its agent acts for, or an owner or
  admin of its organisation (agents administer nothing);
- a delegation: the user who granted it, or an owner or admin of its
  organisation.

Anything else answers ``not_found``, as another organisation's key does:
an id the caller may not act on tells them nothing.

Why a preview and a token: revoking cannot be undone (a new key or
delegation must be made instead), so the caller first sees what it does
(whose it is, whether it signs them out, whether the last-owner-key rule
will refuse it) with a token bound to the record as previewed. The apply
refuses a token made for another state (``preview_stale``, 409): the record
was revoked meanwhile, or the last-owner-key answer changed. As with an
organisation's drop, the token is a digest of what was seen (every process
computes the same one), a confirmation that nothing changed, not an
authority: the rights are checked again at apply. Previews and revocations
leave audit receipts with ids only.
"""

import hashlib
from datetime import datetime
from enum import StrEnum

import msgspec

from application.trust.admin_base import AdminBase
from application.trust.records import ApiKeyRecord, DelegationRecord, PrincipalRecord
from domain.errors import ConflictError, InvalidInputError, NotFoundError
from domain.models import PrincipalKind
from domain.policy import Surface
from domain.reasons import ReasonCode

__all__ = ["GrantState", "OwnedGrants", "OwnedKey", "RevokePreview", "RevokeTarget", "Revoker"]


class RevokeTarget(StrEnum):
    KEY = "key"
    DELEGATION = "delegation"


class GrantState(StrEnum):
    LIVE = "live"
    EXPIRED = "expired"
    REVOKED = "revoked"


class OwnedKey(msgspec.Struct, frozen=True, kw_only=True):
    """A key as its owner sees it listed: never its secret or the secret's hash."""

    key_id: str
    principal_id: str
    principal_name: str
    created_at: datetime
    revoked_at: datetime | None = None


class OwnedGrants(msgspec.Struct, frozen=True, kw_only=True):
    """What the caller may revoke themselves: their keys, their agents' keys, their grants."""

    keys: list[OwnedKey]
    delegations: list[DelegationRecord]
    #: principal id -> name, for the agents and users named above
    names: dict[str, str]
    #: the caller's agents' ids (each in ``names``), keyed or not: whom a key may be made for
    agents: list[str] = msgspec.field(default_factory=list)


class RevokePreview(msgspec.Struct, frozen=True, kw_only=True):
    target: RevokeTarget
    target_id: str
    #: the key's principal, or the user who granted the delegation
    owner_id: str
    owner_name: str
    #: the delegation's agent (None for a key)
    agent_id: str | None = None
    agent_name: str | None = None
    state: GrantState
    created_at: datetime
    expires_at: datetime | None = None
    revoked_at: datetime | None = None
    #: the key the caller is signed in with: revoking it signs them out everywhere
    signs_out_caller: bool = False
    #: why the apply will be refused as things stand (``last_owner_key``), or None
    refused: ReasonCode | None = None
    #: pass it back to revoke; refused (409 ``preview_stale``) once any of the above changes
    token: str


class Revoker(AdminBase):
    # -- what the caller owns -------------------------------------------------

    async def owned(self, caller: PrincipalRecord) -> OwnedGrants:
        """The caller's keys and their agents' keys, and the delegations they granted."""
        org_id = caller.org_id
        people = await self._control.list_principals(org_id)
        names = {p.principal_id: p.name for p in people}
        agents = {
            p.principal_id
            for p in people
            if caller.kind is PrincipalKind.USER and p.acting_for == caller.principal_id
        }
        mine = {caller.principal_id} | agents
        keys = [
            OwnedKey(
                key_id=k.key_id,
                principal_id=k.principal_id,
                principal_name=names.get(k.principal_id, k.principal_id),
                created_at=k.created_at,
                revoked_at=k.revoked_at,
            )
            for k in await self._control.list_keys(org_id)
            if k.principal_id in mine
        ]
        delegations = [
            d
            for agent_id in sorted(agents)
            for d in await self._control.delegations_of(org_id, agent_id)
            if d.user_id == caller.principal_id
        ]
        delegations.sort(key=lambda d: d.created_at, reverse=True)
        return OwnedGrants(keys=keys, delegations=delegations, names=names, agents=sorted(agents))

    # -- keys -------------------------------------------------------------------

    async def preview_key(
        self, key_id: str, caller: PrincipalRecord, surface: Surface, *, signed_in_with: str = ""
    ) -> RevokePreview:
        preview = await self._key_preview(key_id, caller, signed_in_with)
        self._note(caller, caller.org_id, "access.key.revoke_preview", [key_id], surface)
        return preview

    async def revoke_key(
        self,
        key_id: str,
        token: str | None,
        caller: PrincipalRecord,
        surface: Surface,
        *,
        signed_in_with: str = "",
    ) -> ApiKeyRecord:
        preview = await self._key_preview(key_id, caller, signed_in_with)
        _check(token, preview)
        key = await self._control.get_key(key_id)
        assert key is not None  # the preview just found it
        await self._refuse_last_owner_key(key)
        revoked = await self._control.revoke_key(key_id, self._clock.now())
        assert revoked is not None
        self._note(caller, caller.org_id, "access.key.revoke", [key_id], surface)
        return revoked

    async def _key_preview(
        self, key_id: str, caller: PrincipalRecord, signed_in_with: str
    ) -> RevokePreview:
        key = await self._control.get_key(key_id)
        if key is None or key.org_id != caller.org_id:
            raise NotFoundError(ReasonCode.NOT_FOUND, f"no key with id {key_id!r}")
        owner = await self._control.get_principal(key.org_id, key.principal_id)
        if not self._may_act(caller, key.org_id, owner):
            raise NotFoundError(ReasonCode.NOT_FOUND, f"no key with id {key_id!r}")
        last = not key.revoked and await self._is_last_owner_key(key)
        return _sealed(
            caller,
            RevokePreview(
                target=RevokeTarget.KEY,
                target_id=key.key_id,
                owner_id=key.principal_id,
                owner_name=owner.name if owner else key.principal_id,
                state=GrantState.REVOKED if key.revoked else GrantState.LIVE,
                created_at=key.created_at,
                revoked_at=key.revoked_at,
                signs_out_caller=bool(signed_in_with) and signed_in_with == key.key_id,
                refused=ReasonCode.LAST_OWNER_KEY if last else None,
                token="",
            ),
        )

    # -- delegations ------------------------------------------------------------

    async def preview_delegation(
        self, delegation_id: str, caller: PrincipalRecord, surface: Surface
    ) -> RevokePreview:
        preview = await self._delegation_preview(delegation_id, caller)
        action = "access.delegation.revoke_preview"
        self._note(caller, caller.org_id, action, [delegation_id], surface)
        return preview

    async def revoke_delegation(
        self, delegation_id: str, token: str | None, caller: PrincipalRecord, surface: Surface
    ) -> DelegationRecord:
        preview = await self._delegation_preview(delegation_id, caller)
        _check(token, preview)
        revoked = await self._control.revoke_delegation(
            caller.org_id, delegation_id, self._clock.now()
        )
        assert revoked is not None  # the preview just found it
        ids = [delegation_id, revoked.user_id, revoked.agent_id]
        self._note(caller, caller.org_id, "access.delegation.revoke", ids, surface)
        return revoked

    async def _delegation_preview(
        self, delegation_id: str, caller: PrincipalRecord
    ) -> RevokePreview:
        people = {p.principal_id: p for p in await self._control.list_principals(caller.org_id)}
        found = None
        for agent in people.values():
            if agent.kind is not PrincipalKind.AGENT:
                continue
            for d in await self._control.delegations_of(caller.org_id, agent.principal_id):
                if d.delegation_id == delegation_id:
                    found = d
        user = people.get(found.user_id) if found is not None else None
        if found is None or not self._may_act(caller, caller.org_id, user, delegation=True):
            raise NotFoundError(ReasonCode.NOT_FOUND, f"no delegation with id {delegation_id!r}")
        now = self._clock.now()
        state = (
            GrantState.REVOKED
            if found.revoked_at is not None
            else (GrantState.LIVE if found.live_at(now) else GrantState.EXPIRED)
        )
        agent_record = people.get(found.agent_id)
        return _sealed(
            caller,
            RevokePreview(
                target=RevokeTarget.DELEGATION,
                target_id=found.delegation_id,
                owner_id=found.user_id,
                owner_name=user.name if user else found.user_id,
                agent_id=found.agent_id,
                agent_name=agent_record.name if agent_record else found.agent_id,
                state=state,
                created_at=found.created_at,
                expires_at=found.expires_at,
                revoked_at=found.revoked_at,
                token="",
            ),
        )

    # -- who may ------------------------------------------------------------------

    def _may_act(
        self,
        caller: PrincipalRecord,
        org_id: str,
        owner: PrincipalRecord | None,
        *,
        delegation: bool = False,
    ) -> bool:
        """An owner or admin of the organisation; else the owner (a user, for a delegation),
        or the user an owning agent acts for."""
        if caller.org_id == org_id and caller.org_role.administers and not caller.acting_for:
            return True
        if owner is None:
            return False
        if owner.principal_id == caller.principal_id:
            return not delegation or caller.kind is PrincipalKind.USER
        return (
            not delegation
            and caller.kind is PrincipalKind.USER
            and owner.acting_for == caller.principal_id
        )


def _sealed(caller: PrincipalRecord, preview: RevokePreview) -> RevokePreview:
    """The preview with its token: a digest of the caller and everything it shows."""
    seen = msgspec.json.encode([caller.principal_id, msgspec.structs.replace(preview, token="")])
    return msgspec.structs.replace(preview, token=hashlib.sha256(seen).hexdigest()[:32])


def _check(token: str | None, preview: RevokePreview) -> None:
    if not token:
        raise InvalidInputError(ReasonCode.PREVIEW_REQUIRED, "revoking needs a preview's token")
    if token != preview.token:
        raise ConflictError(
            ReasonCode.PREVIEW_STALE,
            f"the {preview.target} changed since the preview (or the token is not its): "
            "preview again and revoke with the new token",
        )
