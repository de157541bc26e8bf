"""An import's progress as a bar and a sentence: a share of the estimate while it runs,
done once completed, and words alone when the archive's size is not known."""

from datetime import UTC, datetime

from application.imports.jobs import ImportCounters, ImportStatus
from application.imports.views import ImportTarget, ImportView
from domain.scopes import MemoryScope
from entrypoints.web.pages.imports import progress

_AT = datetime(2024, 1, 1, tzinfo=UTC)


def _view(status: ImportStatus, read: int) -> ImportView:
    return ImportView(
        id="i1", adapter="mbox", status=status,
        target=ImportTarget(scope=MemoryScope.PRIVATE, scope_key=None), path="/x/mail.mbox",
        counters=ImportCounters(read=read, written=read), checkpoint=None, skipped=[],
        error=None, warning=None, created_at=_AT, updated_at=_AT,
    )  # fmt: skip


def test_a_running_import_reads_as_a_share_of_its_estimate() -> None:
    shown = progress(_view(ImportStatus.RUNNING, 30), 120)
    assert (shown["value"], shown["max"], shown["percent"]) == (30, 120, 25)
    assert shown["words"] == "Read 30 of about 120 records (25%)."


def test_a_completed_import_is_done_and_an_unknown_size_is_said() -> None:
    assert progress(_view(ImportStatus.COMPLETED, 1), None)["words"] == "Done: read 1 record."
    unknown = progress(_view(ImportStatus.RUNNING, 7), None)
    assert unknown["max"] is None
    assert unknown["words"] == "Read 7 records so far; the archive's size is not known."
    assert progress(_view(ImportStatus.RUNNING, 9), 5)["max"] is None  # the estimate fell short
