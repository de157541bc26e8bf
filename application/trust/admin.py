"""Control-plane use cases: organisations, principals, delegations and API keys.

Who may do what is decided in ``AdminBase``; spaces are in ``space_admin``.
"""

from datetime import timedelta

from application.trust.admin_base import AdminBase, check_name
from application.trust.keys import IssuedKey, compose_key, hash_secret, new_secret
from application.trust.records import (
    ApiKeyRecord,
    DelegationRecord,
    Organization,
    PrincipalRecord,
)
from domain.errors import InvalidInputError, NotFoundError, PolicyDeniedError
from domain.models import PrincipalKind
from domain.policy import OrgRole, Surface
from domain.policy.administration import (
    Subject,
    may_create_agent,
    may_create_user,
    may_delegate,
    may_mint_key,
    may_revoke_key,
)
from domain.reasons import ReasonCode

__all__ = ["ControlService"]

_DELEGATE_HINT = (
    "only the user an agent acts for may delegate to it: that user creates the agent with "
    "their own key, or create it with no delegation (--delegation-days 0)"
)


class ControlService(AdminBase):
    # -- changes --------------------------------------------------------------

    async def create_organization(
        self, name: str, admin: PrincipalRecord | None, surface: Surface, org_id: str | None = None
    ) -> Organization:
        is_home_owner = (
            admin is not None
            and admin.org_id == self.home_org_id
            and admin.org_role is OrgRole.OWNER
        )
        if admin is not None and not is_home_owner:
            raise PolicyDeniedError(
                ReasonCode.ADMIN_REQUIRED,
                "creating organisations needs the home organisation's owner",
            )
        org = Organization(
            org_id=org_id or self._ids.new_id(),
            name=check_name(name, "organisation"),
            created_at=self._clock.now(),
        )
        await self._control.add_organization(org)
        self._note(admin, org.org_id, "admin.org.create", [org.org_id], surface)
        return org

    async def create_principal(
        self,
        org_id: str,
        name: str,
        admin: PrincipalRecord | None,
        surface: Surface,
        *,
        acting_for: str | None = None,
        org_role: OrgRole = OrgRole.MEMBER,
        delegation_days: int = 0,
    ) -> PrincipalRecord:
        """A user, or (with ``acting_for``) an agent with an optional delegation from its user.

        Admins add users; only an owner adds an owner. A user may add agents for
        themselves; the delegation (``delegation_days``) is the user's own to give.
        """
        actor = self.administrator(admin)
        user = None if acting_for is None else await self.principal(org_id, acting_for)
        if user is None:
            self._require(
                may_create_user(actor, org_id, org_role),
                admin,
                org_id,
                "admin.user.create",
                [],
                surface,
                "adding a user needs an admin of the organisation, and an owner needs an owner",
            )
        else:
            self._require(
                may_create_agent(actor, await self.subject(user)),
                admin,
                org_id,
                "admin.agent.create",
                [user.principal_id],
                surface,
                "an agent is created by its user or an admin of the organisation",
            )
        if user is not None and user.kind is not PrincipalKind.USER:
            raise InvalidInputError(ReasonCode.INVALID_REQUEST, "an agent acts for a user")
        if user is not None and org_role is not OrgRole.MEMBER:
            raise InvalidInputError(ReasonCode.INVALID_REQUEST, "agents cannot administer")
        if user is not None and delegation_days > 0:
            # checked before anything is created, so a refused delegation leaves no agent behind
            planned = Subject(principal_id="", org_id=org_id, acting_for=user.principal_id)
            self._require(
                may_delegate(actor, await self.subject(user), planned),
                admin,
                org_id,
                "admin.delegation.create",
                [user.principal_id],
                surface,
                _DELEGATE_HINT,
            )
        record = PrincipalRecord(
            principal_id=self._ids.new_id(),
            org_id=org_id,
            name=check_name(name, "principal"),
            kind=PrincipalKind.USER if user is None else PrincipalKind.AGENT,
            acting_for=None if user is None else user.principal_id,
            org_role=org_role,
            created_at=self._clock.now(),
        )
        await self._control.add_principal(record)
        self._note(admin, org_id, f"admin.{record.kind}.create", [record.principal_id], surface)
        if user is not None and delegation_days > 0:
            await self.delegate(
                org_id, user.principal_id, record.principal_id, delegation_days, admin, surface
            )
        return record

    async def delegate(
        self,
        org_id: str,
        user_id: str,
        agent_id: str,
        days: int,
        admin: PrincipalRecord | None,
        surface: Surface,
    ) -> DelegationRecord:
        if not 0 < days <= 3650:
            raise InvalidInputError(ReasonCode.INVALID_REQUEST, "a delegation lasts 1 to 3650 days")
        user = await self.subject(await self.principal(org_id, user_id))
        agent = await self.subject(await self.principal(org_id, agent_id))
        self._require(
            may_delegate(self.administrator(admin), user, agent),
            admin,
            org_id,
            "admin.delegation.create",
            [user_id, agent_id],
            surface,
            _DELEGATE_HINT,
        )
        now = self._clock.now()
        delegation = DelegationRecord(
            delegation_id=self._ids.new_id(),
            org_id=org_id,
            user_id=user_id,
            agent_id=agent_id,
            expires_at=now + timedelta(days=days),
            created_at=now,
        )
        await self._control.add_delegation(delegation)
        self._note(admin, org_id, "admin.delegation.create", [user_id, agent_id], surface)
        return delegation

    async def create_key(
        self, org_id: str, principal_id: str, admin: PrincipalRecord | None, surface: Surface
    ) -> IssuedKey:
        principal = await self.principal(org_id, principal_id)
        self._require(
            may_mint_key(self.administrator(admin), await self.subject(principal)),
            admin,
            org_id,
            "admin.key.create",
            [principal.principal_id],
            surface,
            "keys are created only for yourself, your own agents, or a new user's first key",
        )
        key_id, secret = self._ids.new_id(), new_secret()
        await self._control.add_key(
            ApiKeyRecord(
                key_id=key_id,
                org_id=org_id,
                principal_id=principal.principal_id,
                secret_hash=hash_secret(secret),
                created_at=self._clock.now(),
            )
        )
        self._note(admin, org_id, "admin.key.create", [key_id, principal.principal_id], surface)
        return IssuedKey(
            key_id=key_id,
            org_id=org_id,
            principal_id=principal.principal_id,
            key=compose_key(key_id, secret),
        )

    async def revoke_key(
        self, key_id: str, admin: PrincipalRecord | None, surface: Surface
    ) -> ApiKeyRecord:
        key = await self._control.get_key(key_id)
        # another organisation's key id means nothing to a non-operator: not found
        foreign = (
            key is not None
            and admin is not None
            and not self.is_operator(admin)
            and admin.org_id != key.org_id
        )
        if key is None or foreign:
            raise NotFoundError(ReasonCode.NOT_FOUND, f"no key with id {key_id!r}")
        holder = await self.principal(key.org_id, key.principal_id)
        self._require(
            may_revoke_key(self.administrator(admin), await self.subject(holder)),
            admin,
            key.org_id,
            "admin.key.revoke",
            [key_id],
            surface,
            "revoking another's key needs an admin, and an owner's key an owner",
        )
        await self._refuse_last_owner_key(key)
        revoked = await self._control.revoke_key(key_id, self._clock.now())
        assert revoked is not None
        self._note(admin, key.org_id, "admin.key.revoke", [key_id], surface)
        return revoked

    async def recover_owner_key(self, surface: Surface) -> IssuedKey:
        """A new key for the home organisation's owner: the operator's way back in.

        Only the local operator reaches this (``tessera admin recover-owner-key`` opens
        the store directly on the machine that holds the data directory); audited.
        """
        owners = [
            p
            for p in await self._control.list_principals(self.home_org_id)
            if p.org_role is OrgRole.OWNER and p.acting_for is None
        ]
        if not owners:
            raise NotFoundError(ReasonCode.NOT_FOUND, "the home organisation has no owner")
        owner = min(owners, key=lambda p: p.created_at)
        issued = await self.create_key(self.home_org_id, owner.principal_id, None, surface)
        self._note(None, self.home_org_id, "admin.key.recover", [issued.key_id], surface)
        return issued

    async def recover_key(self, org: str | None, principal: str, surface: Surface) -> IssuedKey:
        """A new key for a person who lost every key of theirs: the local operator's call.

        Nobody else may mint a key for someone who already held one, since a key is
        that person's whole authority; ``tessera admin recover-key`` opens the store
        directly on the data directory's machine. Audited.
        """
        org_id = self.home_org_id if org is None else (await self.organization(org)).org_id
        record = await self.principal(org_id, principal)
        if record.kind is not PrincipalKind.USER:
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST,
                "an agent's keys come from its user: recover the user's key instead",
            )
        issued = await self.create_key(org_id, record.principal_id, None, surface)
        self._note(None, org_id, "admin.key.recover", [issued.key_id], surface)
        return issued

    async def list_keys(self, org_id: str, admin: PrincipalRecord | None) -> list[ApiKeyRecord]:
        self._require_admin(admin, org_id)
        return await self._control.list_keys(org_id)

    async def list_principals(
        self, org_id: str, admin: PrincipalRecord | None
    ) -> list[PrincipalRecord]:
        self._require_admin(admin, org_id)
        return await self._control.list_principals(org_id)

    async def bootstrap(self, surface: Surface) -> IssuedKey | None:
        """On an empty control plane: the home organisation, its owner and the owner's key."""
        if await self._control.list_organizations():
            return None
        org = await self.create_organization("local", None, surface, org_id=self.home_org_id)
        owner = await self.create_principal(
            org.org_id, "owner", None, surface, org_role=OrgRole.OWNER
        )
        return await self.create_key(org.org_id, owner.principal_id, None, surface)
