"""A re-embed's progress: this process's live view of a run, and the status it reports.

Kept apart from the use case so each module stays small. A run this process
holds reports from memory (updated after each page); one another process left
behind (stopped, crashed) reports from the progress each organisation saved.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from application.operations.reembed.ports import VectorStaging
from application.operations.reembed.records import ReembedJob, ReembedState, ReembedStatus
from application.ports import Embedder, MemoryStore

__all__ = ["Live", "status_of", "stored_status"]


@dataclass(kw_only=True)
class Live:
    """This process's view of the run (mutable: updated after each page)."""

    state: ReembedState
    embedder: str
    target: Embedder
    orgs: list[str]
    staged: dict[str, int]
    totals: dict[str, int]
    staged_now: int = 0
    seconds: float = 0.0
    error: str | None = None
    started_at: datetime
    finished_at: datetime | None = None


def status_of(live: Live, serving: str) -> ReembedStatus:
    """The status of a run of this process; ``serving``: the model search serves now."""
    done, total = sum(live.staged.values()), sum(live.totals.values())
    rate = live.staged_now / live.seconds if live.seconds > 0 and live.staged_now else None
    eta = None
    if rate and live.state is ReembedState.RUNNING:
        eta = round(max(total - done, 0) / rate, 1)
    return ReembedStatus(
        state=live.state,
        embedder=live.embedder,
        target_model=live.target.space.model,
        target_dimension=live.target.space.dimension,
        serving_model=serving,
        done=done,
        total=total,
        rate=None if rate is None else round(rate, 1),
        eta_seconds=eta,
        organizations=len(live.orgs),
        error=live.error,
        started_at=live.started_at,
        finished_at=live.finished_at,
    )


async def stored_status(
    staging: VectorStaging, store: MemoryStore, orgs: Sequence[str], serving: str
) -> ReembedStatus:
    """A run another process started and left (stopped or crashed): its saved progress."""
    jobs: list[tuple[str, ReembedJob]] = []
    for org_id in orgs:
        job = await staging.reembed_job(org_id)
        # a job whose target is served already finished (a crash after its switch)
        if job is not None and await staging.recorded_space(org_id) != job.target:
            jobs.append((org_id, job))
    if not jobs:
        return ReembedStatus(serving_model=serving)
    first = jobs[0][1]
    done = total = 0
    for org_id, job in jobs:
        done += await staging.staged_count(org_id, job.target.model)
        total += await store.count_chunks(org_id)
    return ReembedStatus(
        state=ReembedState.FAILED,
        embedder=first.embedder,
        target_model=first.target.model,
        target_dimension=first.target.dimension,
        serving_model=serving,
        done=done,
        total=total,
        organizations=len(jobs),
        error="interrupted",
        started_at=min(job.started_at for _, job in jobs),
    )
