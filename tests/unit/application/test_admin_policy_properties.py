"""Property: no sequence of control-plane actions lets anyone escalate.

Hypothesis generates worlds: two organisations (the first is the install's
home, so its owners administer both), users with every organisation role,
agents with and without a delegation, project spaces with members of every
role; every principal holds a key and every user keeps a private canary.
Then random principals try random control-plane actions through the real
use cases: mint a key for someone, create a user of some role, create an
agent for someone (with or without a delegation), delegate, revoke
someone's key, give someone a role in a space, and import by path (their
organisation's import area, another organisation's, another principal's
upload).

Each outcome is checked against ``Oracle``: the rules in plain words,
written here without calling ``domain.policy``. Escalations are counted
from what happened, independently of the oracle:

- a credential leak: any key an actor obtained (its own, and every key it
  minted) finds, by a real search, a private canary that is not the
  actor's own;
- an owner made by a non-owner, an owner's key revoked by a non-owner, a
  delegation granted by anyone but its user, a space's ownership changed by
  anyone but its owners or the organisation's owners, a path import started
  by anyone but an organisation's owner or of anything outside the caller's
  organisation's own files.

Run: .venv/bin/python -m pytest tests/unit/application/test_admin_policy_properties.py -q -s
The number of generated worlds is printed and asserted (>= 2,000); scale with
TESSERA_POLICY_EXAMPLES (default 2000). The run is derandomized.
"""

import asyncio
import os
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.inmemory.import_store import InMemoryImportStore
from adapters.sources.registry import source_adapters
from adapters.system.ids import TimeOrderedIds
from application.imports.import_jobs import ImportJobs, ImportSetup
from application.trust.records import PrincipalRecord, SpaceRecord
from domain.errors import TesseraError
from domain.policy import OrgRole, SpaceRole, Surface
from domain.scopes import MemoryScope
from tests.support.world import World

EXAMPLES = int(os.environ.get("TESSERA_POLICY_EXAMPLES", "2000"))
API = Surface.API
KINDS = ("mint", "user", "agent", "delegate", "revoke", "space_role", "path_import")
ROLES = (OrgRole.MEMBER, OrgRole.MEMBER, OrgRole.ADMIN, OrgRole.OWNER)

#: what the runs covered, summed over every example (reported and asserted)
CASES: Counter[str] = Counter()


@dataclass(frozen=True)
class PSpec:
    org: int
    role: OrgRole
    agent_of: int | None = None  # index of the user an agent acts for
    delegated: bool = False


@dataclass(frozen=True)
class Action:
    actor: int
    kind: str
    target: int  # a principal index (taken modulo the principals that exist then)
    other: int  # a second principal, a space, or a role, by kind
    flag: bool


@dataclass(frozen=True)
class Scenario:
    principals: tuple[PSpec, ...]
    spaces: tuple[int, ...]  # each space's organisation
    members: tuple[tuple[int, int, SpaceRole], ...]  # space, principal, role
    actions: tuple[Action, ...]


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    people: list[PSpec] = []
    for org in (0, 1):
        people.append(PSpec(org, OrgRole.OWNER))  # every organisation has an owner
        people.extend(
            PSpec(org, draw(st.sampled_from(ROLES))) for _ in range(draw(st.integers(1, 3)))
        )
    users = len(people)
    for _ in range(draw(st.integers(0, 3))):
        user = draw(st.integers(0, users - 1))
        people.append(PSpec(people[user].org, OrgRole.MEMBER, user, draw(st.booleans())))
    spaces = tuple(draw(st.lists(st.sampled_from((0, 1)), min_size=1, max_size=3)))
    members = {}
    for _ in range(draw(st.integers(0, 6))):
        space = draw(st.integers(0, len(spaces) - 1))
        inside = [i for i, p in enumerate(people) if p.org == spaces[space]]
        who = draw(st.sampled_from(inside))
        members[(space, who)] = draw(st.sampled_from(list(SpaceRole)))
    actions = tuple(
        Action(
            actor=draw(st.integers(0, 40)),
            kind=draw(st.sampled_from(KINDS)),
            target=draw(st.integers(0, 40)),
            other=draw(st.integers(0, 40)),
            flag=draw(st.booleans()),
        )
        for _ in range(draw(st.integers(1, 12)))
    )
    return Scenario(
        principals=tuple(people),
        spaces=spaces,
        members=tuple((s, p, r) for (s, p), r in members.items()),
        actions=actions,
    )


# -- the oracle: the rules in plain words ----------------------------------------------


@dataclass
class Person:
    record: PrincipalRecord
    org: int
    role: OrgRole
    agent_of: int | None
    keyed: bool = False  # whether a key was ever minted for it
    live_keys: list[str] = field(default_factory=list)

    @property
    def is_agent(self) -> bool:
        return self.agent_of is not None


@dataclass
class Oracle:
    people: list[Person]
    space_orgs: list[int]
    roles: dict[tuple[int, int], SpaceRole]  # (space, person) -> role

    def runs_install(self, x: Person) -> bool:
        return not x.is_agent and x.org == 0 and x.role is OrgRole.OWNER

    def administers(self, x: Person, org: int) -> bool:
        if self.runs_install(x):
            return True
        return not x.is_agent and x.org == org and x.role in (OrgRole.ADMIN, OrgRole.OWNER)

    def owns(self, x: Person, org: int) -> bool:
        return self.runs_install(x) or (not x.is_agent and x.org == org and x.role is OrgRole.OWNER)

    def agent_of(self, agent: Person, user: int) -> bool:
        return agent.agent_of == user

    def mint(self, x: int, t: int) -> str:
        actor, target = self.people[x], self.people[t]
        if x == t or (not actor.is_agent and target.agent_of == x):
            return "allowed"
        if target.is_agent or target.keyed:
            return "key_not_yours"
        if target.role is OrgRole.OWNER:
            return "allowed" if self.owns(actor, target.org) else "org_owner_required"
        return "allowed" if self.administers(actor, target.org) else "key_not_yours"

    def create_user(self, x: int, org: int, role: OrgRole) -> str:
        actor = self.people[x]
        if not self.administers(actor, org):
            return "admin_required"
        if role is OrgRole.OWNER and not self.owns(actor, org):
            return "org_owner_required"
        return "allowed"

    def create_agent(self, x: int, user: int, delegated: bool) -> str:
        actor, owner = self.people[x], self.people[user]
        own = not owner.is_agent and x == user
        if not own and not self.administers(actor, owner.org):
            return "admin_required"
        if owner.is_agent:
            return "invalid_request"  # an agent acts for a user
        if delegated and x != user:
            return "delegation_not_yours"
        return "allowed"

    def delegate(self, x: int, user: int, agent: int) -> str:
        if self.people[agent].agent_of != user:
            return "principal_mismatch"
        return "allowed" if x == user else "delegation_not_yours"

    def revoke(self, x: int, t: int) -> str:
        actor, holder = self.people[x], self.people[t]
        if not self.runs_install(actor) and actor.org != holder.org:
            return "not_found"  # another organisation's key means nothing to it
        own = x == t or (not actor.is_agent and holder.agent_of == x)
        if not own:
            if not self.administers(actor, holder.org):
                return "admin_required"
            if (
                holder.role is OrgRole.OWNER
                and not holder.is_agent
                and not self.owns(actor, holder.org)
            ):
                return "org_owner_required"
        if holder.role is OrgRole.OWNER and not holder.is_agent:
            owners = [p for p in self.people if p.org == holder.org and p.role is OrgRole.OWNER]
            if sum(len(p.live_keys) for p in owners if not p.is_agent) <= 1:
                return "last_owner_key"
        return "allowed"

    def path_import(self, x: int, own_area: bool) -> str:
        """Reading the server's disk is for an organisation's owners, in its own files."""
        actor = self.people[x]
        if actor.is_agent or actor.role is not OrgRole.OWNER:
            return "path_import_not_allowed"
        return "allowed" if own_area else "path_outside_import_root"

    def space_role(self, x: int, space: int, t: int, wanted: SpaceRole) -> str:
        actor, org = self.people[x], self.space_orgs[space]
        own = self.roles.get((space, x))
        space_owner = own is SpaceRole.OWNER and not actor.is_agent
        if SpaceRole.OWNER in (self.roles.get((space, t)), wanted):
            return "allowed" if space_owner or self.owns(actor, org) else "space_owner_required"
        return "allowed" if space_owner or self.administers(actor, org) else "admin_required"


# -- running a scenario ----------------------------------------------------------------


@dataclass
class Ledger:
    """What actually happened, for the escalation checks."""

    held: dict[int, set[int]] = field(default_factory=dict)  # actor -> principals it holds keys of
    escalations: list[str] = field(default_factory=list)


def _reason(error: TesseraError) -> str:
    return str(error.reason)


async def _attempt(call: "asyncio.Future[object] | object") -> tuple[str, object]:
    try:
        result = await call  # type: ignore[misc]
    except TesseraError as error:
        return _reason(error), None
    return "allowed", result


async def _build(world: World, sc: Scenario) -> tuple[Oracle, list[SpaceRecord]]:
    control, spaces_admin = world.services.control, world.services.spaces
    home = await control.create_organization("org0", None, Surface.CLI, org_id="home")
    orgs = [home.org_id, await world.org("org1")]
    people: list[Person] = []
    for i, p in enumerate(sc.principals):
        if p.agent_of is None:
            record = await world.user(orgs[p.org], f"user{i}", p.role)
        else:
            user = people[p.agent_of].record
            record = await world.agent(orgs[p.org], f"agent{i}", user, 30 if p.delegated else 0)
        person = Person(record, p.org, p.role, p.agent_of)
        issued = await control.create_key(record.org_id, record.principal_id, None, Surface.CLI)
        person.keyed, person.live_keys = True, [issued.key_id]
        people.append(person)
        if p.agent_of is None:
            await world.remember(record, f"canary canary{i} kept private")
    spaces = [
        await world.space(orgs[org], MemoryScope.PROJECT, f"p{n}", writes=True)
        for n, org in enumerate(sc.spaces)
    ]
    for space, who, role in sc.members:
        await spaces_admin.add_member(
            spaces[space].org_id,
            spaces[space].space_id,
            people[who].record.principal_id,
            role,
            None,
            Surface.CLI,
        )
    oracle = Oracle(people, list(sc.spaces), {(s, p): r for s, p, r in sc.members})
    return oracle, spaces


def _import_jobs(world: World, root: Path) -> ImportJobs:
    setup = ImportSetup(
        store=InMemoryImportStore(),
        adapters=source_adapters(),
        root=root,
        max_upload_bytes=1 << 20,
        anywhere=False,
        granted={},
        path_principals=(),
        keep_uploads=timedelta(0),
    )
    return ImportJobs(
        setup,
        memory=world.services.memory,
        control=world.control_store,
        access=world.services.access,
        audit=world.services.audit,
        ids=TimeOrderedIds(),
        clock=world.clock,
    )


async def _import_targets(world: World, jobs: ImportJobs, oracle: Oracle) -> dict[int, list[str]]:
    """Per organisation, the paths an importer tries: its own files ("."), then another
    organisation's files and the first owner's upload, both outside its area."""
    first_owner = oracle.people[0].record
    upload = jobs.upload_dir(await world.ctx(first_owner), "up") / "mail.mbox"
    upload.write_text("From a@b Mon Jan  1 00:00:00 2024\nSubject: x\n\nupload canary\n")
    org_ids = [oracle.people[0].record.org_id]
    org_ids.append(next(p.record.org_id for p in oracle.people if p.org == 1))
    files = [jobs.area.files(org_id) for org_id in org_ids]
    return {org: [".", str(files[1 - org]), str(upload)] for org in (0, 1)}


@dataclass
class Imports:
    jobs: ImportJobs
    targets: dict[int, list[str]]


async def _act(
    world: World,
    oracle: Oracle,
    spaces: list[SpaceRecord],
    a: Action,
    led: Ledger,
    imports: Imports,
) -> None:
    control, spaces_admin = world.services.control, world.services.spaces
    people = oracle.people
    n = len(people)
    x, t = a.actor % n, a.target % n
    actor, target = people[x], people[t]
    rec = actor.record
    if a.kind == "mint":
        if a.flag:  # the newest principal: often one just created, never keyed
            t, target = n - 1, people[n - 1]
        expected = oracle.mint(x, t)
        got, issued = await _attempt(
            control.create_key(target.record.org_id, target.record.principal_id, rec, API)
        )
        if got == "allowed":
            target.keyed = True
            target.live_keys.append(issued.key_id)  # type: ignore[attr-defined]
            led.held.setdefault(x, set()).add(t)
            if t != x and not (not actor.is_agent and target.agent_of == x):
                CASES["newcomer keys minted"] += 1
    elif a.kind == "user":
        org = a.other % 2
        role = ROLES[a.other % len(ROLES)]
        expected = oracle.create_user(x, org, role)
        org_id = next(p.record.org_id for p in people if p.org == org)
        got, made = await _attempt(
            control.create_principal(org_id, f"new{len(people)}", rec, API, org_role=role)
        )
        if got == "allowed":
            assert isinstance(made, PrincipalRecord)
            people.append(Person(made, org, role, None))
            if role is OrgRole.OWNER and not oracle.owns(actor, org):
                led.escalations.append(f"{x} made an owner in org {org}")
    elif a.kind == "agent":
        expected = oracle.create_agent(x, t, a.flag)
        got, made = await _attempt(
            control.create_principal(
                target.record.org_id,
                f"bot{len(people)}",
                rec,
                API,
                acting_for=target.record.principal_id,
                delegation_days=7 if a.flag else 0,
            )
        )
        if got == "allowed":
            assert isinstance(made, PrincipalRecord)
            people.append(Person(made, target.org, OrgRole.MEMBER, t))
            if a.flag and x != t:
                led.escalations.append(f"{x} delegated for {t}")
    elif a.kind == "delegate":
        agent = a.other % n
        theirs = [i for i, p in enumerate(people) if p.agent_of == t]
        if a.flag and theirs:  # the user's own agent, asked for by the user or another
            agent = theirs[a.other % len(theirs)]
            x, actor, rec = (t, target, target.record) if a.other % 2 else (x, actor, rec)
        expected = oracle.delegate(x, t, agent)
        got, _ = await _attempt(
            control.delegate(
                target.record.org_id,
                target.record.principal_id,
                people[agent].record.principal_id,
                7,
                rec,
                API,
            )
        )
        if people[agent].org != target.org:
            expected = "not_found"  # the agent is looked up in the user's organisation
        if got == "allowed" and x != t:
            led.escalations.append(f"{x} delegated for {t}")
    elif a.kind == "revoke":
        if not target.live_keys:
            return
        key_id = target.live_keys[0]
        expected = oracle.revoke(x, t)
        got, _ = await _attempt(control.revoke_key(key_id, rec, API))
        if got == "allowed":
            target.live_keys.remove(key_id)
            owner_key = target.role is OrgRole.OWNER and not target.is_agent
            if owner_key and x != t and not oracle.owns(actor, target.org):
                led.escalations.append(f"{x} revoked an owner's key")
    elif a.kind == "path_import":
        tried = imports.targets[actor.org][a.other % 3]
        expected = oracle.path_import(x, tried == ".")
        ctx = await world.ctx(rec)
        got, _ = await _attempt(imports.jobs.start(ctx, key_id=None, adapter="maildir", path=tried))
        if got == "allowed" and (tried != "." or expected != "allowed"):
            led.escalations.append(f"{x} imported {tried!r}")
    else:
        space = a.other % len(spaces)
        same_org = [i for i, p in enumerate(people) if p.org == oracle.space_orgs[space]]
        t = same_org[a.target % len(same_org)]
        wanted = list(SpaceRole)[a.target % 3]
        expected = oracle.space_role(x, space, t, wanted)
        before = oracle.roles.get((space, t))
        got, _ = await _attempt(
            spaces_admin.add_member(
                spaces[space].org_id,
                spaces[space].space_id,
                people[t].record.principal_id,
                wanted,
                rec,
                API,
            )
        )
        if got == "allowed":
            overseer = oracle.roles.get((space, x)) is SpaceRole.OWNER and not actor.is_agent
            if SpaceRole.OWNER in (before, wanted) and not (
                overseer or oracle.owns(actor, oracle.space_orgs[space])
            ):
                led.escalations.append(f"{x} changed the ownership of space {space}")
            oracle.roles[(space, t)] = wanted
    assert got == expected, f"{a.kind} by {x} on {t}: got {got}, expected {expected}"
    CASES[f"{a.kind} {'allowed' if got == 'allowed' else 'refused'}"] += 1


async def _leaks(world: World, oracle: Oracle, led: Ledger) -> None:
    """Every key an actor holds finds no private canary but the actor's own (an agent's:
    its user's, whose delegations only that user grants)."""
    for x, held in led.held.items():
        mine = {f"canary{x}", f"canary{oracle.people[x].agent_of}"}
        for t in held | {x}:
            hits = await world.search(oracle.people[t].record, "canary", limit=50)
            for hit in hits.results:
                found = hit.text.split()[1]
                CASES["canary reads checked"] += 1
                if found not in mine:
                    led.escalations.append(f"{x} read {found} through {t}'s key")


async def _run(sc: Scenario) -> None:
    world = World()
    oracle, spaces = await _build(world, sc)
    led = Ledger()
    with tempfile.TemporaryDirectory() as root:
        jobs = _import_jobs(world, Path(root))
        imports = Imports(jobs, await _import_targets(world, jobs, oracle))
        try:
            for action in sc.actions:
                await _act(world, oracle, spaces, action, led, imports)
        finally:
            await jobs.close()
    await _leaks(world, oracle, led)
    CASES["escalations"] += len(led.escalations)
    assert not led.escalations, led.escalations
    CASES["worlds"] += 1


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(sc=scenarios())
def _no_escalation(sc: Scenario) -> None:
    with asyncio.Runner() as runner:
        runner.run(_run(sc))


def test_no_control_plane_action_escalates(capsys: pytest.CaptureFixture[str]) -> None:
    before = CASES.copy()
    _no_escalation()
    ran = CASES - before
    with capsys.disabled():
        print(f"\nadmin policy property cases: {dict(sorted(ran.items()))}")
    assert ran["worlds"] >= EXAMPLES
    assert ran["escalations"] == 0
    for kind in KINDS:
        assert ran[f"{kind} allowed"] > 0 and ran[f"{kind} refused"] > 0, kind
    assert ran["canary reads checked"] > 0 and ran["newcomer keys minted"] > 0
