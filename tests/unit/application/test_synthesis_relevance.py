"""A synthesis quotes only sources that bear on the question, and verification can fail.

Each section's evidence query is the question plus the section's cue words
("decided because", "fix bug"), so its pack also holds the lunch mail that
says "decided because" and the patch that says "fix". The extractive draft
must leave them out and say why, per section; a claim copied word for word
from such a source, cited to it, fails verification.
"""

import msgspec
import pytest

from adapters.inmemory.fake_llm import ScriptedLLM
from adapters.inmemory.synthesis_runs import InMemorySynthesisRuns
from adapters.system.ids import TimeOrderedIds
from application.ports.llm import LLMRequest
from application.synthesis.commands import PlanRequest
from application.synthesis.service import SynthesisService
from application.trust.audience import AudienceResolver
from application.trust.records import PrincipalRecord
from domain.policy import OrgRole, Surface
from domain.synthesis.bearing import LeftOutReason
from domain.synthesis.verdict import VerificationStatus
from tests.support.world import World

QUESTION = "the storage engine architecture"
RELEVANT = (
    "The storage engine keeps every source verbatim before deriving chunks. "
    "The team decided the storage engine is embedded because one process owns the data. "
    "An open question is how the storage engine should compact its log."
)
#: more notes on the topic: they fill the Summary's pack, so the cue-word sections
#: retrieve beyond them and find the off-topic mail
MORE = tuple(
    f"The storage engine architecture note {n}: {text}"
    for n, text in enumerate(
        (
            "the memory store holds sources and chunks.",
            "the retrieval index is rebuilt from the store.",
            "the audit log records receipts without text.",
            "the write path stores the source first.",
            "the embedding lane attaches vectors later.",
            "the index snapshot is saved on close.",
        )
    )
)
LUNCH = (
    "Lunch on Friday: the team decided on pizza because the cafe is closed. "
    "Nobody agreed on the toppings, so we chose two kinds."
)
PATCH = """Fix the crash in the parser when a line is empty.

diff --git a/src/parser.c b/src/parser.c
index 3f2a1b0..8c9d4e2 100644
--- a/src/parser.c
+++ b/src/parser.c
@@ -40,7 +40,7 @@ static int parse_line(const char *line)
-    if (line[0] == 0) return bug_decided_because_of_issue();
+    if (line == NULL || line[0] == 0) return 0; /* fixed: decided because of the bug */
"""
OFF_TOPIC = (LUNCH, PATCH)


class Memory:
    def __init__(self, world: World, alice: PrincipalRecord, ids: dict[str, str]) -> None:
        self.world, self.alice, self.ids = world, alice, ids

    def plan(self, **kw: object) -> PlanRequest:
        return msgspec.convert({"org_id": self.alice.org_id, "query": QUESTION, **kw}, PlanRequest)


@pytest.fixture
async def memory() -> Memory:
    world = World()
    org = await world.services.control.create_organization("acme", None, Surface.CLI, "acme")
    alice = await world.user(org.org_id, "alice", OrgRole.OWNER)
    ids = {}
    for name, text in (("relevant", RELEVANT), ("lunch", LUNCH), ("patch", PATCH)):
        ids[name] = (await world.remember(alice, text)).source_id
    for text in MORE:
        await world.remember(alice, text)
    await world.services.memory.lane.drain()
    return Memory(world, alice, ids)


async def test_off_topic_sources_and_diff_hunks_are_left_out_and_said_why(memory: Memory) -> None:
    synthesis = memory.world.services.synthesis
    ctx = await memory.world.ctx(memory.alice)
    # a brief: its "Key points" cue ("important key decided changed") finds the lunch mail
    # and the patch once the Summary has taken the notes on the topic
    plan = await synthesis.plan(memory.plan(output_type="brief"), ctx)
    packs = (await synthesis.sections(memory.alice.org_id, plan.run_id, ctx)).sections
    # retrieval found the off-topic sources: they are in the packs
    assert {memory.ids["lunch"], memory.ids["patch"]} <= {s for p in packs for s in p.source_ids}
    draft = await synthesis.draft(memory.alice.org_id, plan.run_id, ctx)
    cited = {c for s in draft.sections for x in s.sentences for c in x.citations}
    assert cited and not cited & {memory.ids["lunch"], memory.ids["patch"]}
    assert "pizza" not in draft.markdown and "parser" not in draft.markdown
    assert "bug_decided" not in draft.markdown and "fixed:" not in draft.markdown
    # every section says which pack sources it left out, and why
    for section, pack in zip(draft.sections, packs, strict=True):
        left = {x.source_id: x for x in section.left_out}
        for name in ("lunch", "patch"):
            if memory.ids[name] in pack.source_ids:
                assert left[memory.ids[name]].reason is LeftOutReason.OFF_TOPIC, section.title
                assert "does not bear on the question" in left[memory.ids[name]].detail
        quoted = {c for x in section.sentences for c in x.citations}
        assert not quoted & set(left)
    verdict = await synthesis.verify(memory.alice.org_id, plan.run_id, ctx)
    assert verdict.unsupported_claims == [] and verdict.supported_share == 1.0


async def test_a_diff_in_an_on_topic_source_is_never_quoted(memory: Memory) -> None:
    world = memory.world
    patch = (
        "The storage engine compaction patch is below, for review.\n\n"
        "diff --git a/engine/compact.rs b/engine/compact.rs\n"
        "@@ -1,2 +1,2 @@\n"
        "-// the storage engine decided to compact because the log grows\n"
        "+// the storage engine decided to compact early because the log grows fast\n"
    )
    source = (await world.remember(memory.alice, patch)).source_id
    await world.services.memory.lane.drain()
    synthesis = world.services.synthesis
    ctx = await world.ctx(memory.alice)
    # a section whose own word ("decided") only the diff holds
    plan = await synthesis.plan(memory.plan(outline=["Decided"]), ctx)
    draft = await synthesis.draft(memory.alice.org_id, plan.run_id, ctx)
    (section,) = draft.sections
    assert "compact early" not in draft.markdown and "// the storage" not in draft.markdown
    left = {x.source_id: x.reason for x in section.left_out}
    assert left[source] is LeftOutReason.CODE_DIFF


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


async def test_a_claim_copied_from_an_unrelated_source_fails_verification(memory: Memory) -> None:
    copied = "Lunch on Friday: the team decided on pizza because the cafe is closed."
    on_topic = "The storage engine keeps every source verbatim before deriving chunks."

    def answer(request: LLMRequest) -> str:
        sentences = [
            {"text": on_topic, "citations": [memory.ids["relevant"]]},
            {"text": copied, "citations": [memory.ids["lunch"]]},
        ]
        return msgspec.json.encode(
            {"sections": [{"title": "Summary", "sentences": sentences}]}
        ).decode()

    llm = ScriptedLLM(answer)
    synthesis = _llm_synthesis(memory.world, llm)
    ctx = await memory.world.ctx(memory.alice)
    scope = [memory.ids["relevant"], memory.ids["lunch"]]
    plan = await synthesis.plan(memory.plan(outline=["Summary"], source_ids=scope), ctx)
    packs = (await synthesis.sections(memory.alice.org_id, plan.run_id, ctx)).sections
    assert memory.ids["lunch"] in packs[0].source_ids  # cited from inside the pack
    await synthesis.draft(memory.alice.org_id, plan.run_id, ctx, drafter="llm")
    verdict = await synthesis.verify(memory.alice.org_id, plan.run_id, ctx)
    assert verdict.status is VerificationStatus.BLOCKED_UNSUPPORTED_CLAIMS
    assert [(c.sentence, c.reason) for c in verdict.unsupported_claims] == [
        (copied, "off_topic_source")
    ]
    assert verdict.supported_share == 0.5
    (request,) = llm.requests
    assert "pizza" not in request.prompt  # the model is not shown off-topic evidence
