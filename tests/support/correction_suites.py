"""The named correction suites, written once against a surface-neutral driver.

Like ``tests.support.policy_suites``: each suite peoples a fresh Tessera
through the driver, corrects memory as its owner (preview, then apply with
the token) and asserts what search, packs, inspect and the audit log show
afterwards. Drivers: in process (``WorldDriver``), HTTP and MCP.

- ``stale-decision-replacement``: after ``supersede`` the replacement ranks
  first for the question the old decision answered; the old one is flagged
  ``superseded_by`` or absent, and absent for anyone who cannot see the
  replacement.
- ``hidden-source``: hidden memory leaves every reader's search and packs at
  once; others cannot inspect it; restore brings it back.
- ``redacted-source`` and ``deleted-source``: the text is gone from search,
  packs, inspect, errors and the audit log; delete leaves a tombstone. A pack
  counts a relevant redaction (``withheld_redacted``) for readers of its space
  only, never showing its text or summary.
- ``redacted-span-summary``: a summary stands in for the redacted span only;
  the rest of the text stays, and the span's text is gone everywhere.
- ``duplicate-collapse``: a duplicate collapses under its canonical source.
- ``correct-only-what-you-read``: another writer of the space may not hide,
  redact or delete a source marked sensitive, and finds a hidden one not at
  all (not even to restore it); its owner still may.
"""

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from domain.policy import SpaceRole
from domain.scopes import MemoryScope
from tests.support.policy_suites import Denied, Driver, Who

__all__ = ["CORRECTION_SUITES", "CorrectionDriver"]


class CorrectionDriver(Driver, Protocol):
    async def correct(self, who: Who, source_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Preview, then apply with the preview's token; ``Denied(reason)`` when refused."""

    async def hits(self, who: Who, query: str) -> list[dict[str, Any]]:
        """Search results as JSON objects (with their lifecycle fields)."""

    async def pack_items(self, who: Who, query: str) -> dict[str, Any]:
        """A context pack as a JSON object."""

    async def audit_text(self, org_id: str) -> str:
        """Every audit receipt of the organisation, as text (the operator's view)."""


Suite = Callable[[CorrectionDriver], Awaitable[None]]


async def _people(d: CorrectionDriver) -> tuple[str, Who, Who, Who]:
    """An org with ana (writer of project 'ops'), bob (reader of it) and eve (no member)."""
    org = await d.org("acme")
    ana, bob, eve = [await d.user(org, n) for n in ("ana", "bob", "eve")]
    ops = await d.space(org, MemoryScope.PROJECT, "ops")
    await d.member(ops, ana, SpaceRole.WRITER)
    await d.member(ops, bob, SpaceRole.READER)
    return org, ana, bob, eve


async def _ids(d: CorrectionDriver, who: Who, query: str) -> tuple[list[str], list[str]]:
    searched = [h["source_id"] for h in await d.hits(who, query)]
    packed = [i["source_id"] for i in (await d.pack_items(who, query))["items"]]
    return searched, packed


async def _refusal(step: Awaitable[object]) -> str | None:
    """The reason a step was refused, or None when it went through."""
    try:
        await step
    except Denied as denial:
        return denial.reason
    return None


async def _anywhere(d: CorrectionDriver, who: Who, query: str) -> set[str]:
    searched, packed = await _ids(d, who, query)
    return {*searched, *packed}


async def _gone_for(d: CorrectionDriver, who: Who, query: str, sid: str, secret: str) -> None:
    hits = await d.hits(who, query)
    pack = await d.pack_items(who, query)
    assert sid not in {h["source_id"] for h in hits}, f"LEAK: {who.name} found {sid}"
    assert sid not in {i["source_id"] for i in pack["items"]}, f"LEAK: {who.name} packed {sid}"
    assert secret not in repr(hits) + repr(pack), f"LEAK: {who.name} got the text"
    if await _refusal(d.inspect(who, sid)) is None:
        seen = await d.inspect(who, sid)
        assert seen.text is None or secret not in seen.text, f"LEAK: {who.name} inspected it"


async def stale_decision_replacement(d: CorrectionDriver) -> None:
    org, ana, bob, eve = await _people(d)
    project = MemoryScope.PROJECT
    old = await d.remember(ana, "Decision: billing uses PostgreSQL as its database", project, "ops")
    new = await d.remember(
        ana, "Decision update: billing moves to SurrealDB as its database", project, "ops"
    )
    question = "which database does billing use PostgreSQL"
    await d.correct(ana, old, {"action": "supersede", "replacement_id": new, "reason": "moved"})
    for who in (ana, bob):
        hits = await d.hits(who, question)
        assert hits and hits[0]["source_id"] == new, f"{who.name}: replacement not first"
        for hit in hits:
            if hit["source_id"] == old:
                assert hit["superseded_by"] == new and hit["lifecycle"] == "superseded"
        _, packed = await _ids(d, who, question)
        assert packed and packed[0] == new
    assert not await _anywhere(d, eve, question) & {old, new}
    # history: the old decision shows only where its replacement is visible too
    private = await d.remember(ana, "Decision: billing invoices go out monthly")
    shared = await d.remember(ana, "Decision: billing invoices go out weekly", project, "ops")
    await d.correct(ana, shared, {"action": "supersede", "replacement_id": private})
    assert shared not in await _anywhere(d, bob, "billing invoices weekly")
    assert shared in await _anywhere(d, ana, "billing invoices weekly")
    assert org


async def hidden_source(d: CorrectionDriver) -> None:
    _, ana, bob, _ = await _people(d)
    secret = "the ops pager rota lives in the blue binder"
    sid = await d.remember(ana, secret, MemoryScope.PROJECT, "ops")
    assert sid in (await _ids(d, bob, "ops pager rota"))[0]
    await d.correct(ana, sid, {"action": "hide", "reason": "outdated"})
    for who in (ana, bob):
        searched, packed = await _ids(d, who, "ops pager rota")
        assert sid not in searched and sid not in packed, f"LEAK: {who.name} recalled {sid}"
    assert await _refusal(d.inspect(bob, sid)) == "not_found", "LEAK: bob inspected it"
    assert (await d.inspect(ana, sid)).text == secret  # its owner still sees it
    await d.correct(ana, sid, {"action": "restore"})
    assert sid in (await _ids(d, bob, "ops pager rota"))[0]


async def redacted_source(d: CorrectionDriver) -> None:
    org, ana, bob, eve = await _people(d)
    text = "prod deploy key is zebra-omega-99 for the ops cluster"
    secret = "zebra-omega-99"
    sid = await d.remember(ana, text, MemoryScope.PROJECT, "ops")
    start = text.index(secret)
    span = {"start": start, "end": start + len(secret)}
    await d.correct(ana, sid, {"action": "redact", "spans": [span], "reason": "a key"})
    for who in (ana, bob):
        await _gone_for(d, who, "prod deploy key zebra omega", sid, secret)
        # relevant withheld memory is reported as a count, never as text
        pack = await d.pack_items(who, "which prod deploy key")
        assert pack["withheld_redacted"] == 1, f"{who.name}: the redaction was not counted"
        assert "[redacted]" not in repr(pack) and "ops cluster" not in repr(pack)
        assert (await d.pack_items(who, "dentist appointment"))["withheld_redacted"] == 0
    # eve reads no 'ops': not even the count crosses into a space she cannot read
    assert (await d.pack_items(eve, "which prod deploy key"))["withheld_redacted"] == 0
    owner_view = await d.inspect(ana, sid)
    assert owner_view.text == "prod deploy key is [redacted] for the ops cluster"
    undo = await _refusal(d.correct(ana, sid, {"action": "restore"}))
    assert undo == "transition_not_allowed", "a redaction was undone"
    assert secret not in await d.audit_text(org)


async def redacted_span_summary(d: CorrectionDriver) -> None:
    org, ana, bob, _ = await _people(d)
    text = "Guest network for visitors: heron-quartz-41, ask Ola at the front desk"
    secret = "heron-quartz-41"
    sid = await d.remember(ana, text, MemoryScope.PROJECT, "ops")
    start = text.index(secret)
    body = {
        "action": "redact",
        "spans": [{"start": start, "end": start + len(secret)}],
        "summary": "a wifi password",
    }
    await d.correct(ana, sid, body)
    kept = "Guest network for visitors: [redacted: a wifi password], ask Ola at the front desk"
    for who in (ana, bob):
        await _gone_for(d, who, "heron quartz guest network", sid, secret)
        pack = await d.pack_items(who, "the guest wifi password")
        assert pack["withheld_redacted"] == 1 and "front desk" not in repr(pack)
    assert (await d.inspect(ana, sid)).text == kept, "the text around the span was lost"
    assert await _refusal(d.inspect(bob, sid)) == "not_found"  # others see no redaction
    assert secret not in await d.audit_text(org)
    assert "wifi password" not in await d.audit_text(org)


async def deleted_source(d: CorrectionDriver) -> None:
    org, ana, bob, _ = await _people(d)
    secret = "my bank pin is 8642 and the safe combination is 31-7-15"
    sid = await d.remember(ana, secret, MemoryScope.PROJECT, "ops")
    before = await d.stored_count(org)
    await d.correct(ana, sid, {"action": "delete", "reason": "asked to forget"})
    assert await d.stored_count(org) == before - 1  # its chunk is gone
    for who in (ana, bob):
        await _gone_for(d, who, "bank pin safe combination", sid, "8642")
    tomb = await d.inspect(ana, sid)
    assert tomb.source_id == sid and tomb.text is None
    for action in ("restore", "hide"):
        refused = await _refusal(d.correct(ana, sid, {"action": action}))
        assert refused == "transition_not_allowed", f"{action} changed a deleted source"
    audit = await d.audit_text(org)
    assert "8642" not in audit and "31-7-15" not in audit


async def duplicate_collapse(d: CorrectionDriver) -> None:
    _, ana, bob, _ = await _people(d)
    first = await d.remember(ana, "the wifi password is on the fridge", MemoryScope.PROJECT, "ops")
    copy = await d.remember(ana, "the wifi password is on the fridge!", MemoryScope.PROJECT, "ops")
    assert {first, copy} <= set((await _ids(d, bob, "wifi password fridge"))[0])
    await d.correct(ana, copy, {"action": "mark_duplicate", "canonical_id": first})
    for who in (ana, bob):
        searched, packed = await _ids(d, who, "wifi password fridge")
        assert first in searched and copy not in searched, f"{who.name}: no collapse"
        assert first in packed and copy not in packed
    await d.correct(ana, copy, {"action": "restore"})
    assert {first, copy} <= set((await _ids(d, bob, "wifi password fridge"))[0])


async def correct_only_what_you_read(d: CorrectionDriver) -> None:
    org = await d.org("acme")
    ana, cal = [await d.user(org, n) for n in ("ana", "cal")]
    ops = await d.space(org, MemoryScope.PROJECT, "ops")
    for writer in (ana, cal):
        await d.member(ops, writer, SpaceRole.WRITER)
    secret = await d.remember(ana, "the door code is 7-7-4-1", MemoryScope.PROJECT, "ops")
    gone = await d.remember(ana, "the old rota lived in a drawer", MemoryScope.PROJECT, "ops")
    await d.correct(ana, secret, {"action": "mark_sensitive"})
    await d.correct(ana, gone, {"action": "hide"})
    for action in ("hide", "redact", "delete"):
        refused = await _refusal(d.correct(cal, secret, {"action": action}))
        assert refused == "sensitive_source", f"{action} by another writer: {refused}"
    for action in ("restore", "delete"):
        refused = await _refusal(d.correct(cal, gone, {"action": action}))
        assert refused == "not_found", f"{action} of a hidden source: {refused}"
    assert await _refusal(d.inspect(cal, gone)) == "not_found"
    await d.correct(ana, gone, {"action": "restore"})
    await d.correct(ana, secret, {"action": "restore"})
    await d.correct(cal, secret, {"action": "mark_stale"})  # readable again: his to correct


CORRECTION_SUITES: dict[str, Suite] = {
    "correct-only-what-you-read": correct_only_what_you_read,
    "stale-decision-replacement": stale_decision_replacement,
    "hidden-source": hidden_source,
    "redacted-source": redacted_source,
    "redacted-span-summary": redacted_span_summary,
    "deleted-source": deleted_source,
    "duplicate-collapse": duplicate_collapse,
}
