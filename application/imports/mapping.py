"""From an import record to the ``remember`` request that stores it.

Why one function: every importer (CLI, HTTP, benchmarks) must store a record
the same way, with the same metadata and the same scope rules.
"""

from application.imports.records import ImportRecord
from application.memory.commands import RememberRequest
from domain.models import Turn
from domain.scopes import MemoryScope

__all__ = ["remember_request"]


def remember_request(
    record: ImportRecord,
    *,
    org_id: str,
    scope: MemoryScope = MemoryScope.PRIVATE,
    scope_key: str | None = None,
) -> RememberRequest:
    """The request for ``record``; the caller still runs ``validate()`` and the policy.

    A turn's speaker is not stored yet: ``Turn`` has no speaker field until the
    conversation work adds one, so it stays on the import record meanwhile.
    """
    turns = (
        None
        if record.turns is None
        else [Turn(role=t.role, content=t.content, occurred_at=t.occurred_at) for t in record.turns]
    )
    return RememberRequest(
        org_id=org_id,
        content=record.content,
        turns=turns,
        scope=scope,
        scope_key=scope_key,
        source_type=record.source_type,
        source_uri=record.source_uri,
        metadata=record.metadata(),
        occurred_at=record.occurred_at,
    )
