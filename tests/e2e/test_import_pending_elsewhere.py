"""An import's ``embedding_pending`` seen from a process that did not run it.

The first services run the import with their lane stopped (every chunk stays
pending, as when a process stops mid-backfill); a second set of services over
the same stores, with a lane of its own that never heard of the import, reads
the count from the store's queue instead of the record's last saved number.
"""

import asyncio
from pathlib import Path

from adapters.inmemory.audit_log import InMemoryAuditLog
from adapters.inmemory.control_store import InMemoryControlStore
from adapters.inmemory.import_store import InMemoryImportStore
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.sources.registry import source_adapters
from application.imports.import_jobs import ImportSetup
from application.services import Services
from domain.policy import Surface
from tests.e2e.conftest import services_over_fakes
from tests.support import archives


async def test_a_second_process_reads_the_pending_count_from_the_store(tmp_path: Path) -> None:
    memory, control = InMemoryMemoryStore(), InMemoryControlStore()
    imports = InMemoryImportStore(memory)
    setup = ImportSetup(
        store=imports, adapters=source_adapters(), root=tmp_path, max_upload_bytes=1 << 20
    )

    def process() -> Services:
        return services_over_fakes(
            store=memory, control=control, audit_log=InMemoryAuditLog(), imports=setup
        )

    first = process()
    await first.open(Surface.CLI)
    await first.memory.lane.stop()  # nothing gets its vectors in this process
    owner = await first.control.principal("local", "owner")
    ctx = await first.access.context_for(owner, Surface.CLI)
    assert first.imports is not None
    area = first.imports.area.files("local")
    started = await first.imports.start(
        ctx, key_id=None, adapter="mbox", path=str(archives.build_mbox(area).path)
    )
    for _ in range(200):
        view = await first.imports.get(ctx, started.id)
        if view.status == "completed":
            break
        await asyncio.sleep(0.02)
    assert view.status == "completed"
    pending = (await memory.embedding_counts("local")).pending
    assert pending > 0

    second = process()  # a new process: its lane has not seen this import
    assert second.imports is not None
    ctx2 = await second.access.context_for(owner, Surface.CLI)
    seen = await second.imports.get(ctx2, started.id)
    assert seen.counters.embedding_pending == pending
    second.memory.lane.resume("local")
    await second.memory.lane.drain()
    again = await second.imports.get(ctx2, started.id)
    assert again.counters.embedding_pending == 0
    await second.memory.lane.stop()
    await first.close()
