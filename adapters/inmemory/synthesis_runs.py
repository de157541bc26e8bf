"""Synthesis runs in a dict: the reference adapter of ``SynthesisRunStore``, used by tests."""

from application.synthesis.records import SynthesisRun

__all__ = ["InMemorySynthesisRuns"]


class InMemorySynthesisRuns:
    def __init__(self) -> None:
        self._runs: dict[tuple[str, str], SynthesisRun] = {}

    async def save_run(self, run: SynthesisRun) -> None:
        self._runs[(run.org_id, run.run_id)] = run

    async def get_run(self, org_id: str, run_id: str) -> SynthesisRun | None:
        return self._runs.get((org_id, run_id))

    async def runs_citing(self, org_id: str, source_id: str) -> list[SynthesisRun]:
        found = [
            run
            for (org, _), run in self._runs.items()
            if org == org_id
            and run.artifact_source_id is not None
            and source_id in run.cited_source_ids
        ]
        return sorted(found, key=lambda r: (r.created_at, r.run_id))

    async def runs_of(self, org_id: str, actor_id: str, limit: int) -> list[SynthesisRun]:
        found = [
            r for (org, _), r in self._runs.items() if org == org_id and r.actor_id == actor_id
        ]
        return sorted(found, key=lambda r: (r.created_at, r.run_id), reverse=True)[:limit]

    async def drop_runs(self, org_id: str) -> None:
        for key in [k for k in self._runs if k[0] == org_id]:
            del self._runs[key]
