"""Property: no search, context pack or inspect ever returns memory its caller may not see.

Hypothesis generates whole worlds: two or three organisations with users
(members, admins, owners), agents acting for them (no delegation, one that
expired before anything was written, one that expires between the writes and
the second round of reads, a long one), spaces of every scope (writes enabled
or not, the same keys reused across organisations), memberships with roles,
and memories written by random principals to random scopes through
``services.memory.remember`` with each principal's real policy context.

Everything the service returns is checked against ``Oracle``: who may see
what, written here from the rules in plain words, without calling
``domain.policy``. Writes are checked against the oracle too (allowed or
the reason of the refusal, and nothing stored on a refusal); reads are also
checked for completeness: every memory the oracle lets the caller see is
found by a large search (and a context pack) for a word it contains.

Random corrections (mark wrong, stale or sensitive, mark
duplicate, supersede, hide, redact, restore, delete), each previewed and
applied by the memory's writer after the writes; the oracle follows them
with the lifecycle in plain words (``tests.support.lifecycle_oracle``): every
applied correction must land where the oracle says, every refused transition
must be one the oracle refuses, and reads are checked against the corrected
world (hidden, wrong, redacted, deleted and others' sensitive memory never
returned; superseded memory only with its replacement visible; no deleted or
redacted text, and hidden or sensitive text to the owner only, in inspect).

Derived records: a memory's writer proposes a record citing it
(and sometimes a second memory, perhaps of another space or organisation)
and accepts it, into its sources' space or explicitly into another; every
derived record a search or pack returns, and every item of the caller's wake
pack, must cite only memories the oracle lets the caller recall, after the
corrections too.

Run: PYTHONPATH=. .venv/bin/python -m pytest \
    tests/unit/application/test_policy_properties.py -q -p no:cacheprovider -s
The number of generated cases is printed and asserted (>= 2,000).
Scale with TESSERA_POLICY_EXAMPLES (default 2000); the run is derandomized.
"""

import asyncio
import os
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from application.corrections.commands import CorrectionRequest
from application.memory.commands import ContextRequest, RememberRequest, SearchRequest
from application.reflection.commands import (
    ProposedCandidate,
    ProposedSpan,
    ProposeRequest,
    ReviewRequest,
)
from application.retrieval.wake_records import WakeRequest
from application.sharing.commands import ShareKind, ShareRequest
from application.trust.records import PrincipalRecord
from domain.errors import ConflictError, InvalidInputError, NotFoundError, PolicyDeniedError
from domain.lifecycle import CorrectionAction
from domain.policy import OrgRole, SpaceRole
from domain.reflection.candidates import CandidateType, ReviewAction
from domain.scopes import MemoryScope
from tests.support.lifecycle_oracle import ACTIONS, Life, after, inspect_text_ok, recallable
from tests.support.world import START, World

EXAMPLES = int(os.environ.get("TESSERA_POLICY_EXAMPLES", "2000"))
#: everything is created at START; writes and the first reads at WRITE_AT
WRITE_AT = START + timedelta(days=2)
#: the second round of reads, after the 5-day delegations ran out
LATER = START + timedelta(days=10)
#: delegation lengths drawn for agents: none, expired before the writes, expires
#: between the writes and LATER, still live at LATER
DELEGATION_DAYS = (0, 1, 5, 30)

MARKER = "ocelot"
VOCAB = ("amber", "basalt", "cobalt", "dune", "ember", "fjord")

P, D, PR, T, OG, S, PU = (
    MemoryScope.PRIVATE,
    MemoryScope.DELEGATED,
    MemoryScope.PROJECT,
    MemoryScope.TEAM,
    MemoryScope.ORGANIZATION,
    MemoryScope.SHARED,
    MemoryScope.PUBLIC,
)
#: the spaces an organisation may have; the same keys in every organisation
CATALOGUE: tuple[tuple[MemoryScope, str | None], ...] = (
    (PR, "p1"),
    (PR, "p2"),
    (T, "t1"),
    (S, "s1"),
    (D, "d1"),
    (OG, None),
    (PU, None),
)
KEYS = ("p1", "p2", "t1", "s1", "d1", "zz")

#: what the runs covered, summed over every example (reported and asserted)
CASES: Counter[str] = Counter()


# -- generated worlds (plain data) --------------------------------------------------


@dataclass(frozen=True)
class PSpec:
    index: int
    org: int
    agent_of: int | None  # index of the user an agent acts for
    role: OrgRole
    delegation_days: int


@dataclass(frozen=True)
class WriteSpec:
    who: int
    scope: MemoryScope
    key: str | None  # a literal key, or "@self" / "@user" / "@p<index>"
    words: tuple[str, ...]
    foreign_org: bool


@dataclass(frozen=True)
class Scenario:
    orgs: int
    principals: tuple[PSpec, ...]
    spaces: tuple[tuple[int, MemoryScope, str | None, bool], ...]
    members: tuple[tuple[int, int, SpaceRole], ...]  # space index, principal, role
    writes: tuple[WriteSpec, ...]
    readers: tuple[tuple[int, str], ...]  # principal, query word
    #: memory index, action, target memory index (indexes taken modulo the memories kept)
    corrections: tuple[tuple[int, str, int], ...] = ()
    #: derived records: a memory's writer proposes a record citing it (and maybe a second memory)
    #: and accepts it, into its sources' space or explicitly into a catalogue space
    promotions: tuple[tuple[int, int | None, int | None], ...] = ()


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    orgs = draw(st.integers(2, 3))
    principals: list[PSpec] = []
    roles = st.sampled_from((OrgRole.MEMBER, OrgRole.MEMBER, OrgRole.ADMIN, OrgRole.OWNER))
    for org in range(orgs):
        for _ in range(draw(st.integers(1, 3))):
            principals.append(PSpec(len(principals), org, None, draw(roles), 0))
    users = list(principals)
    for _ in range(draw(st.integers(0, 2 * orgs))):
        user = draw(st.sampled_from(users))
        days = draw(st.sampled_from(DELEGATION_DAYS))
        principals.append(PSpec(len(principals), user.org, user.index, OrgRole.MEMBER, days))

    spaces = []
    for org in range(orgs):
        for scope, key in CATALOGUE:
            if draw(st.booleans()):
                enabled = draw(st.sampled_from((True, True, False)))
                spaces.append((org, scope, key, enabled))

    members: dict[tuple[int, int], SpaceRole] = {}
    if spaces:
        for _ in range(draw(st.integers(0, 20))):
            space = draw(st.integers(0, len(spaces) - 1))
            in_org = [p.index for p in principals if p.org == spaces[space][0]]
            who = draw(st.sampled_from(in_org))
            members.setdefault((space, who), draw(st.sampled_from(list(SpaceRole))))

    writes: list[WriteSpec] = []
    n = len(principals)
    for _ in range(draw(st.integers(1, 16))):
        scope = draw(st.sampled_from((*MemoryScope, P, P, OG, PR)))
        if scope is P:
            other = f"@p{draw(st.integers(0, n - 1))}"
            key = draw(st.sampled_from((None, None, "@self", "@user", other)))
        elif scope in (OG, PU):
            key = draw(st.sampled_from((None, None, None, "p1")))
        else:  # mostly the key of a catalogued space of that scope, sometimes another
            own_keys = [k for sc_, k in CATALOGUE if sc_ is scope]
            key = draw(st.sampled_from((*own_keys, *own_keys, *own_keys, *KEYS)))
        words = tuple(draw(st.lists(st.sampled_from(VOCAB), min_size=0, max_size=2)))
        foreign = draw(st.integers(0, 19)) == 0
        who = draw(st.integers(0, n - 1))
        if len(members) > 0 and draw(st.booleans()):  # a member or its agent writes there
            space, who = draw(st.sampled_from(sorted(members)))
            agents = [a.index for a in principals if a.agent_of == who]
            if len(agents) > 0 and draw(st.booleans()):
                who = draw(st.sampled_from(agents))
            scope, key = spaces[space][1], spaces[space][2]
        writes.append(WriteSpec(who, scope, key, words, foreign))

    readers = tuple(
        (draw(st.integers(0, n - 1)), draw(st.sampled_from((MARKER, *VOCAB))))
        for _ in range(draw(st.integers(1, 4)))
    )
    corrections = tuple(
        (draw(st.integers(0, 15)), draw(st.sampled_from(ACTIONS)), draw(st.integers(0, 15)))
        for _ in range(draw(st.integers(0, 5)))
    )
    # derived from the corrections' draws rather than drawn anew, so the generated worlds
    # stay exactly those the rest of this test has always run
    promotions = tuple(
        (
            which,
            target if (which + target) % 2 else None,
            None if (which + target) % 3 == 0 else (which * 7 + target) % len(CATALOGUE),
        )
        for which, _, target in corrections
    )
    return Scenario(
        promotions=promotions,
        corrections=corrections,
        orgs=orgs,
        principals=tuple(principals),
        spaces=tuple(spaces),
        members=tuple((s, p, r) for (s, p), r in members.items()),
        writes=tuple(writes),
        readers=readers,
    )


# -- the oracle -------------------------------------------------------------------------


@dataclass(frozen=True)
class Memory:
    source_id: str
    org: int
    scope: MemoryScope
    key: str | None
    content: str
    words: frozenset[str]
    writer: int = -1  # principal index


@dataclass
class Oracle:
    """Who may see and write what, from the rules in plain words (no domain.policy)."""

    scenario: Scenario
    ids: dict[int, str] = field(default_factory=dict)  # principal index -> id
    memory: dict[str, "Memory"] = field(default_factory=dict)  # source id -> memory

    def __post_init__(self) -> None:
        sc = self.scenario
        #: (org, scope, key) -> writes enabled
        self.spaces = {(o, s, k): w for o, s, k, w in sc.spaces}
        #: (org, scope, key, principal index) -> role
        self.roles = {(*sc.spaces[s][:3], p): role for s, p, role in sc.members}

    def pid(self, p: PSpec) -> str:
        return self.ids[p.index]

    def is_agent(self, p: PSpec) -> bool:
        return p.agent_of is not None

    def delegation(self, p: PSpec, now: datetime) -> str:
        """'live', or why not: delegation_required / delegation_expired."""
        if p.delegation_days == 0:
            return "delegation_required"
        live = now < START + timedelta(days=p.delegation_days)
        return "live" if live else "delegation_expired"

    def may_see(self, p: PSpec, m: Memory, now: datetime) -> bool:
        if m.org != p.org:
            return False  # organisations never see each other
        if m.scope in (OG, PU):
            return True  # open to the whole organisation
        if m.scope is P:
            if m.key == self.pid(p):
                return True  # one's own memory, or an agent's own diary
            if p.agent_of is None:  # a user reads the diaries of their own agents
                return any(
                    a.agent_of == p.index and self.pid(a) == m.key for a in self.scenario.principals
                )
            # an agent reads its user's memory while its delegation is live
            return m.key == self.ids[p.agent_of] and self.delegation(p, now) == "live"
        own = (m.org, m.scope, m.key, p.index) in self.roles
        via_user = (
            p.agent_of is not None
            and (m.org, m.scope, m.key, p.agent_of) in self.roles
            and self.delegation(p, now) == "live"
        )
        if not (own or via_user):
            return False  # members only
        if m.scope is D and p.agent_of is not None:
            return self.delegation(p, now) == "live"  # delegated memory needs a delegation
        return True

    def owns(self, p: PSpec, m: Memory, now: datetime) -> bool:
        """Sensitive memory goes to its owner: a private space's owner, else its writer;
        an agent also counts as its user while its delegation is live."""
        owner = m.key if m.scope is P else self.ids[m.writer]
        if self.pid(p) == owner:
            return True
        user = self.ids[p.agent_of] if p.agent_of is not None else None
        return user == owner and self.delegation(p, now) == "live"

    def recalls(self, p: PSpec, m: Memory, now: datetime, lives: dict[str, Life]) -> bool:
        """May search and packs return it, corrections included?"""
        life = lives[m.source_id]
        if not (self.may_see(p, m, now) and recallable(life, self.owns(p, m, now))):
            return False
        if life.state != "superseded":
            return True
        replacement = self.memory.get(life.target or "")  # shown only beside its replacement
        return replacement is not None and (
            self.may_see(p, replacement, now)
            and recallable(lives[replacement.source_id], self.owns(p, replacement, now))
        )

    def write_outcome(self, p: PSpec, scope: MemoryScope, key: str | None, now: datetime) -> str:
        keyed = (D, PR, T, S)
        if scope in keyed and not key:
            return "missing_scope_key"
        if scope is P:
            owner = key or self.pid(p)
            if owner == self.pid(p):
                return "allowed"
            if p.agent_of is not None and owner == self.ids[p.agent_of]:
                state = self.delegation(p, now)
                return "allowed" if state == "live" else state
            return "principal_mismatch"
        if scope in (T, OG, S, PU) and not self.spaces.get((p.org, scope, key), False):
            return "scope_disabled"
        admin = p.agent_of is None and p.role in (OrgRole.ADMIN, OrgRole.OWNER)
        if scope in (OG, PU) and admin:
            return "allowed"  # organisation admins write the open spaces once enabled
        own = self.roles.get((p.org, scope, key, p.index))
        inherited = None
        state = "unverified_membership"
        if p.agent_of is not None:
            inherited = self.roles.get((p.org, scope, key, p.agent_of))
            if inherited is not None:
                state = self.delegation(p, now)
                if state != "live":
                    inherited = None
        roles = [r for r in (own, inherited) if r is not None]
        if not roles:
            return state
        # the stronger of the agent's own role and its user's (while delegated)
        role = (
            SpaceRole.WRITER if any(r is not SpaceRole.READER for r in roles) else SpaceRole.READER
        )
        if role is SpaceRole.READER:
            return "insufficient_role"
        if scope is D and p.agent_of is not None:
            state = self.delegation(p, now)
            return "allowed" if state == "live" else state
        return "allowed"


# -- running a scenario ------------------------------------------------------------------


def _resolve_key(oracle: Oracle, p: PSpec, key: str | None) -> str | None:
    if key == "@self":
        return oracle.pid(p)
    if key == "@user":
        return oracle.ids[p.agent_of] if p.agent_of is not None else oracle.pid(p)
    if key is not None and key.startswith("@p"):
        return oracle.ids[int(key[2:])]
    return key


async def _build(world: World, sc: Scenario, oracle: Oracle) -> list[PrincipalRecord]:
    orgs = [await world.org(f"org{i}") for i in range(sc.orgs)]
    records: list[PrincipalRecord] = []
    for p in sc.principals:
        if p.agent_of is None:
            record = await world.user(orgs[p.org], f"user{p.index}", p.role)
        else:
            user = records[p.agent_of]
            record = await world.agent(orgs[p.org], f"agent{p.index}", user, p.delegation_days)
        records.append(record)
        oracle.ids[p.index] = record.principal_id
    spaces = [await world.space(orgs[o], s, k, writes=w) for o, s, k, w in sc.spaces]
    for s, member, role in sc.members:
        await world.member(spaces[s], records[member], role)
    return records


async def _write(
    world: World, sc: Scenario, oracle: Oracle, records: list[PrincipalRecord], n: int
) -> list[Memory]:
    memories: list[Memory] = []
    now = world.clock.now()
    for w in sc.writes:
        p, record = sc.principals[w.who], records[w.who]
        key = _resolve_key(oracle, p, w.key)
        content = " ".join((MARKER, *w.words, f"note{n}x{len(memories)}"))
        org_id = record.org_id
        if w.foreign_org:
            org_id = next(r.org_id for r in records if r.org_id != record.org_id)
        request = RememberRequest(org_id=org_id, content=content, scope=w.scope, scope_key=key)
        expected = (
            "principal_mismatch" if w.foreign_org else oracle.write_outcome(p, w.scope, key, now)
        )
        if w.scope in (OG, PU) and key is not None:
            expected = "invalid_scope_key"  # one space per organisation: refused as input
        before = await world.store.count_chunks(org_id)
        result = None
        try:
            result = await world.services.memory.remember(request, await world.ctx(record))
        except (PolicyDeniedError, InvalidInputError) as refusal:
            refused: str | None = str(refusal.reason)
        else:
            refused = None
        if refused is not None:
            CASES["writes refused"] += 1
            assert refused == expected, f"{p} writing {w.scope}/{key}: {refused}, oracle {expected}"
            assert await world.store.count_chunks(org_id) == before, "a refused write stored data"
            continue
        CASES["writes allowed"] += 1
        CASES[f"memories in {w.scope}"] += 1
        assert result is not None
        assert expected == "allowed", f"principal {p} wrote {w.scope}/{key}; oracle: {expected}"
        stored_key = key if key is not None or w.scope is not P else oracle.pid(p)
        memories.append(
            Memory(
                result.source_id, p.org, w.scope, stored_key, content, frozenset(w.words), p.index
            )
        )
    return memories


async def _read(
    world: World,
    sc: Scenario,
    oracle: Oracle,
    records: list[PrincipalRecord],
    memories: list[Memory],
    lives: dict[str, Life],
) -> None:
    now = world.clock.now()
    by_id = {m.source_id: m for m in memories}
    for who, word in sc.readers:
        p, record = sc.principals[who], records[who]
        visible = {m.source_id for m in memories if oracle.recalls(p, m, now, lives)}
        matching = {  # a duplicate may collapse under its canonical source
            m.source_id
            for m in memories
            if m.source_id in visible
            and word in {MARKER, *m.words}
            and lives[m.source_id].state != "duplicate"
        }
        search = await world.services.memory.search(
            SearchRequest(org_id=record.org_id, query=word, limit=100), await world.ctx(record)
        )
        pack = await world.services.memory.context_pack(
            ContextRequest(org_id=record.org_id, query=word, token_budget=8000),
            await world.ctx(record),
        )
        CASES["searches"] += 1
        CASES["context packs"] += 1
        # relevant redactions are counted for readers of their space only, never shown
        withheld = sum(
            1
            for m in memories
            if lives[m.source_id].state == "redacted"
            and oracle.may_see(p, m, now)
            and ("sensitive" not in lives[m.source_id].marks or oracle.owns(p, m, now))
            and word in {MARKER, *m.words}
        )
        assert search.withheld_redacted == pack.withheld_redacted == withheld, (
            f"{p} counted {pack.withheld_redacted} redactions for {word}, not {withheld}"
        )
        CASES["redactions counted"] += withheld
        # a derived record surfaces only to a caller who may recall every source it cites
        for hit in [*search.derived, *pack.derived]:
            CASES["derived records checked"] += 1
            for source_id in hit.source_ids:
                assert source_id in visible, f"LEAK: {p} got a record of {by_id.get(source_id)}"
        # the wake pack (no query) draws on the same memory and derived records: nothing more
        wake = await world.services.wake.wake(
            WakeRequest(org_id=record.org_id), await world.ctx(record)
        )
        for item in wake.items:
            CASES["wake items checked"] += 1
            for source_id in item.source_ids:
                assert source_id in visible, f"LEAK: {p} woke with {by_id.get(source_id)}"
        returned = [(h.source_id, h.scope, h.scope_key, h.text) for h in search.results]
        returned += [(i.source_id, i.scope, i.scope_key, i.text) for i in pack.items]
        for source_id, scope, scope_key, text in returned:
            CASES["returned items checked"] += 1
            m = by_id.get(source_id)
            assert m is not None, f"LEAK: {p} got unknown source {source_id}"
            assert source_id in visible, f"LEAK: {p} at {now} got {m}"
            assert (scope, scope_key, text) == (m.scope, m.key, m.content)
        # completeness: everything the caller may see and that has the word is found
        searched = {h.source_id for h in search.results}
        assert matching <= searched, f"{p} missed {matching - searched} by search for {word}"
        if len(visible) <= 40:  # a pack weighs 40 candidates at most
            packed = {i.source_id for i in pack.items}
            assert matching <= packed, f"{p} missed {matching - packed} in a pack for {word}"
        # and a direct inspect agrees, source by source, in every organisation
        ctx = await world.ctx(record)
        for m in memories:
            CASES["inspects"] += 1
            life, space_readable = lives[m.source_id], oracle.may_see(p, m, now)
            try:
                view = await world.services.inspector.inspect_source(ctx, m.source_id)
            except (PolicyDeniedError, NotFoundError):
                # refused: its space is closed to the caller, or it is gone for others
                closed = not space_readable or life.state in ("hidden", "redacted", "deleted")
                assert closed, f"{p} may see {m} ({life}) but inspect refused"
                continue
            assert space_readable, f"LEAK: {p} at {now} inspected {m}"
            owner = oracle.owns(p, m, now)
            assert inspect_text_ok(life, owner, view.content, m.content), (
                f"LEAK: {p} inspected {m} ({life}) and got {view.content!r}"
            )
            if life == Life():
                assert view.content == m.content


async def _correct(
    world: World, sc: Scenario, records: list[PrincipalRecord], memories: list[Memory]
) -> dict[str, Life]:
    """Each correction previewed and applied by the memory's writer; the oracle follows."""
    lives = {m.source_id: Life() for m in memories}
    if not memories:
        return lives
    for which, action, target_index in sc.corrections:
        m = memories[which % len(memories)]
        target = memories[target_index % len(memories)].source_id
        needs = {"supersede": "replacement_id", "mark_duplicate": "canonical_id"}.get(action)
        # a redaction's summary repeats the memory's words, never its unique text: the
        # withheld count must find it for exactly the readers of its space
        summary = {"summary": " ".join((MARKER, *m.words))} if action == "redact" else {}
        request = CorrectionRequest(
            action=CorrectionAction(action), **({needs: target} if needs else {}), **summary
        )
        writer, service = records[m.writer], world.services.corrections
        try:
            preview = await service.preview(await world.ctx(writer), m.source_id, request)
            applied = await service.apply(
                await world.ctx(writer), m.source_id, request, preview.preview_token
            )
        except ConflictError as refusal:
            CASES["corrections refused"] += 1
            if str(refusal.reason) == "transition_not_allowed" and needs is None:
                expected = after(lives[m.source_id], action, None)
                assert expected is None, f"{action} on {lives[m.source_id]} refused"
            continue
        except (PolicyDeniedError, NotFoundError):
            CASES["corrections refused"] += 1
            continue
        expected = after(lives[m.source_id], action, target if needs else None)
        assert expected is not None, f"{action} applied on {lives[m.source_id]}"
        assert (str(applied.state), {str(k) for k in applied.marks}) == (
            expected.state,
            set(expected.marks),
        )
        lives[m.source_id] = expected
        CASES[f"corrections applied: {action}"] += 1
    return lives


async def _promote(
    world: World, sc: Scenario, records: list[PrincipalRecord], memories: list[Memory]
) -> None:
    """Derived records citing memories, promoted where the policy lets their writer."""
    if not memories:
        return
    assert world.services.reflection is not None and world.services.review is not None
    for first, second, target in sc.promotions:
        m = memories[first % len(memories)]
        others = [] if second is None else [memories[second % len(memories)]]
        cited = list({c.source_id: c for c in (m, *others)}.values())
        writer = records[m.writer]
        proposal = ProposedCandidate(
            type=CandidateType.FACT,
            text=" ".join(c.content for c in cited)[:1000],
            spans=[ProposedSpan(source_id=c.source_id, start=0, end=len(c.content)) for c in cited],
        )
        proposed = await world.services.reflection.propose(
            ProposeRequest(org_id=writer.org_id, candidates=[proposal]), await world.ctx(writer)
        )
        if not proposed.candidates:
            CASES["proposals refused"] += 1
            continue
        scope, key = CATALOGUE[target] if target is not None else (None, None)
        review = ReviewRequest(
            org_id=writer.org_id,
            candidate_id=proposed.candidates[0].id,
            action=ReviewAction.ACCEPT,
            promote_to_scope=scope,
            scope_key=key,
        )
        try:
            done = await world.services.review.review(review, await world.ctx(writer))
        except (PolicyDeniedError, ConflictError, NotFoundError):
            CASES["promotions refused"] += 1
            continue
        CASES["derived records promoted"] += 1
        await _share(world, writer, done.promoted[0].id, (first + second if second else first))


async def _share(world: World, writer: PrincipalRecord, entity_id: str, which: int) -> None:
    """The writer shares the promoted record into another space, where the policy lets it:
    the copy keeps citing its sources, so the reads below must still find no leak."""
    scope, key = CATALOGUE[which % len(CATALOGUE)]
    request = ShareRequest(
        org_id=writer.org_id,
        kind=ShareKind.ENTITY,
        subject_id=entity_id,
        scope=scope,
        scope_key=key,
    )
    try:
        preview = await world.services.sharing.preview(request, await world.ctx(writer))
        await world.services.sharing.apply(
            request, await world.ctx(writer), preview.preview_token
        )
    except (PolicyDeniedError, InvalidInputError, NotFoundError):
        CASES["shares refused"] += 1
        return
    CASES["derived records shared"] += 1


async def _run(sc: Scenario, n: int) -> None:
    world = World()
    oracle = Oracle(sc)
    records = await _build(world, sc, oracle)
    world.clock.set(WRITE_AT)
    memories = await _write(world, sc, oracle, records, n)
    oracle.memory = {m.source_id: m for m in memories}
    await _promote(world, sc, records, memories)
    lives = await _correct(world, sc, records, memories)
    await _read(world, sc, oracle, records, memories, lives)
    world.clock.set(LATER)
    await _read(world, sc, oracle, records, memories, lives)
    CASES["examples"] += 1


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(sc=scenarios())
def _no_leaks(sc: Scenario) -> None:
    with asyncio.Runner() as runner:
        runner.run(_run(sc, CASES["examples"]))


def test_no_search_pack_or_inspect_returns_what_the_oracle_forbids(
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = CASES.copy()
    _no_leaks()
    ran = CASES - before
    with capsys.disabled():
        print(f"\npolicy property cases: {dict(sorted(ran.items()))}")
    assert ran["examples"] >= EXAMPLES
    assert ran["writes allowed"] > 0 and ran["writes refused"] > 0
    assert ran["returned items checked"] > 0
    applied = {k for k, v in ran.items() if k.startswith("corrections applied") and v > 0}
    assert len(applied) == len(CorrectionAction), f"not every correction was applied: {applied}"
    assert ran["derived records promoted"] > 0 and ran["promotions refused"] > 0
    assert ran["derived records checked"] > 0
    assert ran["derived records shared"] > 0 and ran["shares refused"] > 0
