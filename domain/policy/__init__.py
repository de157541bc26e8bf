"""The memory policy: a pure function of a context and a space (docs/design.md#policy)."""

from domain.policy.context import (
    Delegation,
    MemoryPolicyContext,
    OrgRole,
    SpaceAccess,
    SpaceRole,
    Surface,
)
from domain.policy.decision import POLICY_REASONS, PolicyDecision
from domain.policy.imports import authorize_path_import
from domain.policy.rules import (
    SCOPE_BREADTH,
    WRITES_NEED_ENABLING,
    authorize_correct,
    authorize_read,
    authorize_reflect,
    authorize_share,
    authorize_write,
    caller_problem,
    readable_spaces,
    recall_keys,
    recall_owners,
)

__all__ = [
    "POLICY_REASONS",
    "SCOPE_BREADTH",
    "WRITES_NEED_ENABLING",
    "Delegation",
    "MemoryPolicyContext",
    "OrgRole",
    "PolicyDecision",
    "SpaceAccess",
    "SpaceRole",
    "Surface",
    "authorize_correct",
    "authorize_path_import",
    "authorize_read",
    "authorize_reflect",
    "authorize_share",
    "authorize_write",
    "caller_problem",
    "readable_spaces",
    "recall_keys",
    "recall_owners",
]
