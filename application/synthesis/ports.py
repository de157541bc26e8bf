"""The ports synthesis adds: where runs are kept, and who writes a draft."""

from typing import Protocol, runtime_checkable

from application.synthesis.records import Draft, OutlineSection, SectionPack, SynthesisRun

__all__ = ["Drafter", "SynthesisRunStore"]


@runtime_checkable
class SynthesisRunStore(Protocol):
    """Synthesis runs per organisation; a run is replaced whole after each stage."""

    async def save_run(self, run: SynthesisRun) -> None: ...

    async def get_run(self, org_id: str, run_id: str) -> SynthesisRun | None: ...

    async def runs_citing(self, org_id: str, source_id: str) -> list[SynthesisRun]:
        """Remembered runs whose artifact cites ``source_id``, oldest first."""
        ...

    async def drop_runs(self, org_id: str) -> None: ...

    async def runs_of(self, org_id: str, actor_id: str, limit: int) -> list[SynthesisRun]:
        """At most ``limit`` of the principal's own runs, newest first (to list and resume)."""
        ...


@runtime_checkable
class Drafter(Protocol):
    """Writes the document from the authorized section packs only."""

    @property
    def name(self) -> str: ...

    async def draft(
        self, query: str, outline: list[OutlineSection], packs: list[SectionPack]
    ) -> Draft: ...
