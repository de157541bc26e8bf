"""The wake pack: what matters now for the caller, without a query, in a small budget.

An agent starting a session asks once and gets active decisions, open
tasks, preferences and recent memory, each with its raw source ids and the
reason it was chosen. Promoted derived records come first (they say in one
sentence what a session decided); recent raw sources fill in where nothing
was promoted yet, so a fresh install still wakes with something useful.

The gates are the ones recall uses: a derived record only when the caller
may read every one of its sources now (active, in a readable space, not
hidden or someone else's sensitive memory), a raw source only when the
caller may read it; a record another has superseded is left out (its
replacement names it in ``supersedes``); stale evidence is flagged and
shown after fresh. Tokens are counted with the context packs' counter, and
the rendered pack (headings included) never exceeds the budget.
"""

import asyncio
import itertools

from application.ports import MemoryStore, TokenCounter
from application.ports.records import SourceLifecycle
from application.ports.reflection import GraphStore
from application.ports.reflection_records import DerivedEntity
from application.retrieval.wake_records import WakeItem, WakePack, WakeRequest
from application.trust.audience import parse_space
from application.trust.audit import AuditTrail
from application.trust.guard import denied, may_read, require_org
from application.trust.reading import unreadable_reason
from domain.budget import trim_to_budget
from domain.lifecycle import Mark
from domain.models import Chunk
from domain.policy import MemoryPolicyContext, authorize_read, readable_spaces
from domain.reflection.candidates import CandidateType
from domain.scopes import ScopeRef
from domain.wake import SECTION_TITLES, WakeSection, section_of, share_budget

__all__ = ["WakePacker"]

#: promoted records a wake pack considers (newest first)
_ENTITY_DEPTH = 40
#: recent raw sources it considers as a fallback
_RECENT_DEPTH = 8
#: one item's text is clipped to this many tokens, so one long record cannot take it all
MAX_ITEM_TOKENS = 100
_WAKE_TYPES = frozenset(
    {
        CandidateType.DECISION,
        CandidateType.TASK,
        CandidateType.PREFERENCE,
        CandidateType.EVENT,
        CandidateType.FACT,
    }
)
_LABELS = {
    WakeSection.DECISIONS: "active decision",
    WakeSection.TASKS: "open task",
    WakeSection.PREFERENCES: "stated preference",
    WakeSection.RECENT: "recent",
}


def _line(text: str) -> str:
    return "- " + " ".join(text.split()) + "\n"


def _heading(section: WakeSection) -> str:
    return f"## {SECTION_TITLES[section]}\n"


class WakePacker:
    def __init__(
        self,
        *,
        store: MemoryStore,
        graph: GraphStore | None,
        tokens: TokenCounter,
        audit: AuditTrail,
    ) -> None:
        self._store = store
        self._graph = graph
        self._tokens = tokens
        self._audit = audit

    def _clip(self, text: str) -> str:
        """The text, or its first words and an ellipsis, within ``MAX_ITEM_TOKENS``."""
        flat = " ".join(text.split())
        if self._tokens.count(_line(flat)) <= MAX_ITEM_TOKENS:
            return flat
        words = flat.split(" ")
        low, high = 1, len(words)
        while low < high:  # the most words that still fit
            mid = (low + high + 1) // 2
            if self._tokens.count(_line(" ".join(words[:mid]) + " …")) <= MAX_ITEM_TOKENS:
                low = mid
            else:
                high = mid - 1
        return " ".join(words[:low]) + " …"

    def _visible(self, request: WakeRequest, policy: MemoryPolicyContext) -> frozenset[ScopeRef]:
        if request.space is None:
            return readable_spaces(policy)
        space = parse_space(request.space)
        decision = authorize_read(policy, space)
        if not decision.allowed:
            self._audit.note(policy, "wake", decision)
            raise denied(decision, "waking")
        return frozenset({space})

    async def wake(self, request: WakeRequest, policy: MemoryPolicyContext) -> WakePack:
        request.validate()
        require_org(policy, request.org_id)
        visible = self._visible(request, policy)
        derived, superseded = await self._derived(request.org_id, policy, visible)
        cited = {sid for item in derived for sid in item.source_ids}
        recent = await self._recent(request.org_id, policy, visible, cited, bool(derived))
        offers: dict[WakeSection, list[WakeItem]] = {s: [] for s in WakeSection}
        for item in [*derived, *recent]:
            offers[item.section].append(item)
        for section, items in offers.items():  # fresh evidence before stale, order kept
            offers[section] = [i for i in items if not i.stale] + [i for i in items if i.stale]
        taken = share_budget(
            {s: [i.token_count for i in items] for s, items in offers.items()},
            {s: self._tokens.count(_heading(s)) for s in WakeSection},
            request.token_budget,
        )
        chosen = [offers[s][n] for s in WakeSection if s in taken for n in taken[s]]
        items, (rendered, count) = trim_to_budget(
            chosen, self._render, lambda done: done[1], request.token_budget
        )
        considered = sum(len(v) for v in offers.values())
        self._audit.note(
            policy,
            "wake",
            ids=[i.entity_id or i.chunk_ids[0] for i in items],
            counts={
                "returned": len(items),
                "omitted": considered - len(items),
                "superseded": superseded,
            },
        )
        return WakePack(
            token_budget=request.token_budget,
            token_count=count,
            encoding=self._tokens.encoding,
            items=items,
            rendered=rendered,
            omitted=considered - len(items),
            space=request.space,
        )

    def _render(self, items: list[WakeItem]) -> tuple[str, int]:
        """The pack as text, a heading before each section's items, and its token count."""
        text = "".join(
            _heading(section) + "".join(_line(i.text) for i in group)
            for section, group in itertools.groupby(items, key=lambda i: i.section)
        )
        return text, self._tokens.count(text)

    async def _derived(
        self, org_id: str, policy: MemoryPolicyContext, visible: frozenset[ScopeRef]
    ) -> tuple[list[WakeItem], int]:
        """Promoted records the caller may read, newest first; and how many were superseded."""
        if self._graph is None:
            return [], 0
        found = await self._graph.recent_entities(org_id, _WAKE_TYPES, visible, _ENTITY_DEPTH)
        lifecycles = await self._store.source_lifecycles(
            org_id, list(dict.fromkeys(s for e in found for s in e.source_ids))
        )
        readable = [
            e
            for e in found
            if all(unreadable_reason(policy, lifecycles.get(s)) is None for s in e.source_ids)
        ]
        ids = [e.entity_id for e in readable]
        if not ids:
            return [], 0
        # the supersessions and the mentions side by side (those of a record found
        # superseded are read for nothing): one round trip deep instead of two
        links, mentions = await asyncio.gather(
            self._graph.supersessions(org_id, ids), self._graph.mentions_of(org_id, ids)
        )
        older = {link.older_id for link in links}
        kept = [e for e in readable if e.entity_id not in older]
        items = []
        for entity in kept:
            section = section_of(entity.type)
            if section is None:
                continue
            replaced = [x.older_id for x in links if x.newer_id == entity.entity_id]
            items.append(
                self._derived_item(
                    entity, section, mentions.get(entity.entity_id, []), lifecycles, replaced
                )
            )
        return items, len(readable) - len(kept)

    def _derived_item(
        self,
        entity: DerivedEntity,
        section: WakeSection,
        chunk_ids: list[str],
        lifecycles: dict[str, SourceLifecycle],
        replaced: list[str],
    ) -> WakeItem:
        text = self._clip(entity.name)
        stale = any(Mark.STALE in lifecycles[s].marks for s in entity.source_ids)
        label = _LABELS[section] if section is not WakeSection.RECENT else f"recent {entity.type}"
        reason = (
            f"{label}: promoted record ({entity.provenance.transform}), "
            f"valid from {entity.provenance.valid_from.date().isoformat()}, newest first"
        )
        if replaced:
            reason += f"; replaces {len(replaced)} older record(s)"
        if stale:
            reason += "; stale: shown after fresh evidence"
        return WakeItem(
            section=section,
            type=str(entity.type),
            text=text,
            reason=reason,
            source_ids=list(entity.source_ids),
            token_count=self._tokens.count(_line(text)),
            scope=entity.scope.scope,
            scope_key=entity.scope.scope_key,
            entity_id=entity.entity_id,
            chunk_ids=chunk_ids,
            valid_from=entity.provenance.valid_from,
            stale=stale,
            supersedes=replaced,
        )

    async def _recent(
        self,
        org_id: str,
        policy: MemoryPolicyContext,
        visible: frozenset[ScopeRef],
        cited: set[str],
        any_derived: bool,
    ) -> list[WakeItem]:
        """The newest readable sources no shown record cites: their first passage each."""
        sources = await self._store.recent_sources(org_id, visible, _RECENT_DEPTH + len(cited))
        eligible = [s for s in sources if s.source_id not in cited and may_read(policy, s)]
        items: list[WakeItem] = []
        firsts: dict[str, Chunk | None] = {}
        for n, source in enumerate(eligible):
            if source.source_id not in firsts:
                # the first passages of as many sources as could still be used, read side by
                # side (one after another, each waited for the one before: up to 8 deep)
                batch = eligible[n : n + _RECENT_DEPTH - len(items)]
                read = await asyncio.gather(
                    *(self._store.chunks_of_source(org_id, s.source_id) for s in batch)
                )
                for got, chunks in zip(batch, read, strict=True):
                    firsts[got.source_id] = chunks[0] if chunks else None
            first = firsts[source.source_id]
            if first is None:
                continue
            text = self._clip(first.text)
            why = "newest source no promoted record covers" if any_derived else "nothing promoted"
            stale = Mark.STALE in source.marks
            items.append(
                WakeItem(
                    section=WakeSection.RECENT,
                    type="source",
                    text=text,
                    reason=f"recent memory: {why} yet; its first passage"
                    + ("; stale: shown after fresh evidence" if stale else ""),
                    source_ids=[source.source_id],
                    token_count=self._tokens.count(_line(text)),
                    scope=source.scope,
                    scope_key=source.scope_key,
                    chunk_ids=[first.chunk_id],
                    valid_from=first.occurred_at or first.created_at,
                    stale=stale,
                )
            )
            if len(items) == _RECENT_DEPTH:
                break
        return items
