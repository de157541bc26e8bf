"""Looking at memory without reading it: inspect a source, preview a space's audience.

Both answer with ids, states and reasons. Text is returned only where the
policy allows reading it in its current lifecycle state.
"""

from datetime import datetime

import msgspec

from application.ports import MemoryStore
from application.synthesis.ports import SynthesisRunStore
from application.trust.access import AccessResolver
from application.trust.audit import AuditTrail
from application.trust.guard import correct_decision, denied, may_read, require_org
from application.trust.lookup import principal_named, space_with_id
from application.trust.ports import ControlStore
from application.trust.recall_preview import recall_preview
from application.trust.records import AuditReceipt
from application.trust.source_lifecycle import (
    ActionView,
    Visibility,
    available_actions,
    history_for,
    inspect_exposure,
    is_owner,
    visibility,
    withheld_reason,
)
from domain.errors import NotFoundError, PolicyDeniedError
from domain.lifecycle import Exposure, Mark
from domain.models import Chunk, CorrectionRecord, MetadataValue, PrincipalKind
from domain.policy import MemoryPolicyContext, SpaceRole, authorize_read
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, MemoryScope, ScopeRef, SourceType
from domain.source_titles import source_author, source_title

__all__ = [
    "AccessPreview",
    "DerivedChunk",
    "MemoryInspector",
    "SourceHeading",
    "SourceView",
    "SpaceView",
]

#: an access preview looks at no more than this many sources of a space
PREVIEW_LIMIT = 10_000
#: inspect looks for a source's receipts among this many recent ones, and shows this many
RECEIPTS_SCANNED = 500
RECEIPTS_SHOWN = 20


class DerivedChunk(msgspec.Struct, frozen=True, kw_only=True):
    """One chunk derived from a source, located by its span; never its text."""

    chunk_id: str
    ordinal: int
    start: int
    end: int
    content_hash: str
    #: for a conversation turn: who spoke it and its position in the episode
    role: str | None = None
    turn_index: int | None = None


class SourceView(msgspec.Struct, frozen=True, kw_only=True):
    source_id: str
    scope: MemoryScope
    scope_key: str | None
    source_type: SourceType
    source_uri: str | None
    lifecycle: LifecycleState
    version: int
    content_hash: str
    created_by: str
    created_at: datetime
    occurred_at: datetime | None
    metadata: dict[str, MetadataValue]
    #: why the caller may see this source (the decision's reason and the space)
    visible_because: str
    #: the verbatim text, or None when its lifecycle state withholds it
    content: str | None
    withheld_reason: ReasonCode | None = None
    #: what was derived from it: the chunks that are embedded and indexed
    derived: list[DerivedChunk] = msgspec.field(default_factory=list)
    #: remembered synthesis artifacts (source ids) that cite it, those the caller may read
    cited_by: list[str] = msgspec.field(default_factory=list)
    #: how much of it this caller sees (docs/design.md#lifecycle): text, metadata, summary,
    #: tombstone
    exposure: Exposure = Exposure.TEXT
    marks: list[Mark] = msgspec.field(default_factory=list)
    superseded_by: str | None = None
    duplicate_of: str | None = None
    #: the sources superseded by, or duplicates of, this one (the other direction of the links)
    linked_from: list[str] = msgspec.field(default_factory=list)
    corrections: list[CorrectionRecord] = msgspec.field(default_factory=list)
    #: the corrections this caller may make now, each previewed first
    actions: list[ActionView] = msgspec.field(default_factory=list)
    #: who can read it (its space's readers, narrowed by its lifecycle)
    visibility: Visibility | None = None
    #: recent audit receipts naming it or its chunks (to its owner and correctors only)
    receipts: list[AuditReceipt] = msgspec.field(default_factory=list)
    #: the source in words (``domain.source_titles``): empty when its text is withheld
    title: str = ""
    author: str | None = None


class SourceHeading(msgspec.Struct, frozen=True, kw_only=True):
    """A source as a result list names it: kind, title, who and when."""

    source_id: str
    source_type: SourceType
    title: str
    author: str | None
    occurred_at: datetime | None
    created_at: datetime


class AccessPreview(msgspec.Struct, frozen=True, kw_only=True):
    space_id: str
    scope: MemoryScope
    scope_key: str | None
    principal_id: str
    allowed: bool
    reason: ReasonCode
    recallable_source_ids: list[str]
    hidden_count: int
    deny_reasons: dict[str, int]
    total_sources: int


class SpaceView(msgspec.Struct, frozen=True, kw_only=True):
    space_id: str | None
    scope: MemoryScope
    scope_key: str | None
    name: str
    writes_enabled: bool
    role: SpaceRole | None = None


def _why(ctx: MemoryPolicyContext, ref: ScopeRef) -> str:
    if ref.scope is MemoryScope.PRIVATE:
        if ref.scope_key == ctx.agent_id:
            return "private: this agent's own notes"
        if ref.scope_key == ctx.user_id:
            return "private: your own memory" + (" (live delegation)" if ctx.is_agent else "")
        return "private: written by an agent acting for you"
    if ref.scope in (MemoryScope.ORGANIZATION, MemoryScope.PUBLIC):
        return f"{ref.scope}: open to everyone in the organisation"
    return f"{ref.scope}/{ref.scope_key}: verified membership"


class MemoryInspector:
    def __init__(
        self,
        *,
        store: MemoryStore,
        control: ControlStore,
        access: AccessResolver,
        audit: AuditTrail,
        synthesis_runs: SynthesisRunStore | None = None,
    ) -> None:
        self._store = store
        self._control = control
        self._access = access
        self._audit = audit
        self._synthesis_runs = synthesis_runs

    async def inspect_source(self, ctx: MemoryPolicyContext, source_id: str) -> SourceView:
        require_org(ctx, ctx.org_id)
        source = await self._store.get_source(ctx.org_id, source_id)
        if source is None:
            self._audit.note(ctx, "inspect", reason=ReasonCode.NOT_FOUND, ids=[source_id])
            raise NotFoundError(ReasonCode.NOT_FOUND, f"no source with id {source_id!r}")
        ref = ScopeRef(source.scope, source.scope_key)
        scope_decision = authorize_read(ctx, ref)
        if not scope_decision.allowed:
            self._audit.note(ctx, "inspect", scope_decision, ids=[source_id])
            raise denied(scope_decision, "inspecting a source")
        may_correct = correct_decision(ctx, source).allowed
        shown = inspect_exposure(ctx, source, may_correct)
        if shown is Exposure.NOTHING:
            # others learn nothing of a hidden, redacted or deleted source, not even that it exists
            self._audit.note(ctx, "inspect", reason=ReasonCode.NOT_FOUND, ids=[source_id])
            raise NotFoundError(ReasonCode.NOT_FOUND, f"no source with id {source_id!r}")
        text = shown in (Exposure.TEXT, Exposure.SUMMARY)
        chunks = await self._store.chunks_of_source(ctx.org_id, source_id)
        privileged = may_correct or is_owner(ctx, source)
        receipts = await self._receipts(ctx, source_id, chunks) if privileged else []
        self._audit.note(ctx, "inspect", scope_decision, ids=[source_id])
        view = SourceView(
            source_id=source.source_id,
            scope=source.scope,
            scope_key=source.scope_key,
            source_type=source.source_type,
            source_uri=source.source_uri,
            lifecycle=source.lifecycle,
            version=source.version,
            content_hash=source.content_hash,
            created_by=source.created_by,
            created_at=source.created_at,
            occurred_at=source.occurred_at,
            metadata=source.metadata if shown is Exposure.TEXT else {},
            visible_because=_why(ctx, ref),
            content=source.content if text else None,
            withheld_reason=withheld_reason(source, shown),
            exposure=shown,
            marks=sorted(source.marks),
            superseded_by=source.superseded_by,
            duplicate_of=source.duplicate_of,
            linked_from=await self._store.linked_sources(ctx.org_id, source_id),
            corrections=history_for(source, privileged),
            actions=available_actions(source, may_correct),
            visibility=visibility(source),
            receipts=receipts,
            title=source_title(source.content, source.metadata) if text else "",
            author=source_author(source.metadata) if shown is Exposure.TEXT else None,
            derived=[
                DerivedChunk(
                    chunk_id=c.chunk_id,
                    ordinal=c.ordinal,
                    start=c.start,
                    end=c.end,
                    content_hash=c.content_hash,
                    role=c.role,
                    turn_index=c.turn_index,
                )
                for c in chunks
            ],
        )
        return await self._with_citations(ctx, view)

    async def headings(
        self, ctx: MemoryPolicyContext, source_ids: list[str]
    ) -> dict[str, SourceHeading]:
        """The sources of a result list in words, read in one batch; a source the caller
        may not read now has no heading. No receipt: the search that listed them left one."""
        require_org(ctx, ctx.org_id)
        found = await self._store.get_sources(ctx.org_id, list(dict.fromkeys(source_ids)))
        return {
            source_id: SourceHeading(
                source_id=source_id,
                source_type=source.source_type,
                title=source_title(source.content, source.metadata),
                author=source_author(source.metadata),
                occurred_at=source.occurred_at,
                created_at=source.created_at,
            )
            for source_id, source in found.items()
            if may_read(ctx, source)
        }

    async def _with_citations(self, ctx: MemoryPolicyContext, view: SourceView) -> SourceView:
        """Add the readable artifacts that cite the source (synthesis provenance)."""
        if self._synthesis_runs is None:
            return view
        runs = await self._synthesis_runs.runs_citing(ctx.org_id, view.source_id)
        cited_by = []
        for run in runs:
            assert run.artifact_source_id is not None  # runs_citing returns remembered runs
            artifact = await self._store.get_source(ctx.org_id, run.artifact_source_id)
            if artifact is not None and may_read(ctx, artifact):
                cited_by.append(artifact.source_id)
        return msgspec.structs.replace(view, cited_by=cited_by)

    async def _receipts(
        self, ctx: MemoryPolicyContext, source_id: str, chunks: list[Chunk]
    ) -> list[AuditReceipt]:
        """Who read or changed it lately: receipts naming the source or one of its chunks."""
        names = [source_id, *(c.chunk_id for c in chunks)]
        return await self._audit.recent_naming(
            ctx.org_id, names, RECEIPTS_SCANNED, RECEIPTS_SHOWN
        )

    async def access_preview(
        self, ctx: MemoryPolicyContext, space_id: str, principal: str
    ) -> AccessPreview:
        """What ``principal`` could recall from the space: ids, counts and reasons only."""
        require_org(ctx, ctx.org_id)
        space = await space_with_id(self._control, ctx.org_id, space_id)
        await self._require_space_admin(ctx, space_id)
        target = await principal_named(self._control, ctx.org_id, principal)
        their = await self._access.context_for(target, ctx.surface)
        space_decision = authorize_read(their, space.ref)
        found = await recall_preview(self._store, their, space.ref, PREVIEW_LIMIT)
        self._audit.note(
            ctx,
            "access_preview",
            ids=[space_id, target.principal_id],
            counts={"recallable": len(found.recallable), "sources": found.total},
        )
        return AccessPreview(
            space_id=space_id,
            scope=space.scope,
            scope_key=space.scope_key,
            principal_id=target.principal_id,
            allowed=space_decision.allowed,
            reason=space_decision.reason,
            recallable_source_ids=found.recallable,
            hidden_count=found.not_active,
            deny_reasons=found.deny_reasons,
            total_sources=found.total,
        )

    async def _require_space_admin(self, ctx: MemoryPolicyContext, space_id: str) -> None:
        if ctx.actor is not None and ctx.org_role.administers and not ctx.is_agent:
            return
        if ctx.actor is not None:
            for m in await self._control.memberships_of(ctx.org_id, ctx.actor.principal_id):
                if m.space_id == space_id and m.role is SpaceRole.OWNER:
                    return
        self._audit.note(ctx, "access_preview", reason=ReasonCode.ADMIN_REQUIRED, ids=[space_id])
        raise PolicyDeniedError(
            ReasonCode.ADMIN_REQUIRED,
            "an access preview needs an organisation admin or space owner",
        )

    async def visible_spaces(self, ctx: MemoryPolicyContext) -> list[SpaceView]:
        """The spaces the caller may read, with their role where they are a member."""
        require_org(ctx, ctx.org_id)
        roles = {a.space: a.role for a in (*ctx.user_memberships, *ctx.memberships)}
        views = []
        if ctx.actor is not None:
            owner = ctx.actor.principal_id
            kind = "agent notes" if ctx.actor.kind is PrincipalKind.AGENT else "memory"
            views.append(
                SpaceView(
                    space_id=None,
                    scope=MemoryScope.PRIVATE,
                    scope_key=owner,
                    name=f"private {kind}",
                    writes_enabled=True,
                    role=SpaceRole.OWNER,
                )
            )
        for space in await self._control.list_spaces(ctx.org_id):
            if authorize_read(ctx, space.ref).allowed:
                views.append(
                    SpaceView(
                        space_id=space.space_id,
                        scope=space.scope,
                        scope_key=space.scope_key,
                        name=space.name,
                        writes_enabled=space.writes_enabled,
                        role=roles.get(space.ref),
                    )
                )
        return views
