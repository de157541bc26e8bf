"""Operator status: per-organisation state, the store, and the queue hook."""

from datetime import timedelta

import pytest

from application.memory.commands import RememberRequest
from application.ports.queue_state import QueueGauge, QueueState
from domain.errors import PolicyDeniedError
from domain.policy import OrgRole
from tests.unit.application.conftest import Parts


class _Lane:
    """A stand-in for a background lane: what it reports is what status shows."""

    def __init__(self) -> None:
        self.state = QueueState(name="embedding", depth=0)

    def queue_state(self) -> QueueState:
        return self.state


async def test_a_registered_queue_shows_its_depth_and_lag(parts: Parts) -> None:
    lane = _Lane()
    assert isinstance(lane, QueueGauge)
    status = parts.world.services.status
    status.watch_queue(lane)
    status.watch_queue(lane)  # registering twice shows it once
    lane.state = QueueState(name="embedding", depth=7, oldest_age_s=12.5, failed=1)
    report = await status.status(None, [])
    shown = [q for q in report.queues if q.name == "embedding"]
    assert shown == [QueueState(name="embedding", depth=7, oldest_age_s=12.5, failed=1)]


async def test_audit_receipts_waiting_are_a_queue_with_their_age(parts: Parts) -> None:
    await parts.service.remember(RememberRequest(org_id="acme", content="a note"), parts.ctx)
    parts.clock.set(parts.clock.now() + timedelta(seconds=3))
    report = await parts.world.services.status.status(None, [])
    audit = next(q for q in report.queues if q.name == "audit_receipts")
    assert audit.depth == report.audit_pending >= 1
    assert audit.oldest_age_s == pytest.approx(3.0)


async def test_each_organisation_shows_sources_chunks_and_index_state(parts: Parts) -> None:
    status = parts.world.services.status
    before = await status.status(None, [])
    acme = next(o for o in before.organisations if o.org_id == "acme")
    assert acme.sources == 0 and acme.chunks == 0
    content = " ".join(f"Sentence {i} is about topic {i % 5}." for i in range(120))
    await parts.service.remember(RememberRequest(org_id="acme", content=content), parts.ctx)
    after = await status.status(None, [])
    acme = next(o for o in after.organisations if o.org_id == "acme")
    assert acme.sources == 1 and acme.chunks is not None and acme.chunks > 1
    assert acme.index_ready is True
    # what this process holds of its index: the exact scan below the graph threshold
    assert acme.index is not None and acme.index.kind == "exact"
    assert acme.index.resident is True and acme.index.resident_rows == acme.chunks
    assert acme.index.resident_bytes is not None and acme.index.resident_bytes > 0
    assert before.organisations[0].index is not None
    assert before.organisations[0].index.resident is False  # not used yet: nothing held
    assert after.store is not None and after.store.data_bytes is None  # nothing on disk


def test_a_queue_state_refuses_impossible_values() -> None:
    with pytest.raises(ValueError, match="depth"):
        QueueState(name="x", depth=-1)
    with pytest.raises(ValueError, match="name"):
        QueueState(name="", depth=0)
    with pytest.raises(ValueError, match="oldest_age_s"):
        QueueState(name="x", depth=1, oldest_age_s=-2.0)


async def test_only_the_install_operator_reads_it(parts: Parts) -> None:
    # None is the data directory's holder; acme's own owner does not run the install
    assert parts.owner.org_role is OrgRole.OWNER
    with pytest.raises(PolicyDeniedError):
        await parts.world.services.status.status(parts.owner, [])
