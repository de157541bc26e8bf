"""What both correction use cases hold: one constructor for a single and a bulk correction.

``CorrectionService`` (one source) and ``BulkDelete`` (many) change the same
things the same way: the store and the index, dated by the clock, with an
audit receipt, applied only with a preview token. They take their
collaborators from here, so wiring one differently from the other cannot
happen by accident.
"""

from application.ports import Clock, MemoryStore, RetrievalIndex
from application.reflection.forgetting import DerivedForgetting
from application.trust.audit import AuditTrail
from application.trust.preview_tokens import PreviewTokens

__all__ = ["CorrectionUseCase"]


class CorrectionUseCase:
    def __init__(
        self,
        *,
        store: MemoryStore,
        index: RetrievalIndex,
        clock: Clock,
        audit: AuditTrail,
        tokens: PreviewTokens,
        derived: DerivedForgetting | None = None,
    ) -> None:
        #: removes candidates and promoted records quoting a source whose text leaves
        self._derived = derived
        self._store = store
        self._index = index
        self._clock = clock
        self._audit = audit
        self._tokens = tokens
