"""The behaviour every ``AuditLog`` adapter owes the trust layer, as a reusable pytest suite.

Why: a receipt is the evidence of who did what, so a store must give back
exactly what it was given (no field dropped, widened or added), newest first,
and never one organisation's receipts to another.

Usage: subclass it in a test module and provide an async fixture
``audit_log`` that yields a fresh, empty log and closes whatever it opened::

    class TestMyAuditLog(AuditLogContract):
        @pytest.fixture
        async def audit_log(self) -> AsyncIterator[AuditLog]:
            store = MyMemoryStore()
            yield MyAuditLog(store.connection)
            await store.close()
"""

from datetime import UTC, datetime, timedelta, timezone

import msgspec
import pytest
from msgspec.structs import replace

from application.trust.ports import AuditLog
from application.trust.records import AuditReceipt
from contracts.control_samples import AT, ORG_A, ORG_B, receipt
from domain.errors import ConflictError, InvalidInputError
from domain.policy import Surface
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope

__all__ = ["AuditLogContract"]

#: an org id no identifier rule would allow as is: stores must map it safely
_ORG_ODD = "Acme Corp/EU; DROP"


def _full(receipt_id: str, org_id: str = ORG_A) -> AuditReceipt:
    return AuditReceipt(
        receipt_id=receipt_id,
        org_id=org_id,
        at=AT,
        actor_id="user ü",
        agent_id="agent-7",
        surface=Surface.MCP,
        action="correct.redact",
        allowed=False,
        reason=ReasonCode.MISSING_ACTOR,
        scope=MemoryScope.TEAM,
        scope_key="team/x ✓",
        ids=["s-2", "s-1", "s-2"],
        counts={"chunks": 3, "zero": 0, "big": 2**53 + 1, "a.b": -1, "$x": 7},
        hashes={"content": "ab" * 32, "with space": ""},
    )


def _assert_exactly(got: AuditReceipt, want: AuditReceipt) -> None:
    """Equal, and of the same types: == cannot tell 1 from 1.0 or True."""
    assert got == want
    assert got.at.utcoffset() is not None
    got_fields, want_fields = msgspec.structs.asdict(got), msgspec.structs.asdict(want)
    assert {k: type(v) for k, v in got_fields.items()} == {
        k: type(v) for k, v in want_fields.items()
    }
    assert {k: type(v) for k, v in got.counts.items()} == {k: int for k in want.counts}


class AuditLogContract:
    """Subclass (as ``Test...``) and provide an ``audit_log`` fixture."""

    @pytest.fixture
    def audit_log(self) -> AuditLog:
        raise NotImplementedError("provide an `audit_log` fixture yielding a fresh, empty AuditLog")

    def test_is_an_audit_log(self, audit_log: AuditLog) -> None:
        assert isinstance(audit_log, AuditLog)

    async def test_receipts_round_trip_every_field(self, audit_log: AuditLog) -> None:
        full = _full("r-full")
        minimal = receipt("r-min", at=AT - timedelta(seconds=1))
        await audit_log.record([full, minimal])
        got = await audit_log.recent(ORG_A, 10)
        assert len(got) == 2
        _assert_exactly(got[0], full)
        _assert_exactly(got[1], minimal)
        assert got[1].scope is None
        assert got[1].scope_key is None
        assert got[1].agent_id is None
        assert (got[1].ids, got[1].counts, got[1].hashes) == ([], {}, {})

    async def test_recent_is_newest_first_and_limited(self, audit_log: AuditLog) -> None:
        base = datetime(2026, 1, 1, tzinfo=UTC)
        await audit_log.record([receipt("r1", at=base), receipt("r3", at=base + timedelta(2))])
        await audit_log.record(
            [receipt("r2", at=base + timedelta(1)), receipt("r0", at=base + timedelta(2))]
        )
        newest = await audit_log.recent(ORG_A, 10)
        # the same instant is ordered by receipt id, newest (highest) first
        assert [r.receipt_id for r in newest] == ["r3", "r0", "r2", "r1"]
        assert [r.receipt_id for r in await audit_log.recent(ORG_A, 2)] == ["r3", "r0"]
        assert await audit_log.recent(ORG_A, 0) == []

    async def test_offsets_are_compared_as_instants(self, audit_log: AuditLog) -> None:
        late = datetime(2026, 1, 1, 12, tzinfo=UTC)
        # 04:30 at UTC-07:00 is 11:30 UTC; 16:00 at UTC+05:30 is 10:30 UTC
        middle = datetime(2026, 1, 1, 4, 30, tzinfo=timezone(timedelta(hours=-7)))
        early = datetime(2026, 1, 1, 16, tzinfo=timezone(timedelta(hours=5, minutes=30)))
        await audit_log.record(
            [receipt("c", at=early), receipt("a", at=late), receipt("b", at=middle)]
        )
        assert [r.receipt_id for r in await audit_log.recent(ORG_A, 5)] == ["a", "b", "c"]

    async def test_organisations_are_isolated(self, audit_log: AuditLog) -> None:
        await audit_log.record([receipt("a1", ORG_A), receipt("b1", ORG_B), _full("o1", _ORG_ODD)])
        assert [r.receipt_id for r in await audit_log.recent(ORG_A, 10)] == ["a1"]
        assert [r.receipt_id for r in await audit_log.recent(ORG_B, 10)] == ["b1"]
        (odd,) = await audit_log.recent(_ORG_ODD, 10)
        _assert_exactly(odd, _full("o1", _ORG_ODD))
        assert await audit_log.recent("org-never-seen", 10) == []
        # the same receipt id in another organisation is its own receipt
        await audit_log.record([receipt("a1", ORG_B, action="remember")])
        assert [r.action for r in await audit_log.recent(ORG_B, 10)] == ["recall", "remember"]

    async def test_an_empty_log_answers_nothing(self, audit_log: AuditLog) -> None:
        assert await audit_log.recent(ORG_A, 10) == []
        await audit_log.record([])
        assert await audit_log.recent(ORG_A, 10) == []

    async def test_a_receipt_id_is_recorded_once(self, audit_log: AuditLog) -> None:
        await audit_log.record([receipt("r1")])
        with pytest.raises(ConflictError) as caught:
            await audit_log.record([receipt("r2"), receipt("r1", action="other")])
        assert caught.value.reason is ReasonCode.ALREADY_EXISTS
        assert [(r.receipt_id, r.action) for r in await audit_log.recent(ORG_A, 10)] == [
            ("r1", "recall")
        ]

    async def test_naive_datetimes_are_refused(self, audit_log: AuditLog) -> None:
        naive = datetime(2026, 3, 1, 12, 0)  # no tzinfo: the point of the test
        with pytest.raises(InvalidInputError):
            await audit_log.record([receipt("r1", at=naive)])
        assert await audit_log.recent(ORG_A, 10) == []

    async def test_what_was_recorded_cannot_be_changed_by_the_caller(
        self, audit_log: AuditLog
    ) -> None:
        given = _full("r1")
        await audit_log.record([given])
        given.ids.append("later")
        given.counts["later"] = 1
        (got,) = await audit_log.recent(ORG_A, 1)
        got.hashes["later"] = "x"
        (again,) = await audit_log.recent(ORG_A, 1)
        _assert_exactly(again, _full("r1"))

    async def test_recent_naming_is_the_newest_scanned_receipts_naming_an_id(
        self, audit_log: AuditLog
    ) -> None:
        base = datetime(2026, 1, 1, tzinfo=UTC)
        await audit_log.record(
            [
                replace(receipt("r1", at=base), ids=["s1"]),
                replace(receipt("r2", at=base + timedelta(1)), ids=["other", "c1"]),
                replace(receipt("r3", at=base + timedelta(2)), ids=["other"]),
                replace(receipt("r4", at=base + timedelta(3)), ids=["s1", "c1"]),
                receipt("r5", at=base + timedelta(4)),
                replace(receipt("b1", ORG_B, at=base + timedelta(5)), ids=["s1"]),
            ]
        )
        got = await audit_log.recent_naming(ORG_A, ["s1", "c1"], 10, 10)
        assert [r.receipt_id for r in got] == ["r4", "r2", "r1"]
        _assert_exactly(got[0], replace(receipt("r4", at=base + timedelta(3)), ids=["s1", "c1"]))
        # only the scanned newest are looked at, and at most ``limit`` come back
        assert [r.receipt_id for r in await audit_log.recent_naming(ORG_A, ["s1"], 2, 10)] == [
            "r4"
        ]
        assert [r.receipt_id for r in await audit_log.recent_naming(ORG_A, ["c1"], 10, 1)] == [
            "r4"
        ]
        assert await audit_log.recent_naming(ORG_A, [], 10, 10) == []
        assert await audit_log.recent_naming(ORG_A, ["s1"], 0, 10) == []
        assert await audit_log.recent_naming(ORG_A, ["s1"], 10, 0) == []
        assert await audit_log.recent_naming("org-never-seen", ["s1"], 10, 10) == []

    async def test_recent_by_is_one_actors_chosen_actions_newest_first(
        self, audit_log: AuditLog
    ) -> None:
        base = datetime(2026, 1, 1, tzinfo=UTC)
        await audit_log.record(
            [
                receipt("r1", at=base, action="search"),
                receipt("r2", at=base + timedelta(1), action="remember"),
                receipt("r3", at=base + timedelta(2), action="inspect"),
                replace(receipt("r4", at=base + timedelta(3), action="search"), actor_id="u2"),
                # the user's agent acts for the user: the same actor
                replace(receipt("r5", at=base + timedelta(4), action="context"), agent_id="a1"),
                receipt("b1", ORG_B, at=base + timedelta(5), action="search"),
            ]
        )
        actions = ["search", "context", "remember"]
        got = await audit_log.recent_by(ORG_A, "u1", actions, 10)
        assert [r.receipt_id for r in got] == ["r5", "r2", "r1"]
        assert [r.receipt_id for r in await audit_log.recent_by(ORG_A, "u1", actions, 2)] == [
            "r5",
            "r2",
        ]
        assert await audit_log.recent_by(ORG_A, "u1", actions, 0) == []
        assert await audit_log.recent_by(ORG_A, "u1", [], 10) == []
        assert await audit_log.recent_by("org-never-seen", "u1", actions, 10) == []
