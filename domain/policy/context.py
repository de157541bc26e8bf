"""What the memory policy knows about a caller when it decides.

The context is assembled once per request by the application layer from the
control plane (key -> principal, memberships, delegations) and then passed,
unchanged, to every decision of that request. Deciding needs nothing else:
no I/O, no clock (``now`` is in the context).
"""

from datetime import datetime
from enum import StrEnum

import msgspec

from domain.models import Principal, PrincipalKind
from domain.scopes import ScopeRef

__all__ = [
    "Delegation",
    "MemoryPolicyContext",
    "OrgRole",
    "SpaceAccess",
    "SpaceRole",
    "Surface",
]


class Surface(StrEnum):
    API = "api"
    CLI = "cli"
    MCP = "mcp"
    JOB = "job"
    WEB = "web"


class OrgRole(StrEnum):
    OWNER = "owner"
    ADMIN = "admin"
    MEMBER = "member"

    @property
    def administers(self) -> bool:
        return self is not OrgRole.MEMBER


class SpaceRole(StrEnum):
    OWNER = "owner"
    WRITER = "writer"
    READER = "reader"

    @property
    def can_write(self) -> bool:
        return self is not SpaceRole.READER


class SpaceAccess(msgspec.Struct, frozen=True, kw_only=True):
    """A verified membership: the space, the member's role, and whether it takes writes."""

    space: ScopeRef
    role: SpaceRole
    writes_enabled: bool = False


class Delegation(msgspec.Struct, frozen=True, kw_only=True):
    """A user lets one agent act on their private and delegated memory until ``expires_at``."""

    user_id: str
    agent_id: str
    expires_at: datetime

    def live_at(self, now: datetime) -> bool:
        return now < self.expires_at


class MemoryPolicyContext(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a decision may look at.

    ``memberships`` are the caller's own verified memberships. For an agent,
    ``user_memberships`` are its user's: the agent may use them only while a
    delegation from that user is live. ``own_agents`` lists a user's agents,
    whose private notes (agent diaries) the user may read. ``enabled_spaces``
    are the organisation's spaces that accept writes; team, organization,
    shared and public writes are refused until their space is listed there.
    """

    org_id: str
    actor: Principal | None
    surface: Surface
    now: datetime
    org_role: OrgRole = OrgRole.MEMBER
    memberships: tuple[SpaceAccess, ...] = ()
    user_memberships: tuple[SpaceAccess, ...] = ()
    delegations: tuple[Delegation, ...] = ()
    own_agents: frozenset[str] = frozenset()
    enabled_spaces: frozenset[ScopeRef] = frozenset()
    #: an agent identity the request asserts besides its key (e.g. a client's header):
    #: it must be the key's own agent, or the request is refused
    claimed_agent: str | None = None
    audit_id: str = ""

    @property
    def is_agent(self) -> bool:
        return self.actor is not None and self.actor.kind is PrincipalKind.AGENT

    @property
    def user_id(self) -> str | None:
        """The person whose authority this request carries (an agent's user)."""
        if self.actor is None:
            return None
        return self.actor.acting_for if self.is_agent else self.actor.principal_id

    @property
    def agent_id(self) -> str | None:
        return self.actor.principal_id if self.is_agent and self.actor else None
