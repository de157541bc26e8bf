"""What a promotion preview's token is bound to: the caller, the candidate, its review
state and its sources' versions, and the target space (``accept_preview``, ``review``)."""

import hashlib
from collections.abc import Sequence

from application.trust.preview_tokens import PreviewTokens
from domain.errors import InvalidInputError
from domain.models import Source
from domain.policy import MemoryPolicyContext
from domain.reasons import ReasonCode
from domain.reflection.candidates import ReflectionCandidate
from domain.scopes import ScopeRef

__all__ = ["accept_digest", "accept_state", "accept_subject", "check_accept_token"]


def accept_subject(candidate_id: str) -> str:
    return f"accept:{candidate_id}"


def accept_state(candidate: ReflectionCandidate, sources: Sequence[Source]) -> str:
    """The candidate's review state and its sources' versions: what a token is bound to."""
    parts = [str(candidate.state), *(f"{s.source_id}:{s.version}" for s in sources)]
    return "c" + hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:16]


def accept_digest(target: ScopeRef) -> str:
    return f"{target.scope}/{target.scope_key or ''}"


def check_accept_token(
    tokens: PreviewTokens | None,
    token: str,
    policy: MemoryPolicyContext,
    candidate: ReflectionCandidate,
    sources: Sequence[Source],
    where: ScopeRef,
) -> None:
    """A promotion preview's token must be this caller's, for this candidate, target and state."""
    if tokens is None:
        raise InvalidInputError(ReasonCode.PREVIEW_INVALID, "no preview made this token")
    tokens.check(
        token,
        policy,
        accept_subject(candidate.candidate_id),
        accept_state(candidate, sources),
        accept_digest(where),
    )
