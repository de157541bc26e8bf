"""Re-authorizing a job before each batch: its stored authority against the control plane now.

Why not keep the context the job started with: a key revoked or a principal
removed mid-import must stop the import at the next batch. The key is read
without a cache; the principal's grants come from the same resolver as every
request (so a revoked membership is seen as soon as any request sees it).
"""

from application.imports.jobs import JobAuthority
from application.trust.access import AccessResolver
from application.trust.ports import ControlStore
from domain.errors import PolicyDeniedError
from domain.policy import MemoryPolicyContext
from domain.reasons import ReasonCode

__all__ = ["JobAuthorizer"]


class JobAuthorizer:
    def __init__(self, control: ControlStore, access: AccessResolver) -> None:
        self._control = control
        self._access = access

    async def context(self, authority: JobAuthority | None) -> MemoryPolicyContext:
        """The job's policy context, or ``PolicyDeniedError`` (missing / stale): fail closed."""
        if authority is None:
            raise PolicyDeniedError(
                ReasonCode.JOB_POLICY_CONTEXT_MISSING, "the job carries no policy context"
            )
        if authority.key_id is not None:
            key = await self._control.get_key(authority.key_id)
            if key is None or key.revoked or key.principal_id != authority.principal_id:
                raise PolicyDeniedError(
                    ReasonCode.JOB_POLICY_CONTEXT_STALE, "the key that started the job is revoked"
                )
        principal = await self._control.get_principal(authority.org_id, authority.principal_id)
        if principal is None:
            raise PolicyDeniedError(
                ReasonCode.JOB_POLICY_CONTEXT_STALE, "the principal of the job no longer exists"
            )
        return await self._access.context_for(principal, authority.surface)
