"""Reflect: read sources the caller may read, run an extractor, keep the candidates.

Also the third extractor, the calling agent itself: ``propose`` takes
candidates an agent wrote, each citing spans, and keeps only those whose
every span is really in a source the caller may read (else a reason per
candidate). Candidates start pending; the documented auto-accept rule may
promote some at once (only for extractors the install trusts; none by
default).
"""

from collections.abc import Sequence
from datetime import datetime

from application.indexing.readiness import OrgReadiness
from application.ports import Clock, MemoryStore
from application.ports.llm import LanguageModel
from application.ports.reflection import CandidateStore, Extractor, SentenceSegmenter
from application.reflection.commands import (
    MAX_REFLECT_SOURCES,
    MAX_SPANS,
    CandidateView,
    ProposedCandidate,
    ProposeRequest,
    ProposeResult,
    ReflectRequest,
    ReflectResult,
    Refusal,
    SkippedSource,
    check_proposal_text,
)
from application.reflection.extractors import LLMExtractor, RulesExtractor
from application.reflection.review import Reviewer
from application.trust.audience import parse_space
from application.trust.audit import AuditTrail
from application.trust.guard import denied, require_org, write_target
from application.trust.reading import read_sources
from domain.errors import InvalidInputError
from domain.hashing import content_hash
from domain.lifecycle import Mark
from domain.models import Source
from domain.policy import SCOPE_BREADTH, MemoryPolicyContext, authorize_read
from domain.reasons import ReasonCode
from domain.reflection.candidates import (
    CandidateType,
    Extracted,
    ReflectionCandidate,
    Span,
    auto_accept_problem,
)
from domain.scopes import LifecycleState, PrivacyClass, ScopeRef

__all__ = ["CALLER_EXTRACTOR", "Reflector", "candidate_id"]

CALLER_EXTRACTOR = "caller"
_CALLER_VERSION = "1"


def candidate_id(
    org_id: str,
    extractor: str,
    found: Extracted,
    source_ids: Sequence[str],
    supersedes: Sequence[str] = (),
) -> str:
    """The same finding in the same sources gets the same id: reflecting again adds nothing.
    (Naming other records to supersede makes it another proposal.)"""
    spans = ";".join(f"{s.source_id}:{s.start}-{s.end}" for s in found.spans)
    cited = ",".join(source_ids)
    named = f"|{','.join(supersedes)}" if supersedes else ""
    return content_hash(
        f"{org_id}|{extractor}|{found.type}|{found.text}|{spans}|{cited}{named}"
    )[:26]


def _sensitive(source: Source) -> bool:
    return source.privacy_class is PrivacyClass.SENSITIVE or Mark.SENSITIVE in source.marks


class Reflector:
    def __init__(
        self,
        *,
        store: MemoryStore,
        candidates: CandidateStore,
        reviewer: Reviewer,
        readiness: OrgReadiness,
        audit: AuditTrail,
        clock: Clock,
        segmenter: SentenceSegmenter,
        llm: LanguageModel | None = None,
        trusted_extractors: frozenset[str] = frozenset(),
    ) -> None:
        self._store = store
        self._candidates = candidates
        self._reviewer = reviewer
        self._readiness = readiness
        self._audit = audit
        self._clock = clock
        self._llm = llm
        self._trusted = trusted_extractors
        self._rules = RulesExtractor(segmenter)

    def _extractor(self, name: str) -> Extractor:
        if name == "rules":
            return self._rules
        if self._llm is None:
            raise InvalidInputError(
                ReasonCode.LLM_NOT_CONFIGURED, "no language model is configured (TESSERA_LLM)"
            )
        return LLMExtractor(self._llm)

    async def _source_ids(self, request: ReflectRequest, policy: MemoryPolicyContext) -> list[str]:
        if request.space is None:
            return list(dict.fromkeys(request.source_ids))
        space = parse_space(request.space)
        decision = authorize_read(policy, space)
        if not decision.allowed:
            self._audit.note(policy, "reflect", decision)
            raise denied(decision, "reflecting")
        states = await self._store.source_states(request.org_id, space, MAX_REFLECT_SOURCES * 4)
        active = [s.source_id for s in states if s.lifecycle is LifecycleState.ACTIVE]
        return active[:MAX_REFLECT_SOURCES]  # the oldest first, as ids sort by creation

    async def reflect(self, request: ReflectRequest, policy: MemoryPolicyContext) -> ReflectResult:
        request.validate()
        require_org(policy, request.org_id)
        extractor = self._extractor(request.extractor)
        await self._readiness.ensure(request.org_id)
        ids = await self._source_ids(request, policy)
        sources, refused = await read_sources(self._store, policy, request.org_id, ids)
        now = self._clock.now()
        made: list[ReflectionCandidate] = []
        for source in sources:
            for found in await extractor.extract(source):
                made.append(self._candidate(policy, extractor, found, [source], now))
        made = list({c.candidate_id: c for c in made}.values())
        new_ids = set(await self._candidates.add_candidates(made))
        auto = 0
        for c in made:
            if c.candidate_id in new_ids and auto_accept_problem(c, self._trusted) is None:
                await self._reviewer.auto_accept(c, policy)
                auto += 1
        stored = await self._candidates.get_candidates(
            request.org_id, [c.candidate_id for c in made]
        )
        self._audit.note(
            policy,
            "reflect",
            ids=[s.source_id for s in sources],
            counts={
                "sources": len(sources),
                "skipped": len(refused),
                "candidates": len(made),
                "new": len(new_ids),
                "auto_accepted": auto,
            },
        )
        return ReflectResult(
            candidates=[CandidateView.of(stored.get(c.candidate_id, c)) for c in made],
            skipped=[SkippedSource(source_id=s, reason=r) for s, r in refused.items()],
            sources=len(sources),
            auto_accepted=auto,
        )

    def _candidate(
        self,
        policy: MemoryPolicyContext,
        extractor: Extractor,
        found: Extracted,
        sources: Sequence[Source],
        now: datetime,
        suggested: ScopeRef | None = None,
        supersedes: Sequence[str] = (),
    ) -> ReflectionCandidate:
        assert policy.actor is not None  # require_org refuses a context without an actor
        scopes = tuple(dict.fromkeys(ScopeRef(s.scope, s.scope_key) for s in sources))
        narrowest = min(scopes, key=lambda ref: SCOPE_BREADTH[ref.scope])
        return ReflectionCandidate(
            candidate_id=candidate_id(
                policy.org_id,
                extractor.name,
                found,
                [s.source_id for s in sources],
                list(dict.fromkeys(supersedes)),
            ),
            org_id=policy.org_id,
            type=found.type,
            text=found.text,
            source_ids=tuple(s.source_id for s in sources),
            source_hashes={s.source_id: s.content_hash for s in sources},
            spans=found.spans,
            extractor=extractor.name,
            extractor_version=extractor.version,
            confidence=found.confidence,
            suggested_scope=suggested or narrowest,
            input_scopes=scopes,
            created_by=policy.actor.principal_id,
            created_at=now,
            relation=found.relation,
            sensitive=any(_sensitive(s) for s in sources),
            replaces=found.replaces,
            supersedes=tuple(dict.fromkeys(supersedes)),
        )

    # -- the calling agent as extractor -----------------------------------------

    async def propose(self, request: ProposeRequest, policy: MemoryPolicyContext) -> ProposeResult:
        request.validate()
        require_org(policy, request.org_id)
        await self._readiness.ensure(request.org_id)
        cited = [span.source_id for p in request.candidates for span in p.spans]
        readable, _ = await read_sources(self._store, policy, request.org_id, cited)
        by_id = {s.source_id: s for s in readable}
        now = self._clock.now()
        kept: list[ReflectionCandidate] = []
        refused: list[Refusal] = []
        for index, proposal in enumerate(request.candidates):
            problem = _proposal_problem(proposal, by_id)
            if problem is not None:
                refused.append(Refusal(index=index, reason=problem[0], detail=problem[1]))
                continue
            found = Extracted(
                type=proposal.type,
                text=proposal.text,
                spans=tuple(
                    Span(source_id=s.source_id, start=s.start, end=s.end) for s in proposal.spans
                ),
                confidence=proposal.confidence,
                relation=None if proposal.relation is None else proposal.relation.to_relation(),
            )
            sources = [by_id[sid] for sid in dict.fromkeys(s.source_id for s in proposal.spans)]
            suggested = None
            if proposal.suggested_scope is not None:
                suggested = write_target(
                    policy, proposal.suggested_scope, proposal.suggested_scope_key
                )
            kept.append(
                self._candidate(
                    policy, _CALLER, found, sources, now, suggested, proposal.supersedes
                )
            )
        kept = list({c.candidate_id: c for c in kept}.values())
        new_ids = await self._candidates.add_candidates(kept)
        self._audit.note(
            policy,
            "candidates_propose",
            ids=[c.candidate_id for c in kept],
            counts={
                "proposed": len(request.candidates),
                "new": len(new_ids),
                "refused": len(refused),
            },
        )
        stored = await self._candidates.get_candidates(
            request.org_id, [c.candidate_id for c in kept]
        )
        return ProposeResult(
            candidates=[CandidateView.of(stored.get(c.candidate_id, c)) for c in kept],
            refused=refused,
        )


class _CallerExtractor:
    name = CALLER_EXTRACTOR
    version = _CALLER_VERSION

    async def extract(self, source: Source) -> list[Extracted]:
        return []  # the caller's candidates arrive through propose


_CALLER: Extractor = _CallerExtractor()


def _proposal_problem(
    proposal: ProposedCandidate, readable: dict[str, Source]
) -> tuple[ReasonCode, str] | None:
    """Why a proposed candidate is refused, or None; details name indexes, never text."""
    text_problem = check_proposal_text(proposal.text)
    if text_problem:
        return ReasonCode.INVALID_REQUEST, text_problem
    if not 0.0 <= proposal.confidence <= 1.0:
        return ReasonCode.INVALID_REQUEST, "confidence must be between 0 and 1"
    if (proposal.type is CandidateType.RELATIONSHIP) != (proposal.relation is not None):
        return ReasonCode.INVALID_REQUEST, "a relationship, and only it, carries a relation"
    if proposal.relation is not None:
        try:
            proposal.relation.to_relation()
        except ValueError as exc:
            return ReasonCode.INVALID_REQUEST, str(exc)
    if not 0 < len(proposal.spans) <= MAX_SPANS:
        return ReasonCode.INVALID_REQUEST, f"cite 1 to {MAX_SPANS} spans"
    if proposal.supersedes and proposal.type is CandidateType.RELATIONSHIP:
        return ReasonCode.INVALID_REQUEST, "a statement, not a relationship, supersedes records"
    if len(proposal.supersedes) > MAX_SPANS:
        return ReasonCode.INVALID_REQUEST, f"supersede at most {MAX_SPANS} records"
    for n, span in enumerate(proposal.spans):
        source = readable.get(span.source_id)
        if source is None:
            return ReasonCode.NOT_FOUND, f"span {n}: no active source with that id you may read"
        if not 0 <= span.start < span.end <= len(source.content):
            return ReasonCode.SPAN_OUT_OF_RANGE, f"span {n} is not inside its source"
        if span.quote is not None and source.content[span.start : span.end] != span.quote:
            return ReasonCode.SPAN_MISMATCH, f"span {n}: the quote is not the source's text there"
    return None
