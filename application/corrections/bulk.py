"""Deleting many sources at once: a space, a list of ids, an import, everything of mine.

Same two steps as one correction: the preview selects the sources the
caller may correct (and says how many it skipped), and binds its token to
the selection's ids and versions; apply selects again and refuses with 409
``source_changed`` if anything changed in between. Each source becomes a
tombstone exactly as a single ``delete`` makes it.
"""

import hashlib

import msgspec

from application.corrections.base import CorrectionUseCase
from application.corrections.commands import CorrectionRequest
from application.corrections.planning import corrected
from application.trust.guard import correct_decision, require_org
from domain.errors import InvalidInputError
from domain.lifecycle import CorrectionAction, plan
from domain.models import Source
from domain.policy import MemoryPolicyContext, authorize_read, recall_owners
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope, ScopeRef

__all__ = ["BulkDelete", "BulkDeletePreview", "BulkDeleteResult", "BulkSelector"]

#: sources read per page while selecting
_PAGE = 1_000
#: at most this many ids are listed in a preview (the counts are always complete)
_LISTED = 1_000
_ACTION = "bulk_delete"


class BulkSelector(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Exactly one of: a space (``scope`` and its ``scope_key``), ``source_ids``, an import
    (``source_uri_prefix``), or ``mine`` (every source whose owner is the caller)."""

    scope: MemoryScope | None = None
    scope_key: str | None = None
    source_ids: list[str] | None = None
    source_uri_prefix: str | None = None
    mine: bool = False
    reason: str | None = None

    def validate(self) -> None:
        chosen = [
            self.scope is not None,
            self.source_ids is not None,
            bool(self.source_uri_prefix),
            self.mine,
        ]
        if sum(chosen) != 1:
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST,
                "name exactly one of scope, source_ids, source_uri_prefix or mine",
            )
        CorrectionRequest(action=CorrectionAction.DELETE, reason=self.reason).validate()

    def matches(self, ctx: MemoryPolicyContext, source: Source) -> bool:
        if self.scope is not None:
            return (source.scope, source.scope_key) == (self.scope, self.scope_key)
        if self.source_ids is not None:
            return source.source_id in self.source_ids
        if self.source_uri_prefix:
            return (source.source_uri or "").startswith(self.source_uri_prefix)
        return source.owner in recall_owners(ctx)


class BulkDeletePreview(msgspec.Struct, frozen=True, kw_only=True):
    sources: int
    chunks_estimate: int
    #: matching sources the caller may not delete (or already deleted)
    skipped: int
    source_ids: list[str]
    reversible: bool = False
    audit_action: str = _ACTION
    preview_token: str


class BulkDeleteResult(msgspec.Struct, frozen=True, kw_only=True):
    deleted: int
    source_ids: list[str]


class BulkDelete(CorrectionUseCase):
    async def _select(
        self, ctx: MemoryPolicyContext, selector: BulkSelector
    ) -> tuple[list[Source], int]:
        require_org(ctx, ctx.org_id)
        selector.validate()
        chosen, skipped, after = [], 0, None
        while True:
            page = await self._store.list_sources(ctx.org_id, after, _PAGE)
            for source in page:
                if not selector.matches(ctx, source):
                    continue
                ref = ScopeRef(source.scope, source.scope_key)
                may = authorize_read(ctx, ref).allowed and correct_decision(ctx, source).allowed
                if may and plan(CorrectionAction.DELETE, source.lifecycle).allowed:
                    chosen.append(source)
                else:
                    skipped += 1
            if len(page) < _PAGE:
                return chosen, skipped
            after = page[-1].source_id

    @staticmethod
    def _state(sources: list[Source]) -> str:
        ids = "\n".join(f"{s.source_id}:{s.version}" for s in sources)
        return hashlib.sha256(ids.encode("utf-8")).hexdigest()[:24]

    async def preview(self, ctx: MemoryPolicyContext, selector: BulkSelector) -> BulkDeletePreview:
        sources, skipped = await self._select(ctx, selector)
        digest = hashlib.sha256(msgspec.json.encode(selector)).hexdigest()
        chunks = 0
        for source in sources[:_LISTED]:
            chunks += len(await self._store.chunks_of_source(ctx.org_id, source.source_id))
        self._audit.note(
            ctx, "preview_" + _ACTION, counts={"sources": len(sources), "skipped": skipped}
        )
        return BulkDeletePreview(
            sources=len(sources),
            chunks_estimate=chunks,
            skipped=skipped,
            source_ids=[s.source_id for s in sources[:_LISTED]],
            preview_token=self._tokens.issue(ctx, _ACTION, self._state(sources), digest),
        )

    async def apply(
        self, ctx: MemoryPolicyContext, selector: BulkSelector, preview_token: str | None
    ) -> BulkDeleteResult:
        sources, _ = await self._select(ctx, selector)
        digest = hashlib.sha256(msgspec.json.encode(selector)).hexdigest()
        self._tokens.check(preview_token, ctx, _ACTION, self._state(sources), digest)
        request = CorrectionRequest(action=CorrectionAction.DELETE, reason=selector.reason)
        assert ctx.actor is not None  # require_org refused a request without one
        for source in sources:
            outcome = plan(CorrectionAction.DELETE, source.lifecycle, source.marks)
            tomb = corrected(
                source,
                request,
                outcome,
                actor_id=ctx.user_id or ctx.actor.principal_id,
                agent_id=ctx.agent_id,
                now=self._clock.now(),
            )
            await self._store.update_source(tomb, expected_version=source.version, drop_text=True)
            await self._index.remove(ctx.org_id, source.source_id)
            if self._derived is not None:
                await self._derived.forget(ctx.org_id, source.source_id)
        ids = [s.source_id for s in sources]
        self._audit.note(ctx, _ACTION, ids=ids[:_LISTED], counts={"deleted": len(ids)})
        return BulkDeleteResult(deleted=len(ids), source_ids=ids)
