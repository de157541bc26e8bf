"""The synthesis gate: what a cited, policy-safe document must be, on a seeded project corpus.

A project space (``project/alpha``) holds notes on a storage engine that
Alice and Bob share; a team space only Alice reads holds notes on the same
engine with a secret in them. Alice synthesizes for the project audience.
The gate: the extractive drafter cites every sentence and each citation
supports its sentence; the secret space shows only as hidden counts; a
section nothing supports is a gap; the remembered artifact carries its
provenance; an LLM that writes an uncited or unsupported sentence is
blocked with those sentences listed, and it never sees hidden text.
"""

from datetime import timedelta

import msgspec
import pytest

from adapters.inmemory.fake_llm import ScriptedLLM
from adapters.inmemory.synthesis_runs import InMemorySynthesisRuns
from adapters.system.ids import TimeOrderedIds
from application.corrections.commands import CorrectionRequest
from application.ports.llm import LLMRequest
from application.synthesis.commands import PlanRequest
from application.synthesis.records import Freshness
from application.synthesis.service import SynthesisService
from application.trust.audience import AudienceResolver
from application.trust.records import PrincipalRecord
from domain.errors import ConflictError, NotFoundError
from domain.hashing import content_hash
from domain.lifecycle import CorrectionAction
from domain.policy import MemoryPolicyContext, OrgRole, SpaceRole, Surface
from domain.scopes import MemoryScope, SourceType
from domain.synthesis.outline import OutputType
from domain.synthesis.verdict import VerificationStatus
from tests.support.world import START, World

PROJECT = [
    "The storage engine keeps every source verbatim in SurrealDB before deriving chunks.",
    "The storage engine is embedded, so a single process owns the data directory.",
    "Components of the storage engine are the memory store, the retrieval index and the audit log.",
    "The retrieval index is derived from the store and rebuilt on start when it is missing.",
    "The storage engine works by writing the source first and then its chunks in one transaction.",
    "The team decided to use SurrealDB because it runs embedded and also as a server.",
    "We chose hashed namespaces per organisation because a deleted tenant must vanish at once.",
    "An open question is how the storage engine should compact its write-ahead log.",
    "There is an unresolved issue with slow index rebuilds on very large stores.",
    "The audit log records receipts without text, so the storage engine never leaks content.",
]
SECRET = [
    "The storage engine rewrite is funded by the confidential Falcon acquisition budget.",
    "Components of the storage engine will be sold to Falcon after the acquisition closes.",
]
SECRET_WORDS = ("Falcon", "acquisition", "confidential")


class Corpus:
    def __init__(self, world: World, alice: PrincipalRecord, bob: PrincipalRecord) -> None:
        self.world = world
        self.alice = alice
        self.bob = bob
        self.org_id = alice.org_id
        self.project_ids: list[str] = []
        self.secret_ids: list[str] = []

    async def ctx(self) -> MemoryPolicyContext:
        return await self.world.ctx(self.alice)

    def plan(self, **kw: object) -> PlanRequest:
        base: dict[str, object] = {
            "org_id": self.org_id,
            "query": "the storage engine architecture",
            "audience": "space:project/alpha",
        }
        return msgspec.convert({**base, **kw}, PlanRequest)


@pytest.fixture
async def corpus() -> Corpus:
    world = World()
    org = await world.services.control.create_organization("acme", None, Surface.CLI, "acme")
    owner = await world.user(org.org_id, "owner", OrgRole.OWNER)
    alice = await world.user(org.org_id, "alice")
    bob = await world.user(org.org_id, "bob")
    project = await world.space(org.org_id, MemoryScope.PROJECT, "alpha", writes=True)
    team = await world.space(org.org_id, MemoryScope.TEAM, "exec", writes=True)
    for who in (alice, bob):
        await world.member(project, who, SpaceRole.WRITER)
    await world.member(team, alice, SpaceRole.WRITER)
    del owner
    c = Corpus(world, alice, bob)
    for text in PROJECT:
        r = await world.remember(alice, text, MemoryScope.PROJECT, "alpha")
        c.project_ids.append(r.source_id)
    for text in SECRET:
        r = await world.remember(alice, text, MemoryScope.TEAM, "exec")
        c.secret_ids.append(r.source_id)
    return c


def _no_secret(text: str) -> None:
    for word in SECRET_WORDS:
        assert word not in text


async def test_extractive_draft_cites_every_sentence_with_support(corpus: Corpus) -> None:
    synthesis = corpus.world.services.synthesis
    plan = await synthesis.plan(corpus.plan(), await corpus.ctx())
    assert [s.title for s in plan.outline] == [
        "Summary",
        "Components",
        "How it works",
        "Decisions",
        "Open questions",
    ]
    draft = await synthesis.draft(corpus.org_id, plan.run_id, await corpus.ctx())
    sections = (await synthesis.sections(corpus.org_id, plan.run_id, await corpus.ctx())).sections
    sentences = [s for section in draft.sections for s in section.sentences]
    assert len(sentences) >= 5
    for section, pack in zip(draft.sections, sections, strict=True):
        for sentence in section.sentences:
            assert sentence.citations, sentence.text
            assert set(sentence.citations) <= set(pack.source_ids) <= set(corpus.project_ids)
    verdict = await synthesis.verify(corpus.org_id, plan.run_id, await corpus.ctx())
    assert verdict.citation_coverage == 1.0
    assert verdict.supported_share == 1.0
    assert verdict.unsupported_claims == []
    assert verdict.status in (VerificationStatus.PASSED, VerificationStatus.PASSED_WITH_GAPS)
    assert draft.markdown.count("[") >= len(sentences)


async def test_memory_the_audience_cannot_read_shows_only_as_hidden_counts(
    corpus: Corpus,
) -> None:
    synthesis = corpus.world.services.synthesis
    plan = await synthesis.plan(corpus.plan(), await corpus.ctx())
    for section in plan.outline:
        assert not set(section.expected_source_ids) & set(corpus.secret_ids)
    packs = (await synthesis.sections(corpus.org_id, plan.run_id, await corpus.ctx())).sections
    assert sum(p.hidden_count for p in packs) >= len(SECRET)
    for pack in packs:
        assert not set(pack.source_ids) & set(corpus.secret_ids)
        _no_secret(msgspec.json.encode(pack).decode())
    draft = await synthesis.draft(corpus.org_id, plan.run_id, await corpus.ctx())
    _no_secret(draft.markdown)
    verdict = await synthesis.verify(corpus.org_id, plan.run_id, await corpus.ctx())
    assert verdict.hidden_counts.hidden >= len(SECRET)
    artifact = await synthesis.remember(corpus.org_id, plan.run_id, await corpus.ctx())
    source = await corpus.world.store.get_source(corpus.org_id, artifact.source_id)
    assert source is not None
    _no_secret(source.content)
    _no_secret(msgspec.json.encode(source.metadata).decode())
    assert not set(source.metadata["synthesis_cited_sources"] or []) & set(corpus.secret_ids)
    # without an audience, Alice's own document may use what she alone reads
    own = await synthesis.plan(corpus.plan(audience=None), await corpus.ctx())
    own_packs = (await synthesis.sections(corpus.org_id, own.run_id, await corpus.ctx())).sections
    assert any(set(p.source_ids) & set(corpus.secret_ids) for p in own_packs)


async def test_a_section_nothing_supports_is_a_gap(corpus: Corpus) -> None:
    synthesis = corpus.world.services.synthesis
    plan = await synthesis.plan(
        corpus.plan(outline=["Components", "Quantum teleportation budget"]), await corpus.ctx()
    )
    draft = await synthesis.draft(corpus.org_id, plan.run_id, await corpus.ctx())
    gap = draft.sections[1]
    assert gap.gap and gap.sentences == []
    verdict = await synthesis.verify(corpus.org_id, plan.run_id, await corpus.ctx())
    assert verdict.gaps == ["Quantum teleportation budget"]
    assert verdict.status is VerificationStatus.PASSED_WITH_GAPS
    assert "Gap" in draft.markdown


async def test_the_remembered_artifact_carries_its_provenance(corpus: Corpus) -> None:
    synthesis = corpus.world.services.synthesis
    plan = await synthesis.plan(corpus.plan(output_type=OutputType.BRIEF), await corpus.ctx())
    draft = await synthesis.draft(corpus.org_id, plan.run_id, await corpus.ctx())
    verdict = await synthesis.verify(corpus.org_id, plan.run_id, await corpus.ctx())
    artifact = await synthesis.remember(corpus.org_id, plan.run_id, await corpus.ctx())
    source = await corpus.world.store.get_source(corpus.org_id, artifact.source_id)
    assert source is not None
    assert source.source_type is SourceType.DOCUMENT
    assert (source.scope, source.scope_key) == (MemoryScope.PROJECT, "alpha")
    assert source.content == draft.markdown
    meta = source.metadata
    assert meta["synthesis_text_hash"] == content_hash(draft.markdown) == artifact.text_hash
    assert meta["synthesis_run_id"] == plan.run_id
    assert meta["synthesis_output_type"] == "brief"
    assert meta["synthesis_audience"] == "space:project/alpha"
    assert meta["synthesis_actor"] == corpus.alice.principal_id
    assert meta["synthesis_status"] == str(verdict.status)
    assert meta["synthesis_fresh_as_of"] == START.isoformat()
    per_section = meta["synthesis_section_sources"]
    assert isinstance(per_section, list) and len(per_section) == len(draft.sections)
    cited = {c for s in draft.sections for x in s.sentences for c in x.citations}
    assert set(meta["synthesis_cited_sources"] or []) == cited
    assert isinstance(meta["synthesis_unresolved"], list)
    # inspecting a cited source lists the artifacts that cite it
    some = sorted(cited)[0]
    assert await synthesis.artifacts_citing(corpus.org_id, some) == [artifact.source_id]
    inspector = corpus.world.services.inspector
    view = await inspector.inspect_source(await corpus.ctx(), some)
    assert view.cited_by == [artifact.source_id]
    # Bob reads the project space, so he sees the artifact too; an outsider sees no source
    assert (await inspector.inspect_source(await corpus.world.ctx(corpus.bob), some)).cited_by == [
        artifact.source_id
    ]
    # the write went through the policy and left a receipt without text
    await corpus.world.services.audit.flush()
    receipts = await corpus.world.audit_log.recent(corpus.org_id, 50)
    actions = [r.action for r in receipts]
    for action in ("synthesize_plan", "synthesize_draft", "synthesize_verify", "remember"):
        assert action in actions
    _no_secret(msgspec.json.encode(receipts).decode())


def _llm_synthesis(world: World, llm: ScriptedLLM) -> SynthesisService:
    s = world.services
    return SynthesisService(
        recall=s.recall,
        store=world.store,
        memory=s.memory,
        embedder=world.embedder,
        runs=InMemorySynthesisRuns(),
        audience=AudienceResolver(control=world.control_store, access=s.access),
        audit=s.audit,
        clock=world.clock,
        ids=TimeOrderedIds(),
        llm=llm,
    )


async def test_an_llm_that_writes_uncited_or_unsupported_sentences_is_blocked(
    corpus: Corpus,
) -> None:
    uncited = "The storage engine is written in Rust by a team of twelve."
    unsupported = "The moon landing was filmed in a studio in Nevada."

    def answer(request: LLMRequest) -> str:
        cited = corpus.project_ids[0]
        sections = [
            {
                "title": "Summary",
                "sentences": [
                    {"text": PROJECT[0], "citations": [cited]},
                    {"text": uncited, "citations": []},
                    {"text": unsupported, "citations": [cited]},
                ],
            }
        ]
        return msgspec.json.encode({"sections": sections}).decode()

    llm = ScriptedLLM(answer)
    synthesis = _llm_synthesis(corpus.world, llm)
    plan = await synthesis.plan(
        corpus.plan(outline=["Summary"], source_ids=corpus.project_ids + corpus.secret_ids),
        await corpus.ctx(),
    )
    draft = await synthesis.draft(corpus.org_id, plan.run_id, await corpus.ctx(), drafter="llm")
    assert draft.drafter == "llm:scripted"
    verdict = await synthesis.verify(corpus.org_id, plan.run_id, await corpus.ctx())
    assert verdict.status is VerificationStatus.BLOCKED_UNSUPPORTED_CLAIMS
    listed = {(c.sentence, c.reason) for c in verdict.unsupported_claims}
    assert (uncited, "uncited") in listed
    assert (unsupported, "not_supported") in listed
    assert PROJECT[0] not in {c.sentence for c in verdict.unsupported_claims}
    # the LLM received only the authorized packs
    (request,) = llm.requests
    _no_secret(request.prompt)
    with pytest.raises(ConflictError):
        await synthesis.remember(corpus.org_id, plan.run_id, await corpus.ctx())


async def test_stale_sources_block_when_the_freshness_policy_says_so(corpus: Corpus) -> None:
    synthesis = corpus.world.services.synthesis
    corpus.world.clock.set(START + timedelta(days=40))
    fresh = Freshness(max_age_days=30, on_stale="block")
    plan = await synthesis.plan(corpus.plan(freshness=fresh), await corpus.ctx())
    packs = (await synthesis.sections(corpus.org_id, plan.run_id, await corpus.ctx())).sections
    assert any(p.stale_source_ids for p in packs)
    verdict = await synthesis.verify(corpus.org_id, plan.run_id, await corpus.ctx())
    assert verdict.status is VerificationStatus.BLOCKED_STALE_SOURCES
    assert verdict.stale_source_ids
    flagged = await synthesis.plan(
        corpus.plan(freshness=Freshness(max_age_days=30)), await corpus.ctx()
    )
    verdict = await synthesis.verify(corpus.org_id, flagged.run_id, await corpus.ctx())
    assert verdict.status is VerificationStatus.PASSED_WITH_GAPS


async def test_a_run_belongs_to_its_actor(corpus: Corpus) -> None:
    synthesis = corpus.world.services.synthesis
    plan = await synthesis.plan(corpus.plan(), await corpus.ctx())
    with pytest.raises(NotFoundError):
        await synthesis.draft(corpus.org_id, plan.run_id, await corpus.world.ctx(corpus.bob))


async def test_a_principal_audience_gets_only_what_that_principal_may_read(
    corpus: Corpus,
) -> None:
    """Bob is not in the team space: its notes are hidden from a document for him."""
    synthesis = corpus.world.services.synthesis
    plan = await synthesis.plan(corpus.plan(audience="principal:bob"), await corpus.ctx())
    packs = (await synthesis.sections(corpus.org_id, plan.run_id, await corpus.ctx())).sections
    assert all(not set(p.source_ids) & set(corpus.secret_ids) for p in packs)
    assert sum(p.hidden_count for p in packs) >= 1


async def _correct(corpus: Corpus, source_id: str, request: CorrectionRequest) -> None:
    corrections = corpus.world.services.corrections
    preview = await corrections.preview(await corpus.ctx(), source_id, request)
    await corrections.apply(await corpus.ctx(), source_id, request, preview.preview_token)


async def test_a_source_corrected_as_stale_or_superseded_is_flagged_in_its_pack(
    corpus: Corpus,
) -> None:
    """Freshness comes from the lifecycle too (docs/design.md#lifecycle), not only from age."""
    synthesis = corpus.world.services.synthesis
    fresh_plan = await synthesis.plan(corpus.plan(), await corpus.ctx())
    packs = (await synthesis.sections(corpus.org_id, fresh_plan.run_id, await corpus.ctx()))
    cited = {sid for p in packs.sections for sid in p.source_ids}
    assert not any(p.stale_source_ids for p in packs.sections)
    stale, old = sorted(cited)[:2]
    await _correct(corpus, stale, CorrectionRequest(action=CorrectionAction.MARK_STALE))
    replacement = await corpus.world.remember(
        corpus.alice,
        "The storage engine now keeps sources in SurrealDB with one transaction per batch.",
        MemoryScope.PROJECT,
        "alpha",
    )
    await _correct(
        corpus,
        old,
        CorrectionRequest(
            action=CorrectionAction.SUPERSEDE,
            replacement_id=replacement.source_id,
            reason="rewritten",
        ),
    )
    plan = await synthesis.plan(corpus.plan(), await corpus.ctx())
    packs = await synthesis.sections(corpus.org_id, plan.run_id, await corpus.ctx())
    flagged = {sid for p in packs.sections for sid in p.stale_source_ids}
    listed = {sid for p in packs.sections for sid in p.source_ids}
    assert stale in flagged or stale not in listed
    assert old in flagged or old not in listed
    assert flagged & {stale, old}


async def test_a_source_hidden_after_its_pack_was_built_never_reaches_the_draft(
    corpus: Corpus,
) -> None:
    """Every later stage reloads and re-checks its packs: a hide between stages wins."""
    synthesis = corpus.world.services.synthesis
    plan = await synthesis.plan(corpus.plan(), await corpus.ctx())
    packs = await synthesis.sections(corpus.org_id, plan.run_id, await corpus.ctx())
    cited = sorted({sid for p in packs.sections for sid in p.source_ids})
    hidden = cited[0]
    text = PROJECT[corpus.project_ids.index(hidden)]
    await _correct(corpus, hidden, CorrectionRequest(action=CorrectionAction.HIDE))
    draft = await synthesis.draft(corpus.org_id, plan.run_id, await corpus.ctx())
    for section in draft.sections:
        for sentence in section.sentences:
            assert hidden not in sentence.citations
    assert text not in draft.markdown
