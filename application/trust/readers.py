"""Every principal of an organisation as the policy sees it: the audience a preview counts.

Why each principal's own context: who may read what is decided by the same
rules, from the same memberships and delegations, as when that principal
calls; a preview that guessed from space membership alone would miss
delegated agents and organisation-wide spaces. Contexts come from the
access resolver's short cache, so a preview over a few hundred principals
reads the control plane once per principal at most.
"""

from application.trust.access import AccessResolver
from application.trust.ports import ControlStore
from application.trust.records import PrincipalRecord
from domain.policy import MemoryPolicyContext

__all__ = ["MAX_READERS", "OrgReaders", "Reader"]

#: a preview counts at most this many principals (the first by id); beyond it, it says so
MAX_READERS = 2000

Reader = tuple[PrincipalRecord, MemoryPolicyContext]


class OrgReaders:
    def __init__(self, *, control: ControlStore, access: AccessResolver) -> None:
        self._control = control
        self._access = access

    async def of(self, policy: MemoryPolicyContext) -> list[Reader]:
        """The organisation's principals (first ``MAX_READERS`` by id) with their contexts."""
        principals = sorted(
            await self._control.list_principals(policy.org_id), key=lambda p: p.principal_id
        )
        return [
            (p, await self._access.context_for(p, policy.surface, policy.audit_id))
            for p in principals[:MAX_READERS]
        ]
