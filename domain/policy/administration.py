"""Who may change the control plane: principals, roles, keys, delegations, space members.

Administering an organisation is not reading its members' memory. A key is
a principal's whole authority, so keys are minted only for oneself or for
one's own agents; the one exception is a user's first key, which an
administrator hands over when onboarding them (a principal that never held a
key has written nothing yet). A delegation lets an agent read its user's
private memory, so only that user grants it. Owner powers (the owner role,
an owner's keys, a space's ownership) stay with owners.

The local operator, who holds the data directory and could read the store
directly, may do everything; the home organisation's owner runs the install
and administers every organisation, but is bound by the personal rules
(keys, delegations) like anyone else. Each rule answers ALLOWED or the reason
it refuses; the control-plane use cases raise on a refusal.
"""

import msgspec

from domain.policy.context import OrgRole, SpaceRole
from domain.reasons import ReasonCode

__all__ = [
    "Administrator",
    "Subject",
    "may_administer",
    "may_change_space_role",
    "may_create_agent",
    "may_create_user",
    "may_delegate",
    "may_mint_key",
    "may_revoke_key",
    "owns_organization",
]

_ALLOWED = ReasonCode.ALLOWED


class Administrator(msgspec.Struct, frozen=True, kw_only=True):
    """Who asks for a control-plane change. No principal: the local operator."""

    principal_id: str | None = None
    org_id: str | None = None
    org_role: OrgRole = OrgRole.MEMBER
    is_agent: bool = False
    #: the home organisation's owner: administers every organisation of the install
    runs_install: bool = False

    @property
    def is_local_operator(self) -> bool:
        return self.principal_id is None


class Subject(msgspec.Struct, frozen=True, kw_only=True):
    """The principal a change is about (the one a key, role or delegation is for)."""

    principal_id: str
    org_id: str
    org_role: OrgRole = OrgRole.MEMBER
    #: an agent's user; None for a user
    acting_for: str | None = None
    #: whether any key, live or revoked, was ever minted for it
    has_held_key: bool = False


def may_administer(actor: Administrator, org_id: str) -> ReasonCode:
    """Owners and admins of the organisation (people, not agents), and the install's runners."""
    if actor.is_local_operator or actor.runs_install:
        return _ALLOWED
    if actor.is_agent or actor.org_id != org_id or not actor.org_role.administers:
        return ReasonCode.ADMIN_REQUIRED
    return _ALLOWED


def owns_organization(actor: Administrator, org_id: str) -> ReasonCode:
    """The organisation's owners (and the install's runners) hold its owner powers."""
    if actor.is_local_operator or actor.runs_install:
        return _ALLOWED
    if actor.is_agent or actor.org_id != org_id or actor.org_role is not OrgRole.OWNER:
        return ReasonCode.ORG_OWNER_REQUIRED
    return _ALLOWED


def _is_self(actor: Administrator, subject: Subject) -> bool:
    return actor.principal_id == subject.principal_id and actor.org_id == subject.org_id


def _is_own_agent(actor: Administrator, subject: Subject) -> bool:
    return (
        not actor.is_agent
        and actor.principal_id is not None
        and actor.org_id == subject.org_id
        and subject.acting_for == actor.principal_id
    )


def may_create_user(actor: Administrator, org_id: str, role: OrgRole) -> ReasonCode:
    """Admins add people; only an owner makes another owner."""
    reason = may_administer(actor, org_id)
    if reason is _ALLOWED and role is OrgRole.OWNER:
        return owns_organization(actor, org_id)
    return reason


def may_create_agent(actor: Administrator, user: Subject) -> ReasonCode:
    """A user creates agents for themselves; admins may too (a delegation is the user's)."""
    if not actor.is_agent and _is_self(actor, user):
        return _ALLOWED
    return may_administer(actor, user.org_id)


def may_delegate(actor: Administrator, user: Subject, agent: Subject) -> ReasonCode:
    """Only the user an agent acts for lets it act on their memory."""
    if agent.acting_for != user.principal_id or agent.org_id != user.org_id:
        return ReasonCode.PRINCIPAL_MISMATCH
    if actor.is_local_operator or (not actor.is_agent and _is_self(actor, user)):
        return _ALLOWED
    return ReasonCode.DELEGATION_NOT_YOURS


def may_mint_key(actor: Administrator, subject: Subject) -> ReasonCode:
    """Keys for oneself and one's own agents; a new user's first key from an administrator."""
    if actor.is_local_operator or _is_self(actor, subject) or _is_own_agent(actor, subject):
        return _ALLOWED
    if subject.acting_for is not None or subject.has_held_key:
        return ReasonCode.KEY_NOT_YOURS
    if subject.org_role is OrgRole.OWNER:
        return owns_organization(actor, subject.org_id)
    reason = may_administer(actor, subject.org_id)
    return reason if reason is _ALLOWED else ReasonCode.KEY_NOT_YOURS


def may_revoke_key(actor: Administrator, holder: Subject) -> ReasonCode:
    """Anyone may end their own (or their agents') keys; admins others'; owners owners'."""
    if actor.is_local_operator or _is_self(actor, holder) or _is_own_agent(actor, holder):
        return _ALLOWED
    reason = may_administer(actor, holder.org_id)
    if reason is _ALLOWED and holder.org_role is OrgRole.OWNER and holder.acting_for is None:
        return owns_organization(actor, holder.org_id)
    return reason


def may_change_space_role(
    actor: Administrator,
    org_id: str,
    actor_space_role: SpaceRole | None,
    current: SpaceRole | None,
    wanted: SpaceRole,
) -> ReasonCode:
    """Admins and space owners manage members; a space's ownership changes only by its
    owners or the organisation's owners."""
    space_owner = actor_space_role is SpaceRole.OWNER and not actor.is_agent
    if SpaceRole.OWNER in (current, wanted):
        if space_owner:
            return _ALLOWED
        reason = owns_organization(actor, org_id)
        return ReasonCode.SPACE_OWNER_REQUIRED if reason is not _ALLOWED else _ALLOWED
    if space_owner:
        return _ALLOWED
    return may_administer(actor, org_id)
