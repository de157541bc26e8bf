"""The caller's recent activity, for the workspace's first screen.

Why from audit receipts: every remember, search and context render already
leaves one (ids and counts, never text), so "what did I capture, what did I
and my agents recall" needs no second record. A caller sees their own
receipts only (an agent: its own; a user: theirs and their agents'), and a
capture's excerpt is shown only if the policy lets the caller read the
source now (a hidden or redacted one drops out).
"""

from datetime import datetime

import msgspec

from application.ports import MemoryStore
from application.trust.audit import AuditTrail
from application.trust.guard import may_read, require_org
from application.trust.ports import ControlStore
from application.trust.records import AuditReceipt
from application.workspace.space_choice import SpaceChoice
from domain.policy import MemoryPolicyContext, Surface
from domain.scopes import LifecycleState, MemoryScope, SourceType
from domain.source_titles import source_title

__all__ = [
    "Activity",
    "ActivityFeed",
    "AgentReads",
    "RecentCapture",
    "RecentRecall",
    "excerpt",
]

#: the caller's receipts looked at (newest first), and what each list shows at most
RECEIPTS_SCANNED = 100
SHOWN = 10
EXCERPT_CHARS = 160
_READS = frozenset({"search", "context"})
_ACTIONS = ("remember", *sorted(_READS))


class RecentCapture(msgspec.Struct, frozen=True, kw_only=True):
    source_id: str
    source_type: SourceType
    scope: MemoryScope
    scope_key: str | None
    created_at: datetime
    excerpt: str
    lifecycle: LifecycleState
    #: its title, subject or first line (``domain.source_titles``)
    title: str = ""
    #: when what it holds happened (a message's own date), where the source says
    occurred_at: datetime | None = None


class RecentRecall(msgspec.Struct, frozen=True, kw_only=True):
    at: datetime
    #: "search" or "context"
    action: str
    surface: Surface
    returned: int
    withheld: int
    #: the receipt's hash of the query (never its text), to match a text the caller kept
    query_hash: str | None = None


class AgentReads(msgspec.Struct, frozen=True, kw_only=True):
    agent_id: str
    agent_name: str
    reads: int
    last_at: datetime


class Activity(msgspec.Struct, frozen=True, kw_only=True):
    captures: list[RecentCapture]
    recalls: list[RecentRecall]
    #: the caller's agents that searched or rendered context lately (users only)
    agents: list[AgentReads]


def _own(ctx: MemoryPolicyContext, receipt: AuditReceipt) -> bool:
    """Done by the caller itself (an agent, or the user without an agent)."""
    return receipt.actor_id == ctx.user_id and receipt.agent_id == ctx.agent_id


def excerpt(text: str) -> str:
    """One line of at most ``EXCERPT_CHARS`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 1] + "…"


class ActivityFeed:
    def __init__(self, *, store: MemoryStore, control: ControlStore, audit: AuditTrail) -> None:
        self._store = store
        self._control = control
        self._audit = audit

    async def recent(self, ctx: MemoryPolicyContext, within: SpaceChoice | None = None) -> Activity:
        """``within``: captures of that scope or space only (recalls span every space)."""
        require_org(ctx, ctx.org_id)
        if ctx.user_id is None:
            return Activity(captures=[], recalls=[], agents=[])
        # one actor's remembers and reads only (a user's agents act under the user's id)
        found = await self._audit.recent_by(ctx.org_id, ctx.user_id, _ACTIONS, RECEIPTS_SCANNED)
        receipts = [r for r in found if r.allowed]
        captures = await self._captures(ctx, receipts, within)
        recalls = [
            RecentRecall(
                at=r.at,
                action=r.action,
                surface=r.surface,
                returned=r.counts.get("returned", 0),
                withheld=r.counts.get("withheld", 0),
                query_hash=r.hashes.get("query"),
            )
            for r in receipts
            if r.action in _READS and _own(ctx, r)
        ][:SHOWN]
        agents = [] if ctx.is_agent else await self._agents(ctx, receipts)
        self._audit.note(
            ctx,
            "workspace_activity",
            ids=[c.source_id for c in captures],
            counts={"captures": len(captures), "recalls": len(recalls), "agents": len(agents)},
        )
        return Activity(captures=captures, recalls=recalls, agents=agents)

    async def _captures(
        self, ctx: MemoryPolicyContext, receipts: list[AuditReceipt], within: SpaceChoice | None
    ) -> list[RecentCapture]:
        wanted: list[str] = []
        for r in receipts:
            if r.action == "remember" and _own(ctx, r) and r.ids and r.ids[0] not in wanted:
                wanted.append(r.ids[0])
        sources = await self._store.get_sources(ctx.org_id, wanted)
        shown: list[RecentCapture] = []
        for source_id in wanted:
            source = sources.get(source_id)
            if source is None or not may_read(ctx, source):
                continue
            if within is not None and not within.holds(source.scope, source.scope_key):
                continue
            shown.append(
                RecentCapture(
                    source_id=source_id,
                    source_type=source.source_type,
                    scope=source.scope,
                    scope_key=source.scope_key,
                    created_at=source.created_at,
                    excerpt=excerpt(source.content),
                    lifecycle=source.lifecycle,
                    title=source_title(source.content, source.metadata),
                    occurred_at=source.occurred_at,
                )
            )
            if len(shown) == SHOWN:
                break
        return shown

    async def _agents(
        self, ctx: MemoryPolicyContext, receipts: list[AuditReceipt]
    ) -> list[AgentReads]:
        counts: dict[str, int] = {}
        last: dict[str, datetime] = {}
        for r in receipts:
            if r.action in _READS and r.actor_id == ctx.user_id and r.agent_id is not None:
                counts[r.agent_id] = counts.get(r.agent_id, 0) + 1
                last.setdefault(r.agent_id, r.at)  # newest first
        shown = []
        for agent_id, reads in counts.items():
            record = await self._control.get_principal(ctx.org_id, agent_id)
            name = record.name if record is not None else agent_id
            shown.append(
                AgentReads(agent_id=agent_id, agent_name=name, reads=reads, last_at=last[agent_id])
            )
        return shown[:SHOWN]
