"""From an API key to a policy context: who is calling and what they may touch.

The key decides the organisation; nothing in a request can name another.
Everything a context is built from (the key record, the principal, its
memberships, spaces and delegations) changes rarely, so it is cached for a
few seconds: reading it on every request cost a search 15 % (see
benchmarks/RESULTS.md). Any change this process makes to the control plane
(a revocation included) drops the cache at once, so the serving instance
refuses a revoked key on the very next request; another instance sharing a
SurrealDB server notices within ``CACHE_TTL_S``. Delegation expiry is
judged against each request's own time.
"""

import logging
import time
from collections.abc import Callable

import msgspec

from application.ports import Clock
from application.trust.keys import parse_key
from application.trust.ports import ControlStore
from application.trust.records import ApiKeyRecord, PrincipalRecord, SpaceRecord
from domain.errors import AuthenticationError
from domain.models import Principal, PrincipalKind
from domain.policy import Delegation, MemoryPolicyContext, SpaceAccess, Surface
from domain.reasons import ReasonCode
from domain.scopes import ScopeRef

__all__ = ["CACHE_TTL_S", "AccessResolver", "Caller"]

_log = logging.getLogger("tessera.audit")

#: how long a key, principal or grants are reused before they are read again
CACHE_TTL_S = 5.0


class Caller(msgspec.Struct, frozen=True, kw_only=True):
    """An authenticated key: its organisation and the principal it belongs to."""

    key_id: str
    principal: PrincipalRecord

    @property
    def org_id(self) -> str:
        return self.principal.org_id


class _Grants(msgspec.Struct, frozen=True, kw_only=True):
    memberships: tuple[SpaceAccess, ...]
    user_memberships: tuple[SpaceAccess, ...]
    delegations: tuple[Delegation, ...]
    own_agents: frozenset[str]
    enabled_spaces: frozenset[ScopeRef]


def _principal(record: PrincipalRecord) -> Principal:
    return Principal(
        principal_id=record.principal_id, kind=record.kind, acting_for=record.acting_for
    )


class AccessResolver:
    def __init__(
        self,
        control: ControlStore,
        clock: Clock,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._control = control
        self._clock = clock
        self._monotonic = monotonic
        self._grants: dict[tuple[str, str], tuple[float, _Grants]] = {}
        self._principals: dict[tuple[str, str], tuple[float, PrincipalRecord]] = {}
        self._keys: dict[str, tuple[float, ApiKeyRecord]] = {}

    def forget(self) -> None:
        """Drop cached grants and principals: the control plane changed."""
        self._grants.clear()
        self._principals.clear()
        self._keys.clear()

    async def authenticate(self, raw_key: str | None) -> Caller:
        try:
            return await self._authenticate(raw_key)
        except AuthenticationError as exc:
            # a structured line like the audit receipts; the key's id only, never its secret
            parsed = parse_key(raw_key or "")
            _log.warning(
                '{"action":"authenticate","allowed":false,"reason":"%s","key_id":%s}',
                exc.reason,
                f'"{parsed.key_id}"' if parsed else "null",
            )
            raise

    async def _authenticate(self, raw_key: str | None) -> Caller:
        if not raw_key:
            raise AuthenticationError(ReasonCode.MISSING_API_KEY, "an API key is required")
        parsed = parse_key(raw_key)
        record = None if parsed is None else await self._key(parsed.key_id)
        if parsed is None or record is None or not parsed.matches(record.secret_hash):
            raise AuthenticationError(ReasonCode.INVALID_API_KEY, "the API key is not valid")
        if record.revoked:
            raise AuthenticationError(ReasonCode.REVOKED_API_KEY, "the API key has been revoked")
        principal = await self._principal(record.org_id, record.principal_id)
        if principal is None:
            raise AuthenticationError(ReasonCode.INVALID_API_KEY, "the API key is not valid")
        return Caller(key_id=record.key_id, principal=principal)

    async def _key(self, key_id: str) -> ApiKeyRecord | None:
        cached = self._keys.get(key_id)
        now = self._monotonic()
        if cached is not None and now - cached[0] < CACHE_TTL_S:
            return cached[1]
        found = await self._control.get_key(key_id)
        if found is not None:
            self._keys[key_id] = (now, found)
        return found

    async def _principal(self, org_id: str, principal_id: str) -> PrincipalRecord | None:
        cache_key = (org_id, principal_id)
        cached = self._principals.get(cache_key)
        now = self._monotonic()
        if cached is not None and now - cached[0] < CACHE_TTL_S:
            return cached[1]
        found = await self._control.get_principal(org_id, principal_id)
        if found is not None:
            self._principals[cache_key] = (now, found)
        return found

    async def context_for(
        self,
        principal: PrincipalRecord,
        surface: Surface,
        audit_id: str = "",
        claimed_agent: str | None = None,
    ) -> MemoryPolicyContext:
        """The principal's policy context; ``claimed_agent`` is an agent name or id the
        request asserts, kept as the agent's id when it names the key's own agent."""
        if claimed_agent is not None and claimed_agent == principal.name:
            claimed_agent = principal.principal_id
        grants = await self._grants_of(principal)
        return MemoryPolicyContext(
            org_id=principal.org_id,
            actor=_principal(principal),
            surface=surface,
            now=self._clock.now(),
            org_role=principal.org_role,
            memberships=grants.memberships,
            user_memberships=grants.user_memberships,
            delegations=grants.delegations,
            own_agents=grants.own_agents,
            enabled_spaces=grants.enabled_spaces,
            claimed_agent=claimed_agent,
            audit_id=audit_id,
        )

    async def _grants_of(self, principal: PrincipalRecord) -> _Grants:
        cache_key = (principal.org_id, principal.principal_id)
        cached = self._grants.get(cache_key)
        now = self._monotonic()
        if cached is not None and now - cached[0] < CACHE_TTL_S:
            return cached[1]
        grants = await self._load_grants(principal)
        self._grants[cache_key] = (now, grants)
        return grants

    async def _load_grants(self, principal: PrincipalRecord) -> _Grants:
        org_id = principal.org_id
        spaces = {s.space_id: s for s in await self._control.list_spaces(org_id)}
        memberships = await self._accesses(org_id, principal.principal_id, spaces)
        user_memberships: tuple[SpaceAccess, ...] = ()
        delegations: tuple[Delegation, ...] = ()
        own_agents: frozenset[str] = frozenset()
        if principal.kind is PrincipalKind.AGENT and principal.acting_for:
            user_memberships = await self._accesses(org_id, principal.acting_for, spaces)
            delegations = tuple(
                Delegation(user_id=d.user_id, agent_id=d.agent_id, expires_at=d.expires_at)
                for d in await self._control.delegations_of(org_id, principal.principal_id)
                if d.revoked_at is None  # a revoked delegation grants nothing, whatever its expiry
            )
        else:
            own_agents = frozenset(
                p.principal_id
                for p in await self._control.list_principals(org_id)
                if p.acting_for == principal.principal_id
            )
        return _Grants(
            memberships=memberships,
            user_memberships=user_memberships,
            delegations=delegations,
            own_agents=own_agents,
            enabled_spaces=frozenset(s.ref for s in spaces.values() if s.writes_enabled),
        )

    async def _accesses(
        self, org_id: str, principal_id: str, spaces: dict[str, SpaceRecord]
    ) -> tuple[SpaceAccess, ...]:
        accesses = []
        for m in await self._control.memberships_of(org_id, principal_id):
            space = spaces.get(m.space_id)
            if space is not None:
                accesses.append(
                    SpaceAccess(space=space.ref, role=m.role, writes_enabled=space.writes_enabled)
                )
        return tuple(accesses)
