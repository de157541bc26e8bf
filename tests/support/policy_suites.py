"""The named policy fixture suites, written once against a surface-neutral ``Driver``.

Each suite is an async function that peoples a fresh Tessera through the
driver (as the operator), acts as its principals and asserts who sees what.
A driver adapts one surface: in process (``tests.support.world_driver``),
and later HTTP or MCP. The suites speak in plain ids, scopes and reason
strings only, so every surface can answer them.

The suites:

- ``private_leak_negative``: nobody but the owner sees a user's private memory.
- ``delegated_recall``: a delegated agent recalls its user's memory until expiry.
- ``agent_diary``: an agent's notes are seen by that agent and its user only.
- ``project_recall``: members recall project memory; readers cannot write.
- ``disabled_scope``: team/organization/shared/public writes wait for enabling.
"""

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

from domain.policy import OrgRole, SpaceRole
from domain.scopes import MemoryScope

__all__ = [
    "SUITES",
    "Denied",
    "Driver",
    "Seen",
    "Space",
    "Who",
    "agent_diary",
    "delegated_recall",
    "disabled_scope",
    "private_leak_negative",
    "project_recall",
]


@dataclass(frozen=True)
class Who:
    """A principal as a driver knows it: enough to act as it."""

    principal_id: str
    org_id: str
    name: str


@dataclass(frozen=True)
class Space:
    space_id: str
    org_id: str
    scope: MemoryScope
    scope_key: str | None


@dataclass(frozen=True)
class Seen:
    """One item a surface returned: which source, from which space (and its text, if any)."""

    source_id: str
    scope: str
    scope_key: str | None
    text: str | None = None


class Denied(Exception):
    """A surface refused the operation; ``reason`` is its stable reason code."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Driver(Protocol):
    """One surface of Tessera, as the suites use it.

    Setting up (``org`` ... ``enable_writes``, ``advance``, ``stored_count``)
    is the operator's job; ``remember`` ... ``inspect`` act as a principal
    and raise ``Denied(reason)`` where the policy refuses (``not_found``
    where the surface answers as if the source did not exist).
    """

    async def org(self, name: str) -> str: ...

    async def user(self, org_id: str, name: str, role: OrgRole = OrgRole.MEMBER) -> Who: ...

    async def agent(self, org_id: str, name: str, user: Who, delegation_days: int = 0) -> Who: ...

    async def space(
        self, org_id: str, scope: MemoryScope, key: str | None = None, *, writes: bool = False
    ) -> Space: ...

    async def member(self, space: Space, who: Who, role: SpaceRole = SpaceRole.WRITER) -> None: ...

    async def enable_writes(self, space: Space) -> None: ...

    def advance(self, delta: timedelta) -> None:
        """Move the service's clock forward."""

    async def stored_count(self, org_id: str) -> int:
        """How many memory items (chunks) the organisation holds, as the operator sees it."""

    async def remember(
        self,
        who: Who,
        content: str,
        scope: MemoryScope = MemoryScope.PRIVATE,
        key: str | None = None,
    ) -> str:
        """The new source's id."""

    async def search(self, who: Who, query: str, limit: int = 50) -> list[Seen]: ...

    async def pack(self, who: Who, query: str) -> list[Seen]: ...

    async def inspect(self, who: Who, source_id: str) -> Seen: ...


Suite = Callable[[Driver], Awaitable[None]]


# -- assertions shared by the suites ------------------------------------------


async def _recalled(d: Driver, who: Who, query: str) -> tuple[set[str], set[str]]:
    """The source ids ``who`` gets from a search and from a context pack."""
    return (
        {s.source_id for s in await d.search(who, query)},
        {s.source_id for s in await d.pack(who, query)},
    )


async def _sees(d: Driver, who: Who, query: str, source_ids: Sequence[str]) -> None:
    searched, packed = await _recalled(d, who, query)
    for sid in source_ids:
        assert sid in searched, f"{who.name} should find {sid} by search"
        assert sid in packed, f"{who.name} should get {sid} in a context pack"
        seen = await d.inspect(who, sid)
        assert seen.source_id == sid and seen.text is not None


async def _inspect_denial(d: Driver, who: Who, source_id: str) -> str | None:
    """The reason an inspect is refused, or None when it succeeds."""
    try:
        await d.inspect(who, source_id)
    except Denied as denial:
        return denial.reason
    return None


async def _blind(
    d: Driver, who: Who, query: str, source_ids: Sequence[str], reasons: set[str]
) -> None:
    searched, packed = await _recalled(d, who, query)
    for sid in source_ids:
        assert sid not in searched, f"LEAK: {who.name} found {sid} by search"
        assert sid not in packed, f"LEAK: {who.name} got {sid} in a context pack"
        reason = await _inspect_denial(d, who, sid)
        assert reason is not None, f"LEAK: {who.name} inspected {sid}"
        assert reason in reasons, f"{who.name} on {sid}: {reason} not {reasons}"


async def _refused(d: Driver, who: Who, scope: MemoryScope, key: str | None, reason: str) -> None:
    before = await d.stored_count(who.org_id)
    try:
        sid = await d.remember(who, f"refused note by {who.name}", scope, key)
    except Denied as denial:
        got = denial.reason
    else:
        raise AssertionError(f"{who.name} wrote {sid} to {scope}/{key}; expected {reason}")
    assert got == reason, f"{who.name} -> {scope}/{key}: {got} not {reason}"
    assert await d.stored_count(who.org_id) == before, "a refused write left something behind"


# -- the suites ------------------------------------------------------------------


async def private_leak_negative(d: Driver) -> None:
    """Nobody but its owner ever sees a user's private memory: search, pack or inspect."""
    org = await d.org("acme")
    alice = await d.user(org, "alice")
    bob = await d.user(org, "bob")
    admin = await d.user(org, "admin", OrgRole.ADMIN)
    owner = await d.user(org, "owner", OrgRole.OWNER)
    alice_bot = await d.agent(org, "alice-bot", alice)  # no delegation
    bob_bot = await d.agent(org, "bob-bot", bob, delegation_days=30)
    owner_bot = await d.agent(org, "owner-bot", owner, delegation_days=30)
    other_org = await d.org("globex")
    carol = await d.user(other_org, "carol", OrgRole.OWNER)
    carol_bot = await d.agent(other_org, "carol-bot", carol, delegation_days=30)

    secret = await d.remember(alice, "zephyr: alice's salary is on the zephyr note")
    keyed = await d.remember(
        alice, "zephyr: alice's doctor visit", MemoryScope.PRIVATE, alice.principal_id
    )
    # memory that everyone in the org may see, so empty results are not trivial
    await d.remember(bob, "zephyr: bob's own note")

    await _sees(d, alice, "zephyr", [secret, keyed])
    mismatch = {"principal_mismatch"}
    for who in (bob, admin, owner, bob_bot, owner_bot):
        await _blind(d, who, "zephyr", [secret, keyed], mismatch)
    await _blind(d, alice_bot, "zephyr", [secret, keyed], {"delegation_required"})
    for who in (carol, carol_bot):  # another organisation: not even there
        await _blind(d, who, "zephyr", [secret, keyed], {"not_found", "principal_mismatch"})


async def delegated_recall(d: Driver) -> None:
    """A delegated agent recalls its user's private and delegated memory until expiry."""
    org = await d.org("acme")
    alice = await d.user(org, "alice")
    bot = await d.agent(org, "alice-bot", alice, delegation_days=2)
    errands = await d.space(org, MemoryScope.DELEGATED, "alice-errands")
    await d.member(errands, alice, SpaceRole.OWNER)

    private = await d.remember(alice, "quokka: alice's passport number is in the drawer")
    delegated = await d.remember(
        alice, "quokka: book the dentist for alice", MemoryScope.DELEGATED, "alice-errands"
    )
    both = [private, delegated]

    await _sees(d, bot, "quokka", both)
    await _sees(d, alice, "quokka", both)

    d.advance(timedelta(days=3))  # the delegation has expired
    await _blind(d, bot, "quokka", both, {"delegation_expired"})
    await _sees(d, alice, "quokka", both)
    # nor may it write for alice any more
    await _refused(d, bot, MemoryScope.PRIVATE, alice.principal_id, "delegation_expired")
    await _refused(d, bot, MemoryScope.DELEGATED, "alice-errands", "delegation_expired")


async def agent_diary(d: Driver) -> None:
    """An agent's private notes appear only to that agent and its user."""
    org = await d.org("acme")
    alice = await d.user(org, "alice")
    bob = await d.user(org, "bob")
    admin = await d.user(org, "admin", OrgRole.OWNER)
    bot = await d.agent(org, "alice-bot", alice, delegation_days=30)
    sibling = await d.agent(org, "alice-other-bot", alice, delegation_days=30)
    bob_bot = await d.agent(org, "bob-bot", bob, delegation_days=30)

    note = await d.remember(bot, "wombat: I tried the staging deploy twice")
    diary = await d.inspect(bot, note)
    assert (diary.scope, diary.scope_key) == ("private", bot.principal_id)

    await _sees(d, bot, "wombat", [note])
    await _sees(d, alice, "wombat", [note])
    for who in (sibling, bob, bob_bot, admin):
        await _blind(d, who, "wombat", [note], {"principal_mismatch"})
    # alice reads the diary but cannot write in it; the sibling cannot either
    await _refused(d, alice, MemoryScope.PRIVATE, bot.principal_id, "principal_mismatch")
    await _refused(d, sibling, MemoryScope.PRIVATE, bot.principal_id, "principal_mismatch")


async def project_recall(d: Driver) -> None:
    """Project members recall project memory, non-members never; readers cannot write."""
    org = await d.org("acme")
    alice = await d.user(org, "alice")
    bob = await d.user(org, "bob")
    carol = await d.user(org, "carol")
    admin = await d.user(org, "admin", OrgRole.ADMIN)
    alice_bot = await d.agent(org, "alice-bot", alice, delegation_days=30)
    carol_bot = await d.agent(org, "carol-bot", carol, delegation_days=30)
    apollo = await d.space(org, MemoryScope.PROJECT, "apollo")
    other = await d.space(org, MemoryScope.PROJECT, "gemini")
    await d.member(apollo, alice, SpaceRole.WRITER)
    await d.member(apollo, bob, SpaceRole.READER)
    await d.member(other, carol, SpaceRole.OWNER)

    plan = await d.remember(alice, "narwhal: apollo ships in May", MemoryScope.PROJECT, "apollo")
    elsewhere = await d.remember(
        carol, "narwhal: gemini slips to June", MemoryScope.PROJECT, "gemini"
    )

    for who in (alice, bob, alice_bot):
        await _sees(d, who, "narwhal", [plan])
        await _blind(d, who, "narwhal", [elsewhere], {"unverified_membership"})
    for who in (carol, carol_bot, admin):
        await _blind(d, who, "narwhal", [plan], {"unverified_membership"})
    await _sees(d, carol, "narwhal", [elsewhere])

    await _refused(d, bob, MemoryScope.PROJECT, "apollo", "insufficient_role")
    await _refused(d, carol, MemoryScope.PROJECT, "apollo", "unverified_membership")
    await _refused(d, admin, MemoryScope.PROJECT, "apollo", "unverified_membership")
    # the agent writes on its user's writer membership while delegated
    by_bot = await d.remember(
        alice_bot, "narwhal: bot filed the ticket", MemoryScope.PROJECT, "apollo"
    )
    await _sees(d, bob, "narwhal", [by_bot])


_GATED = (
    (MemoryScope.TEAM, "platform"),
    (MemoryScope.ORGANIZATION, None),
    (MemoryScope.SHARED, "partners"),
    (MemoryScope.PUBLIC, None),
)


async def disabled_scope(d: Driver) -> None:
    """Team, organization, shared and public writes are refused until a space enables them."""
    org = await d.org("acme")
    alice = await d.user(org, "alice")
    reader = await d.user(org, "rita")
    owner = await d.user(org, "owner", OrgRole.OWNER)
    bot = await d.agent(org, "alice-bot", alice, delegation_days=30)
    bob = await d.user(org, "bob")
    for scope, key in _GATED:
        space = await d.space(org, scope, key)
        await d.member(space, alice, SpaceRole.WRITER)
        await d.member(space, reader, SpaceRole.READER)
        # refused for everyone, writer, owner and delegated agent alike; nothing written
        for who in (alice, owner, bot, reader, bob):
            await _refused(d, who, scope, key, "scope_disabled")

        await d.enable_writes(space)
        before = await d.stored_count(org)
        written = await d.remember(alice, f"axolotl: first {scope} note", scope, key)
        assert await d.stored_count(org) == before + 1
        await _sees(d, alice, "axolotl", [written])
        await _refused(d, reader, scope, key, "insufficient_role")
        if key is None:  # organization and public: every member of the org reads it
            await _sees(d, bob, "axolotl", [written])
        else:
            await _blind(d, bob, "axolotl", [written], {"unverified_membership"})
            await _refused(d, bob, scope, key, "unverified_membership")


SUITES: dict[str, Suite] = {
    "private_leak_negative": private_leak_negative,
    "delegated_recall": delegated_recall,
    "agent_diary": agent_diary,
    "project_recall": project_recall,
    "disabled_scope": disabled_scope,
}
