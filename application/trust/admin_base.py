"""The rights and bookkeeping every control-plane change shares.

Who may is decided by ``domain.policy.administration``: the local operator
(someone with the data directory, so ``admin`` is ``None``), the owner of
the home organisation (it runs the install), an organisation's owners and
admins inside it, and each person for their own keys and agents. Every
change is audited, refusals included, and drops the access cache.
"""

from application.ports import Clock, IdGenerator
from application.trust.access import AccessResolver
from application.trust.audit import AuditTrail
from application.trust.lookup import organization_named, principal_named, space_with_id
from application.trust.ports import ControlStore
from application.trust.records import ApiKeyRecord, Organization, PrincipalRecord, SpaceRecord
from domain.errors import ConflictError, InvalidInputError, PolicyDeniedError
from domain.models import PrincipalKind
from domain.policy import MemoryPolicyContext, OrgRole, Surface
from domain.policy.administration import Administrator, Subject, may_administer
from domain.reasons import ReasonCode
from domain.visible_text import unsafe_name_character

__all__ = ["AdminBase", "check_name"]

_MAX_NAME = 120


def check_name(name: str, what: str) -> str:
    name = name.strip()
    if not name or len(name) > _MAX_NAME:
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST, f"{what} name must be 1 to {_MAX_NAME} characters"
        )
    bad = unsafe_name_character(name)
    if bad is not None:
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST,
            f"{what} name holds {bad}: names take no control, format or bidi-override characters",
        )
    return name


def _actor_ids(admin: PrincipalRecord | None) -> list[str]:
    return [admin.principal_id] if admin is not None else []


class AdminBase:
    def __init__(
        self,
        *,
        control: ControlStore,
        access: AccessResolver,
        audit: AuditTrail,
        clock: Clock,
        ids: IdGenerator,
        home_org_id: str,
    ) -> None:
        self._control = control
        self._access = access
        self._audit = audit
        self._clock = clock
        self._ids = ids
        self.home_org_id = home_org_id

    # -- who may ------------------------------------------------------------

    def is_operator(self, admin: PrincipalRecord | None) -> bool:
        """The data directory's holder, or the home organisation's owner: runs the install."""
        return admin is None or (
            admin.org_id == self.home_org_id and admin.org_role is OrgRole.OWNER
        )

    def administrator(self, admin: PrincipalRecord | None) -> Administrator:
        """The caller as the control-plane rules see it."""
        if admin is None:
            return Administrator()
        return Administrator(
            principal_id=admin.principal_id,
            org_id=admin.org_id,
            org_role=admin.org_role,
            is_agent=admin.kind is PrincipalKind.AGENT or admin.acting_for is not None,
            runs_install=self.is_operator(admin),
        )

    async def subject(self, record: PrincipalRecord) -> Subject:
        """A principal as the rules see it, with whether a key was ever minted for it."""
        keys = await self._control.list_keys(record.org_id)
        return Subject(
            principal_id=record.principal_id,
            org_id=record.org_id,
            org_role=record.org_role,
            acting_for=record.acting_for,
            has_held_key=any(k.principal_id == record.principal_id for k in keys),
        )

    def _require(
        self,
        reason: ReasonCode,
        admin: PrincipalRecord | None,
        org_id: str,
        action: str,
        ids: list[str],
        surface: Surface,
        message: str,
    ) -> None:
        """Raise on a refusal, after an audit receipt that names the action and its reason."""
        if reason is ReasonCode.ALLOWED:
            return
        self._audit.note(
            self._admin_context(org_id, surface),
            action,
            reason=reason,
            ids=[*_actor_ids(admin), *ids],
        )
        raise PolicyDeniedError(reason, message)

    def _require_admin(self, admin: PrincipalRecord | None, org_id: str) -> None:
        reason = may_administer(self.administrator(admin), org_id)
        if reason is not ReasonCode.ALLOWED:
            raise PolicyDeniedError(reason, "this needs an owner or admin of the organisation")

    def _note(
        self,
        admin: PrincipalRecord | None,
        org_id: str,
        action: str,
        ids: list[str],
        surface: Surface,
    ) -> None:
        self._audit.note(
            self._admin_context(org_id, surface), action, ids=[*_actor_ids(admin), *ids]
        )
        self._access.forget()

    def _admin_context(self, org_id: str, surface: Surface) -> MemoryPolicyContext:
        """An audit receipt's context: control-plane changes name their actor among the ids."""
        return MemoryPolicyContext(
            org_id=org_id,
            actor=None,
            surface=surface,
            now=self._clock.now(),
            audit_id=self._ids.new_id(),
        )

    async def _is_last_owner_key(self, key: ApiKeyRecord) -> bool:
        """Whether no other live key of an organisation owner would be left without it."""
        owners = {
            p.principal_id
            for p in await self._control.list_principals(key.org_id)
            if p.org_role is OrgRole.OWNER and p.acting_for is None
        }
        if key.principal_id not in owners:
            return False
        live = [k for k in await self._control.list_keys(key.org_id) if not k.revoked]
        return not any(k.principal_id in owners and k.key_id != key.key_id for k in live)

    async def _refuse_last_owner_key(self, key: ApiKeyRecord) -> None:
        if not key.revoked and await self._is_last_owner_key(key):
            # after it, no one could administer the organisation again: refuse
            raise ConflictError(
                ReasonCode.LAST_OWNER_KEY,
                "this is the organisation's last live owner key: create another owner key "
                "first (or recover one with `tessera admin recover-owner-key`)",
            )

    # -- lookups by name or id ----------------------------------------------

    async def organization(self, name_or_id: str) -> Organization:
        return await organization_named(self._control, name_or_id)

    async def principal(self, org_id: str, name_or_id: str) -> PrincipalRecord:
        return await principal_named(self._control, org_id, name_or_id)

    async def space(self, org_id: str, space_id: str) -> SpaceRecord:
        return await space_with_id(self._control, org_id, space_id)
