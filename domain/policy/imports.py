"""Who may import by path: reading files from the server's disk is an operator's grant.

A path import reads whatever lies at a path on the server, not memory a
principal already holds, so the memory rules (spaces, delegations) cannot
decide it. The rule, named once here: an organisation's owner, acting as
themselves, may import by path inside their organisation's import area; any
other principal (a member, an admin, any agent) only when the operator
approved that principal by id. An upload needs no approval: its bytes come
from the caller, and only its uploader can import it.
"""

from collections.abc import Collection

from domain.policy.context import MemoryPolicyContext, OrgRole
from domain.policy.rules import caller_problem
from domain.reasons import ReasonCode

__all__ = ["authorize_path_import"]


def authorize_path_import(
    ctx: MemoryPolicyContext, approved: Collection[tuple[str, str]] = ()
) -> ReasonCode:
    """ALLOWED, or why this caller may not import by path.

    ``approved``: the (organisation id, principal id) pairs an operator let
    import by path besides the organisations' owners.
    """
    problem = caller_problem(ctx)
    if problem is not None:
        return problem
    assert ctx.actor is not None  # caller_problem answers for a missing actor
    if (ctx.org_id, ctx.actor.principal_id) in approved:
        return ReasonCode.ALLOWED
    if ctx.is_agent or ctx.org_role is not OrgRole.OWNER:
        return ReasonCode.PATH_IMPORT_NOT_ALLOWED
    return ReasonCode.ALLOWED
