"""Who a document is for, and so which memory it may draw on.

An audience is ``principal:<id or name>`` (the document may use only what
that principal may read, decided by the same policy rules with their own
context) or ``space:<scope>[/<key>]`` (only memory of that space, plus the
organisation-wide and public spaces every member reads). No audience means
the actor alone. A synthesis uses memory readable by both the actor and the
audience; what only the actor may read is counted as hidden, never shown.
"""

from collections.abc import Callable

from application.trust.access import AccessResolver
from application.trust.guard import may_read
from application.trust.ports import ControlStore
from domain.errors import InvalidInputError, NotFoundError
from domain.models import Chunk
from domain.policy import MemoryPolicyContext
from domain.reasons import ReasonCode
from domain.scopes import KEYED_SCOPES, MemoryScope, ScopeRef

__all__ = ["AudienceResolver", "ReadableBy", "parse_space"]

ReadableBy = Callable[[Chunk], bool]

#: spaces every member of the organisation reads, so every audience reads them too
_EVERYONE = frozenset({MemoryScope.ORGANIZATION, MemoryScope.PUBLIC})


def parse_space(raw: str) -> ScopeRef:
    scope_raw, _, key = raw.partition("/")
    try:
        scope = MemoryScope(scope_raw.strip().lower())
    except ValueError:
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST, "audience space must be <scope>[/<key>]"
        ) from None
    if scope in KEYED_SCOPES and not key.strip():
        raise InvalidInputError(ReasonCode.MISSING_SCOPE_KEY, f"scope '{scope}' needs a key")
    return ScopeRef(scope, key.strip() or None)


class AudienceResolver:
    def __init__(self, *, control: ControlStore, access: AccessResolver) -> None:
        self._control = control
        self._access = access

    async def readable_by(self, policy: MemoryPolicyContext, audience: str | None) -> ReadableBy:
        """A test: may the audience read this chunk? (The actor's own check comes first.)"""
        if audience is None:
            return lambda _chunk: True
        kind, _, value = audience.partition(":")
        if kind == "space" and value:
            space = parse_space(value)
            return lambda c: c.scope in _EVERYONE or ScopeRef(c.scope, c.scope_key) == space
        if kind == "principal" and value:
            record = await self._control.get_principal(
                policy.org_id, value
            ) or await self._control.find_principal(policy.org_id, value)
            if record is None:
                raise NotFoundError(ReasonCode.NOT_FOUND, "the audience principal does not exist")
            reader = await self._access.context_for(record, policy.surface)
            return lambda c: may_read(reader, c)
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST, "audience must be principal:<id> or space:<scope>[/<key>]"
        )
